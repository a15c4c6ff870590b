/// @file daemon_process.h
/// The real antidriftd binary as a child of an end-to-end test (docs/DESIGN.md §9, §10, §12):
/// started on an ephemeral port with its own store directory, stopped with SIGTERM, and always
/// cleaned up — even when the test fails or the test process dies.
///
/// It includes support/xvfb_session.h, which pulls in Xlib: include this header after every
/// other header.
///
/// Needs ANTIDRIFTD_PATH (the antidriftd binary) defined by the including target.
/// Nothing here is thread-safe: each object belongs to the test thread that made it.
#pragma once

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/xvfb_session.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif

namespace antidrift::test {

/// How to start antidriftd.
struct DaemonLaunch {
  std::string storeDir;    ///< -D store.dir; created by the daemon
  std::string configHome;  ///< XDG_CONFIG_HOME, so no user configuration file leaks in
  /// DISPLAY for the daemon: nullopt removes it from the environment, "" sets it empty.
  std::optional<std::string> display;
  /// --config FILE; "" = none. With a file, ai.backend and the rest come from it; without
  /// one the AI is off.
  std::string configFile;
  /// More variables for the daemon, "NAME=value" each (e.g. SWAYSOCK for the sway tests).
  std::vector<std::string> environment = {};
};

/// The environment and arguments that run antidriftd through env(1): DISPLAY, SWAYSOCK,
/// I3SOCK and ANTIDRIFT_AI_BACKEND removed first (Poco::Process can only add variables; the
/// test's own desktop session must not choose the evidence source), then set as `launch`
/// says; AI off (-D wins over the environment anyway) unless `launch.configFile` names a
/// config file, which then chooses the backend.
inline std::vector<std::string> daemonCommandLine(const DaemonLaunch& launch,
                                                  const std::vector<std::string>& arguments) {
  std::vector<std::string> line;
  for (const char* name : {"DISPLAY", "SWAYSOCK", "I3SOCK", "ANTIDRIFT_AI_BACKEND"}) {
    line.insert(line.end(), {"-u", name});
  }
  line.push_back("XDG_CONFIG_HOME=" + launch.configHome);
  if (launch.display) {
    line.push_back("DISPLAY=" + *launch.display);
  }
  line.insert(line.end(), launch.environment.begin(), launch.environment.end());
  line.push_back(ANTIDRIFTD_PATH);
  line.insert(line.end(), arguments.begin(), arguments.end());
  line.insert(line.end(), {"-D", "store.dir=" + launch.storeDir});
  if (launch.configFile.empty()) {
    line.insert(line.end(), {"-D", "ai.backend=none"});
  } else {
    line.insert(line.end(), {"--config", launch.configFile});
  }
  return line;
}

/// A running antidriftd serving on 127.0.0.1 at an ephemeral port (-D server.port=0).
///
/// It runs under `setsid sh` (tiedToOurStdin): closing our end of its stdin makes sh send it
/// SIGTERM and exit with its status, and a test process that dies closes that pipe too. If
/// it does not end, the destructor kills its whole process group.
class DaemonProcess {
 public:
  /// Starts the daemon and waits (kDeadline) for its "antidriftd listening on URL" line.
  /// Never throws for a daemon that fails: startError() says why.
  explicit DaemonProcess(const DaemonLaunch& launch) {
    std::vector<std::string> arguments{"sh"};
    const std::vector<std::string> tied =
        tiedToOurStdin("env", daemonCommandLine(launch, {"-D", "server.port=0"}));
    arguments.insert(arguments.end(), tied.begin(), tied.end());
    child_ = std::make_unique<Child>("setsid", arguments, "", true, true);
    std::string line;
    if (!child_->readLine(line, kDeadline)) {
      startError_ = "antidriftd printed no line on stdout within the deadline";
      return;
    }
    const std::string prefix = "antidriftd listening on ";
    if (line.rfind(prefix, 0) != 0) {
      startError_ = "unexpected first line from antidriftd: \"" + line + "\"";
      return;
    }
    try {
      const Poco::URI uri(line.substr(prefix.size()));
      if (uri.getHost() != "127.0.0.1" || uri.getPort() == 0) {
        startError_ = "antidriftd listens on an unexpected address: " + uri.toString();
        return;
      }
      port_ = uri.getPort();
    } catch (const Poco::Exception& error) {
      startError_ = "cannot parse \"" + line + "\": " + error.displayText();
    }
  }

  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  /// "" when the daemon is up and port() is valid; else why not.
  const std::string& startError() const { return startError_; }

  /// The TCP port on 127.0.0.1; 0 when the start failed.
  std::uint16_t port() const { return port_; }

  /// Sends SIGTERM and waits at most `timeout`; the daemon's exit status (128 + signal if a
  /// signal killed it), or nullopt if it is still running (the destructor then kills it).
  std::optional<int> terminate(std::chrono::milliseconds timeout) {
    return child_->closeInputAndWait(timeout);
  }

 private:
  std::unique_ptr<Child> child_;
  std::uint16_t port_ = 0;
  std::string startError_;
};

/// What a one-shot antidriftd run (e.g. --verify-audit) did.
struct DaemonRun {
  std::optional<int> status;  ///< exit status; nullopt if it did not end within kDeadline
  std::string output;         ///< everything on stdout
};

/// Runs antidriftd with `arguments` to completion (kDeadline, then killed) and collects its
/// stdout; stderr goes to the test's.
inline DaemonRun runDaemonToCompletion(const DaemonLaunch& launch,
                                       const std::vector<std::string>& arguments) {
  Child child("env", daemonCommandLine(launch, arguments), "", false, true);
  DaemonRun run;
  const std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::now() + kDeadline;
  std::string line;
  while (child.readLine(line, std::chrono::milliseconds(remainingMs(deadline)))) {
    run.output += line + "\n";
  }
  run.status = child.waitForExit(std::chrono::milliseconds(remainingMs(deadline)));
  return run;
}

}  // namespace antidrift::test
