/// @file other_user.h
/// A second Unix user for the tests of what other local users can do
/// (docs/SECURITY.md "Other local users", M1, M2): created on first use
/// (useradd, so root only) and left in place, and child processes that run
/// as it. Header-only; used by other_user_test.cpp and
/// tests/load/slow_foreign_test.cpp.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

namespace antidrift::test {

/// A system user without home or login shell, created on first use and left
/// in place (harmless; the next run reuses it).
inline constexpr const char* kOtherUser = "antidrift-test-peer";

/// Exit code and stdout of a program.
struct ProgramOutput {
  int exitCode = -1;
  std::string out;
};

/// Runs `program` with `args`, stdout captured, stderr discarded.
inline ProgramOutput runProgram(const std::string& program, const std::vector<std::string>& args) {
  Poco::Pipe outPipe;
  Poco::ProcessHandle handle =
      Poco::Process::launch(program, args, nullptr, &outPipe, nullptr, Poco::Process::Env());
  ProgramOutput result;
  Poco::PipeInputStream out(outPipe);
  Poco::StreamCopier::copyToString(out, result.out);
  result.exitCode = handle.wait();
  return result;
}

/// Creates kOtherUser unless it exists; "" on success, else why not.
inline std::string ensureOtherUser() {
  if (::getpwnam(kOtherUser) != nullptr) {
    return "";
  }
  const ProgramOutput created = runProgram(
      "useradd", {"--system", "--no-create-home", "--shell", "/usr/sbin/nologin", kOtherUser});
  // Exit 9: created meanwhile by a parallel run.
  if (created.exitCode != 0 && created.exitCode != 9) {
    return "useradd " + std::string(kOtherUser) + " failed with exit code " +
           std::to_string(created.exitCode);
  }
  return "";
}

/// kOtherUser's uid and gid (after ensureOtherUser()); uid -1 if missing.
struct OtherUserIds {
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
};
inline OtherUserIds otherUserIds() {
  OtherUserIds ids;
  if (const passwd* entry = ::getpwnam(kOtherUser)) {
    ids.uid = entry->pw_uid;
    ids.gid = entry->pw_gid;
  }
  return ids;
}

/// Runs `body` in a child process that has become `ids` (setgroups, setgid,
/// setuid), and returns the child's pid; the child exits with body's value
/// (127 when it cannot change user). Only system calls belong in `body`:
/// the parent has threads.
template <typename Body>
pid_t forkAs(const OtherUserIds& ids, Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(ids.gid) != 0 || ::setuid(ids.uid) != 0) {
      ::_exit(127);
    }
    ::_exit(body());
  }
  return child;
}

/// The exit code of `child` (waits for it); -1 if it did not exit normally.
inline int waitExit(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A TCP listener of kOtherUser in a child process, on `address` (an IPv4
/// or IPv6 loopback literal) and `port` (0: ephemeral): it accepts every
/// connection and counts the bytes it receives, until stop().
class ForeignListener {
 public:
  /// Starts the child; port() is 0 when it could not listen (errorText() says why).
  ForeignListener(const OtherUserIds& ids, const std::string& address, std::uint16_t port) {
    int toParent[2];
    int control[2];
    if (::pipe2(toParent, O_CLOEXEC) != 0 || ::pipe2(control, O_CLOEXEC) != 0) return;
    const bool v6 = address.find(':') != std::string::npos;
    sockaddr_storage bound{};
    socklen_t length = 0;
    if (v6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&bound);
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons(port);
      in6->sin6_addr = in6addr_loopback;
      length = sizeof *in6;
    } else {
      auto* in4 = reinterpret_cast<sockaddr_in*>(&bound);
      in4->sin_family = AF_INET;
      in4->sin_port = htons(port);
      in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      length = sizeof *in4;
    }
    const int writeEnd = toParent[1];
    const int controlEnd = control[0];
    const int parentEnds[2] = {toParent[0], control[1]};
    child_ = forkAs(ids, [&]() -> int {
      ::close(parentEnds[0]);  // else the control pipe never reports the parent's close
      ::close(parentEnds[1]);
      const int listening = ::socket(bound.ss_family, SOCK_STREAM, 0);
      const int one = 1;
      ::setsockopt(listening, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (v6) ::setsockopt(listening, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
      std::uint32_t report[2] = {0, 0};  // port, errno
      if (::bind(listening, reinterpret_cast<sockaddr*>(&bound), length) != 0 ||
          ::listen(listening, 16) != 0) {
        report[1] = static_cast<std::uint32_t>(errno);
        static_cast<void>(::write(writeEnd, report, sizeof report));
        return 1;
      }
      sockaddr_storage actual{};
      socklen_t actualLength = sizeof actual;
      ::getsockname(listening, reinterpret_cast<sockaddr*>(&actual), &actualLength);
      report[0] = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&actual)->sin6_port
                           : reinterpret_cast<sockaddr_in*>(&actual)->sin_port);
      static_cast<void>(::write(writeEnd, report, sizeof report));
      std::uint64_t received = 0;
      std::vector<pollfd> watched = {{controlEnd, POLLIN, 0}, {listening, POLLIN, 0}};
      while (true) {
        if (::poll(watched.data(), watched.size(), -1) < 0) continue;
        if (watched[0].revents != 0) break;  // the parent closed the control pipe
        if (watched[1].revents != 0) {
          const int client = ::accept(listening, nullptr, nullptr);
          if (client >= 0) watched.push_back({client, POLLIN, 0});
        }
        for (std::size_t i = 2; i < watched.size(); ++i) {
          if (watched[i].revents == 0) continue;
          char buffer[4096];
          const ssize_t got = ::recv(watched[i].fd, buffer, sizeof buffer, MSG_DONTWAIT);
          if (got > 0) {
            received += static_cast<std::uint64_t>(got);
          } else if (got == 0) {
            watched[i].events = 0;  // closed; keep the slot
          }
        }
      }
      static_cast<void>(::write(writeEnd, &received, sizeof received));
      return 0;
    });
    ::close(toParent[1]);
    ::close(control[0]);
    fromChild_ = toParent[0];
    control_ = control[1];
    std::uint32_t report[2] = {0, 0};
    if (::read(fromChild_, report, sizeof report) == static_cast<ssize_t>(sizeof report)) {
      port_ = static_cast<std::uint16_t>(report[0]);
      if (report[1] != 0) error_ = std::strerror(static_cast<int>(report[1]));
    } else {
      error_ = "the listener child did not report";
    }
  }
  ~ForeignListener() { stop(); }
  ForeignListener(const ForeignListener&) = delete;
  ForeignListener& operator=(const ForeignListener&) = delete;

  std::uint16_t port() const { return port_; }
  const std::string& errorText() const { return error_; }

  /// Ends the child; the bytes it received from all connections.
  std::uint64_t stop() {
    if (child_ <= 0) return received_;
    ::close(control_);
    std::uint64_t received = 0;
    if (::read(fromChild_, &received, sizeof received) == static_cast<ssize_t>(sizeof received)) {
      received_ = received;
    }
    ::close(fromChild_);
    waitExit(child_);
    child_ = 0;
    return received_;
  }

 private:
  pid_t child_ = 0;
  int fromChild_ = -1;
  int control_ = -1;
  std::uint16_t port_ = 0;
  std::string error_;
  std::uint64_t received_ = 0;
};

}  // namespace antidrift::test
