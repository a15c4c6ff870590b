/// @file child_process.h
/// Real programs as children of a test (Poco::Process): one run to completion
/// with stdout and stderr drained concurrently (docs/CONVENTIONS.md "Pitfalls": never
/// read one pipe to the end while the other can fill), and antidriftd running
/// on an ephemeral port until the test stops it with SIGINT, and a child
/// whose three streams the test reads and closes as it goes (PipedChild).
/// Nothing here is thread-safe: each object belongs to the test thread that made it.
#pragma once

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

namespace antidrift::test {

/// How a child ended and everything it printed.
struct ChildResult {
  int exitCode = -1;  ///< its exit status, or 256 + signal (Poco::Process)
  std::string out;
  std::string err;
};

/// Runs `program` with `args` and `environment` (added to this process's) to
/// completion and returns its exit code and output. Throws Poco::Exception
/// when it cannot be started.
inline ChildResult runToCompletion(const std::string& program, const std::vector<std::string>& args,
                                   const Poco::Process::Env& environment) {
  Poco::Pipe outPipe;
  Poco::Pipe errPipe;
  Poco::ProcessHandle handle =
      Poco::Process::launch(program, args, nullptr, &outPipe, &errPipe, environment);
  ChildResult result;
  std::thread errReader([&] {
    Poco::PipeInputStream err(errPipe);
    Poco::StreamCopier::copyToString(err, result.err);
  });
  Poco::PipeInputStream out(outPipe);
  Poco::StreamCopier::copyToString(out, result.out);
  errReader.join();
  result.exitCode = handle.wait();
  return result;
}

/// A running antidriftd (or any program that prints
/// "antidriftd listening on http://127.0.0.1:PORT" first): started in the
/// constructor, which returns once that line is read; stopped with SIGINT by
/// stop() or the destructor.
class RunningDaemon {
 public:
  RunningDaemon(const std::string& program, const std::vector<std::string>& args,
                const Poco::Process::Env& environment)
      : handle_(Poco::Process::launch(program, args, nullptr, &outPipe_, &errPipe_, environment)),
        out_(outPipe_) {
    errReader_ = std::thread([this] {
      Poco::PipeInputStream err(errPipe_);
      Poco::StreamCopier::copyToString(err, err_);
    });
    std::getline(out_, firstLine_);
    std::smatch match;
    if (std::regex_match(firstLine_, match,
                         std::regex(R"(antidriftd listening on http://127\.0\.0\.1:(\d+))"))) {
      port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
    }
  }

  ~RunningDaemon() {
    if (exitCode_ < 0) {
      stop();
    }
  }

  RunningDaemon(const RunningDaemon&) = delete;
  RunningDaemon& operator=(const RunningDaemon&) = delete;

  /// Sends SIGINT and waits; returns the exit code.
  int stop() {
    if (exitCode_ < 0) {
      try {
        Poco::Process::requestTermination(handle_.id());
      } catch (const Poco::Exception&) {
        // Already gone; waitForExit() reports how it ended.
      }
    }
    return waitForExit();
  }

  /// Waits, without sending a signal, until the daemon exits (the test has
  /// signalled it itself); returns the exit code.
  int waitForExit() {
    if (exitCode_ < 0) {
      Poco::StreamCopier::copyToString(out_, restOfOut_);
      errReader_.join();
      exitCode_ = handle_.wait();
    }
    return exitCode_;
  }

  /// The port from the first line; 0 when the daemon did not start.
  std::uint16_t port() const { return port_; }
  /// "http://127.0.0.1:<port>".
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  Poco::ProcessHandle::PID pid() const { return handle_.id(); }
  const std::string& firstLine() const { return firstLine_; }
  /// Everything on stderr; complete only after stop().
  const std::string& err() const { return err_; }

