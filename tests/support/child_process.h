/// @file child_process.h
/// Real programs as children of a test (Poco::Process): one run to completion
/// with stdout and stderr drained concurrently (docs/CONVENTIONS.md "Pitfalls": never
/// read one pipe to the end while the other can fill), and antidriftd running
/// on an ephemeral port until the test stops it with SIGINT.
/// Nothing here is thread-safe: each object belongs to the test thread that made it.
#pragma once

#include <cstdint>
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

}  // namespace antidrift::test
