// No one else gets in (issue 9 item 3, docs/SECURITY.md "Other local
// users"): a request from a second Unix user, created here, is refused with
// 403 JSON on every kind of route — the page (which carries the token),
// /state, /events, the ActivityWatch API and a POST with the right token —
// over IPv4 and IPv6 loopback, and the state is unchanged; the daemon's own
// user is served on the same server.
//
// Clients do not talk to an impostor (issue 19 item 2, docs/SECURITY.md M2):
// with the second user listening on a port, on 127.0.0.1 and on [::1], the
// CLI refuses to send anything there, and the daemon refuses to start when
// that user holds the other loopback address of its port.
//
// Needs root (useradd, runuser) and curl; skipped otherwise, with the reason.
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include "in_process_daemon.h"
#include "other_user.h"
#include "server/api_server.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using ::testing::HasSubstr;

using test::ensureOtherUser;
using test::kOtherUser;
using test::runProgram;
using Output = test::ProgramOutput;

/// True when `program` is on $PATH.
bool onPath(const std::string& program) {
  Poco::Path found;
  return Poco::Path::find(Poco::Environment::get("PATH", ""), program, found);
}

/// Status code and body of one curl request sent as `user` (runuser), or as
/// this process's user when `user` is empty.
struct CurlReply {
  int status = 0;
  std::string body;
};

CurlReply curlAs(const std::string& user, const std::string& method, const std::string& url,
                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args;
  std::string program = "curl";
  if (!user.empty()) {
    program = "runuser";
    args = {"-u", user, "--", "curl"};
  }
  // The status goes on its own last line after the body.
  for (const std::string& arg :
       {std::string("-s"), std::string("--max-time"), std::string("10"), std::string("-X"), method,
        std::string("-w"), std::string("\n%{http_code}"), url}) {
    args.push_back(arg);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  const Output output = runProgram(program, args);
  CurlReply reply;
  const std::size_t newline = output.out.rfind('\n');
  if (newline != std::string::npos) {
    reply.body = output.out.substr(0, newline);
    reply.status = std::atoi(output.out.c_str() + newline + 1);
  }
  return reply;
}

class OtherUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) {
      GTEST_SKIP() << "needs root to create a second Unix user (useradd) and run as it";
    }
    if (!onPath("curl") || !onPath("runuser")) {
      GTEST_SKIP() << "needs curl and runuser (scripts/deps.sh test installs curl)";
    }
    const std::string problem = ensureOtherUser();
    ASSERT_EQ(problem, "");
  }
};

TEST_F(OtherUserTest, AnotherUserIsRefusedEverywhereAndTheOwnerIsServed) {
  test::InProcessDaemon::Options options;
  options.wwwFiles = {{"index.html", "<meta content=\"{{ANTIDRIFT_TOKEN}}\">"}};
  test::InProcessDaemon daemon(options);
  // The same API on IPv6 loopback as well.
  ApiServerOptions v6Options;
  v6Options.address = "::1";
  v6Options.port = 0;
  v6Options.threads = 4;
  ApiServer v6(daemon.api(), daemon.broadcaster(), v6Options);
  v6.start();

  const std::vector<std::string> post = {
      "-H",     "Content-Type: application/json",
      "-H",     std::string("X-AntiDrift-Token: ") + test::kToken,
      "--data", "{}"};
  for (const std::string& base :
       {"http://127.0.0.1:" + std::to_string(daemon.port()), v6.baseUrl()}) {
    for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
             {"GET", "/"},
             {"GET", "/index.html"},
             {"GET", "/state"},
             {"GET", "/events"},
             {"GET", "/healthz"},
             {"GET", "/history"},
             {"GET", "/api/0/info"},
             {"GET", "/no-such-file"},
             {"POST", "/planning"},
             {"POST", "/api/0/buckets/aw-watcher-window_x/heartbeat?pulsetime=5"}}) {
      const CurlReply refused = curlAs(kOtherUser, method, base + path,
                                       method == "POST" ? post : std::vector<std::string>{});
      EXPECT_EQ(refused.status, 403) << method << " " << base << path << ": " << refused.body;
      EXPECT_EQ(refused.body, R"({"error":"only the user running antidriftd may use it"})")
          << method << " " << base << path;
      EXPECT_EQ(refused.body.find(test::kToken), std::string::npos);
    }
    // The owner, on the same server and with the same requests.
    const CurlReply page = curlAs("", "GET", base + "/");
    EXPECT_EQ(page.status, 200) << page.body;
    EXPECT_THAT(page.body, HasSubstr(test::kToken));
    EXPECT_EQ(curlAs("", "GET", base + "/state").status, 200);
  }
  // Nothing the other user sent changed anything.
  EXPECT_EQ(daemon.controller().state().runtime, RuntimeState::Locked);
  const CurlReply planning =
      curlAs("", "POST", "http://127.0.0.1:" + std::to_string(daemon.port()) + "/planning", post);
  EXPECT_EQ(planning.status, 200) << planning.body;
  EXPECT_EQ(daemon.controller().state().runtime, RuntimeState::Planning);
  v6.stop();
}