 private:
  Poco::Pipe outPipe_;
  Poco::Pipe errPipe_;
  Poco::ProcessHandle handle_;
  Poco::PipeInputStream out_;
  std::thread errReader_;
  std::string firstLine_;
  std::string restOfOut_;
  std::string err_;
  std::uint16_t port_ = 0;
  int exitCode_ = -1;
};

/// A child with all three standard streams piped to the test, read line by
/// line with a deadline (poll, no sleep): for a start the test watches as it
/// happens — what the daemon logs while it waits, then whether it listens.
/// Its stdin stays open until closeInput() (antidrift_store_lock_holder lets
/// its lock go then). The destructor kills a child still running and reaps it.
class PipedChild {
 public:
  /// Launches `program` with `args` and `environment` (added to this
  /// process's). Throws Poco::Exception when it cannot be started.
  PipedChild(const std::string& program, const std::vector<std::string>& args,
             const Poco::Process::Env& environment)
      : handle_(Poco::Process::launch(program, args, &in_, &out_, &err_, environment)) {}

  ~PipedChild() {
    if (!exitCode_) {
      try {
        Poco::Process::kill(handle_);
      } catch (const Poco::Exception&) {
        // Already gone; it is reaped below.
      }
      handle_.wait();
    }
  }
  PipedChild(const PipedChild&) = delete;
  PipedChild& operator=(const PipedChild&) = delete;

  Poco::ProcessHandle::PID pid() const { return handle_.id(); }

  /// The next line of stdout (without its newline), waiting at most
  /// `timeout`; false on timeout or at the end of the output.
  bool readOutLine(std::string& line, std::chrono::milliseconds timeout) {
    return readLine(out_, outPending_, line, timeout);
  }
  /// The same for stderr. Every line read from it is kept in err().
  bool readErrLine(std::string& line, std::chrono::milliseconds timeout) {
    const bool read = readLine(err_, errPending_, line, timeout);
    if (read) errSeen_ += line + "\n";
    return read;
  }
  /// Reads stderr until a line contains `text`, at most `timeout`; true when
  /// one did.
  bool awaitErr(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string line;
    while (readErrLine(line, std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now()))) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  /// The stderr lines read so far.
  const std::string& err() const { return errSeen_; }

  /// Closes the child's stdin.
  void closeInput() { in_.close(Poco::Pipe::CLOSE_WRITE); }

  /// Waits at most `timeout` for the child to end (pidfd, no polling loop);
  /// its exit status (256 + signal when killed) or nullopt while it runs.
  std::optional<int> waitForExit(std::chrono::milliseconds timeout) {
    if (exitCode_) return exitCode_;
    // glibc 2.36's <sys/pidfd.h> lacks extern "C": the system call directly.
    const int pidFd = static_cast<int>(::syscall(SYS_pidfd_open, handle_.id(), 0));
    if (pidFd < 0) return std::nullopt;
    pollfd exited{pidFd, POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&exited, 1, static_cast<int>(timeout.count()));
    } while (ready < 0 && errno == EINTR);
    ::close(pidFd);
    if (ready <= 0) return std::nullopt;
    exitCode_ = handle_.wait();
    return exitCode_;
  }

 private:
  static bool readLine(Poco::Pipe& pipe, std::string& pending, std::string& line,
                       std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const std::size_t end = pending.find('\n');
      if (end != std::string::npos) {
        line = pending.substr(0, end);
        pending.erase(0, end + 1);
        return true;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd readable{pipe.readHandle(), POLLIN, 0};
      const int ready =
          ::poll(&readable, 1, static_cast<int>(std::max<long long>(left.count(), 0)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;
      char buffer[512];
      const ssize_t count = ::read(pipe.readHandle(), buffer, sizeof buffer);
      if (count <= 0) return false;
      pending.append(buffer, static_cast<std::size_t>(count));
    }
  }

  Poco::Pipe in_;
  Poco::Pipe out_;
  Poco::Pipe err_;
  Poco::ProcessHandle handle_;
  std::string outPending_;
  std::string errPending_;
  std::string errSeen_;
  std::optional<int> exitCode_;
};

}  // namespace antidrift::test
