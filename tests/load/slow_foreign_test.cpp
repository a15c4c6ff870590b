// Another user cannot hold the server (issue 19 item 1, docs/SECURITY.md M1),
// for 30 s: a second Unix user, created here, keeps 2 × server.threads
// connections open and dribbles a byte a second into each (reopening any the
// server closes), while the owner's GET /healthz must answer within 1 s every
// second and every foreign connection must be closed within 1 s of being
// accepted. The foreign side runs in a child process that has become that
// user; it reports, for each connection, how long the server kept it open.
//
// Needs root (useradd, setuid); skipped otherwise, with the reason. About
// 30 s: ctest label "load;root" (tests/load/CMakeLists.txt).
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/in_process_daemon.h"
#include "integration/other_user.h"

namespace antidrift {
namespace {

using namespace std::chrono_literals;

constexpr int kThreads = 8;                    // server.threads of the daemon under test
constexpr int kForeign = 2 * kThreads;         // connections the other user keeps open
constexpr std::chrono::seconds kDuration{30};  // how long the attack lasts
constexpr std::chrono::seconds kLimit{1};      // owner's answer, foreign close

/// What the foreign child measured, written to the parent at its end.
struct ForeignReport {
  std::uint32_t connections = 0;    // connections opened in all
  std::uint32_t closedLate = 0;     // of them, open longer than kLimit
  std::uint32_t bytesSent = 0;      // dribbled bytes the server took
  std::uint32_t longestOpenMs = 0;  // the longest a connection stayed open
};

std::int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The foreign child: kForeign connections to 127.0.0.1:`port`, a byte a
/// second into each, each closed one reopened, for kDuration.
int dribble(std::uint16_t port, int reportFd) {
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(port);
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ForeignReport report;
  std::vector<pollfd> sockets(kForeign, pollfd{-1, POLLIN, 0});
  std::vector<std::int64_t> opened(kForeign, 0);
  const std::int64_t end = nowMs() + std::chrono::milliseconds(kDuration).count();
  auto open = [&](std::size_t i) {
    sockets[i].fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(sockets[i].fd, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
      ::close(sockets[i].fd);
      sockets[i].fd = -1;
      return;
    }
    opened[i] = nowMs();
    ++report.connections;
    static const char kStart[] = "GET / HTTP/1.1\r\nX-a: ";
    if (::send(sockets[i].fd, kStart, sizeof kStart - 1, MSG_NOSIGNAL) > 0) ++report.bytesSent;
  };
  for (std::size_t i = 0; i < sockets.size(); ++i) open(i);
  std::int64_t nextByte = nowMs() + 1000;
  while (nowMs() < end) {
    const int wait = static_cast<int>(std::max<std::int64_t>(0, nextByte - nowMs()));
    if (::poll(sockets.data(), sockets.size(), wait) > 0) {
      for (std::size_t i = 0; i < sockets.size(); ++i) {
        if (sockets[i].fd < 0 || sockets[i].revents == 0) continue;
        char buffer[1024];
        if (::recv(sockets[i].fd, buffer, sizeof buffer, MSG_DONTWAIT) > 0) continue;
        const std::int64_t open_ms = nowMs() - opened[i];  // closed (or reset)
        report.longestOpenMs = std::max(report.longestOpenMs, static_cast<std::uint32_t>(open_ms));
        if (open_ms > std::chrono::milliseconds(kLimit).count()) ++report.closedLate;
        ::close(sockets[i].fd);
        open(i);  // as an attacker would
      }
    }
    if (nowMs() >= nextByte) {
      nextByte += 1000;
      for (pollfd& one : sockets) {
        if (one.fd >= 0 && ::send(one.fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) {
          ++report.bytesSent;
        }
      }
    }
  }
  for (std::size_t i = 0; i < sockets.size(); ++i) {  // still open at the end: how long?
    if (sockets[i].fd < 0) continue;
    const std::int64_t open_ms = nowMs() - opened[i];
    report.longestOpenMs = std::max(report.longestOpenMs, static_cast<std::uint32_t>(open_ms));
    if (open_ms > std::chrono::milliseconds(kLimit).count()) ++report.closedLate;
  }
  return ::write(reportFd, &report, sizeof report) == static_cast<ssize_t>(sizeof report) ? 0 : 1;
}

TEST(OtherUserLoadTest, SlowForeignConnectionsDoNotStarveTheOwner) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to create a second Unix user (useradd) and run as it";
  }
  ASSERT_EQ(test::ensureOtherUser(), "");
  test::InProcessDaemon::Options options;
  options.threads = kThreads;
  test::InProcessDaemon daemon(options);
  const std::uint16_t port = daemon.port();

  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  const pid_t child = test::forkAs(test::otherUserIds(), [&] { return dribble(port, pipeFds[1]); });
  ASSERT_GT(child, 0);
  ::close(pipeFds[1]);

  // The owner, once a second, until the child reports (at the end of the attack).
  std::vector<std::int64_t> latenciesMs;
  int failures = 0;
  pollfd report{pipeFds[0], POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + kDuration + 30s;
  while (std::chrono::steady_clock::now() < deadline && ::poll(&report, 1, 1000) == 0) {
    const auto before = std::chrono::steady_clock::now();
    const test::Reply reply = test::sendRequest(port, "GET", "/healthz");
    latenciesMs.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now() - before)
                              .count());
    if (reply.status != 200) ++failures;
  }
  ForeignReport foreign;
  const bool reported =
      ::read(pipeFds[0], &foreign, sizeof foreign) == static_cast<ssize_t>(sizeof foreign);
  ::close(pipeFds[0]);
  EXPECT_EQ(test::waitExit(child), 0)
      << "the foreign child failed (127: could not become " << test::kOtherUser << ")";
  ASSERT_TRUE(reported);

  ASSERT_GE(latenciesMs.size(), 25u) << "the owner's requests did not run once a second";
  const std::int64_t worst = *std::max_element(latenciesMs.begin(), latenciesMs.end());
  std::vector<std::int64_t> sorted = latenciesMs;
  std::sort(sorted.begin(), sorted.end());
  std::cout << "owner GET /healthz under the dribble: " << latenciesMs.size()
            << " requests, median " << sorted[sorted.size() / 2] << " ms, worst " << worst
            << " ms; foreign connections: " << foreign.connections << " opened, longest open "
            << foreign.longestOpenMs << " ms, " << foreign.bytesSent << " bytes sent" << std::endl;
  EXPECT_EQ(failures, 0);
  EXPECT_LT(worst, std::chrono::milliseconds(kLimit).count());
  EXPECT_GE(foreign.connections, static_cast<std::uint32_t>(kForeign));
  EXPECT_EQ(foreign.closedLate, 0u) << "longest open: " << foreign.longestOpenMs << " ms";
}

}  // namespace
}  // namespace antidrift