/// Whether this machine has an IPv6 loopback (a socket can bind [::1]:0).
bool haveIpv6Loopback() {
  const int probe = ::socket(AF_INET6, SOCK_STREAM, 0);
  if (probe < 0) return false;
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  const bool bound = ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(probe);
  return bound;
}

TEST_F(OtherUserTest, TheCliRefusesToSendTheTokenToAnotherUsersListener) {
  const test::TempDirectory directory;
  const std::string tokenFile = directory.path() + "/token";
  std::ofstream(tokenFile) << "0123456789abcdef0123456789abcdef";
  std::vector<std::string> addresses = {"127.0.0.1"};
  if (haveIpv6Loopback()) addresses.push_back("::1");
  for (const std::string& address : addresses) {
    test::ForeignListener squatter(test::otherUserIds(), address, 0);
    ASSERT_NE(squatter.port(), 0) << address << ": " << squatter.errorText();
    const std::string host = address == "::1" ? "[::1]" : address;
    const std::string url = "http://" + host + ":" + std::to_string(squatter.port());
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"complete"}, std::vector<std::string>{"status"}}) {
      std::vector<std::string> args = {"--url", url, "--token-file", tokenFile};
      args.insert(args.end(), command.begin(), command.end());
      const test::ChildResult result = test::runToCompletion(ANTIDRIFT_CLI_PATH, args, {});
      EXPECT_EQ(result.exitCode, 77) << url << " " << command[0] << ": " << result.err;
      EXPECT_THAT(result.err, HasSubstr(host + ":" + std::to_string(squatter.port()) +
                                        " is held by another user (uid " +
                                        std::to_string(test::otherUserIds().uid) + ")"))
          << command[0];
      EXPECT_THAT(result.err, HasSubstr("not even the token"));
    }
    EXPECT_EQ(squatter.stop(), 0u) << "the CLI sent bytes to another user's listener on " << url;
  }
}

// The status bars' watch (antidrift-watch, issue 20 item 2) checks the
// listener as the CLI does: on another user's it sends nothing, shows "off",
// says why on stderr once, and keeps trying (a daemon may come back).
TEST_F(OtherUserTest, TheBarWatchShowsOffAndSendsNothingToAnotherUsersListener) {
  test::ForeignListener squatter(test::otherUserIds(), "127.0.0.1", 0);
  ASSERT_NE(squatter.port(), 0) << squatter.errorText();
  const std::string url = "http://127.0.0.1:" + std::to_string(squatter.port());
  Poco::Pipe outPipe;
  Poco::Pipe errPipe;
  Poco::ProcessHandle watch =
      Poco::Process::launch(ANTIDRIFT_CLI_PATH, {"--url", url, "watch", "--format", "waybar"},
                            nullptr, &outPipe, &errPipe);
  Poco::PipeInputStream out(outPipe);
  std::string line;
  std::getline(out, line);
  EXPECT_THAT(line, HasSubstr(R"("text":"AntiDrift off")"));
  ::kill(watch.id(), SIGTERM);
  Poco::PipeInputStream err(errPipe);
  std::string errors;
  Poco::StreamCopier::copyToString(err, errors);
  EXPECT_EQ(watch.wait(), 0);
  EXPECT_THAT(errors, HasSubstr("127.0.0.1:" + std::to_string(squatter.port()) +
                                " is held by another user (uid " +
                                std::to_string(test::otherUserIds().uid) + ")"));
  EXPECT_EQ(squatter.stop(), 0u) << "the watch sent bytes to another user's listener on " << url;
}

TEST_F(OtherUserTest, TheDaemonRefusesToStartWhenAnotherUserHoldsItsOtherLoopback) {
  if (!haveIpv6Loopback()) {
    GTEST_SKIP() << "no IPv6 loopback on this machine: [::1] cannot be squatted here";
  }
  test::ForeignListener squatter(test::otherUserIds(), "::1", 0);
  ASSERT_NE(squatter.port(), 0) << squatter.errorText();
  test::InProcessDaemon daemon(test::InProcessDaemon::Options{});  // for the API only
  ApiServerOptions options;
  options.address = "127.0.0.1";
  options.port = squatter.port();
  options.threads = 4;
  ApiServer server(daemon.api(), daemon.broadcaster(), options);
  try {
    server.start();
    ADD_FAILURE() << "started although [::1]:" << squatter.port() << " is another user's";
  } catch (const Poco::Exception& error) {
    EXPECT_THAT(error.message(), HasSubstr("[::1]:" + std::to_string(squatter.port()) +
                                           " is held by another user (uid " +
                                           std::to_string(test::otherUserIds().uid) + ")"));
    EXPECT_THAT(error.message(), HasSubstr("refusing to start"));
  }
  server.stop();
}

}  // namespace
}  // namespace antidrift
