/// @file xvfb_session.h
/// A real X display for tests (docs/DESIGN.md §3, docs/TECH-NOTES.md §6): Xvfb on a display number
/// it picks itself (-displayfd), optionally openbox as the EWMH window manager, antidrift_testwin
/// windows, xdotool, and the child-process handling they all share (Poco::Process, pipes,
/// deadlines, no sleeps). Used by tests/unit/x11 and tests/e2e.
///
/// Include it after every other header: it includes Xlib, whose macros (None, Bool, Status,
/// True, False) clash with names in GoogleTest and Poco headers.
///
/// Needs TESTWIN_PATH (the antidrift_testwin binary) defined by the including target.
/// Nothing here is thread-safe: each object belongs to the test thread that made it.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// Xlib last: its macros (None, Bool, Status, True, False) clash with GoogleTest's names.
#include <X11/Xatom.h>
#include <X11/Xlib.h>

#ifndef TESTWIN_PATH
#error "TESTWIN_PATH must name the antidrift_testwin binary"
#endif

namespace antidrift::test {

/// How long any single external step may take before a test gives up (loaded machine).
constexpr std::chrono::milliseconds kDeadline = std::chrono::seconds(10);

/// Milliseconds left until `deadline`, never negative (a poll(2) timeout).
inline int remainingMs(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<long long>(left.count(), 0));
}

/// Arguments that run `command` under sh, which sends it SIGTERM and waits for it as soon as
/// its own stdin (a pipe from this test) closes — when the test closes it, or when the test
/// process dies in any way. So no child outlives a crashed or killed test. sh exits with the
/// command's status (128 + signal number when a signal ended it).
inline std::vector<std::string> tiedToOurStdin(const std::string& command,
                                               std::vector<std::string> arguments) {
  std::vector<std::string> wrapped{
      "-c", "\"$@\" </dev/null & child=$!; read -r line; kill -TERM $child; wait $child", "sh",
      command};
  wrapped.insert(wrapped.end(), arguments.begin(), arguments.end());
  return wrapped;
}

/// A child process with optional stdin/stdout pipes (stderr is the test's); stopped and
/// reaped on destruction. A child that leads its own process group (launched through
/// `setsid`) is killed with its whole group.
class Child {
 public:
  /// Launches `command` (PATH search) with DISPLAY set to `display` unless that is empty.
  /// A missing executable is no exception: the child exits 72 (docs/TECH-NOTES.md §3.1).
  Child(const std::string& command, const std::vector<std::string>& arguments,
        const std::string& display, bool withStdin, bool withStdout)
      : withStdin_(withStdin),
        handle_(launch(command, arguments, display, withStdin, withStdout)) {}

  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  /// The child's process id.
  int id() const { return handle_.id(); }

  /// Reads one line of stdout, waiting at most `timeout`; false on timeout or end of output.
  bool readLine(std::string& line, std::chrono::milliseconds timeout) {
    const std::chrono::steady_clock::time_point deadline =
        std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const std::size_t end = pending_.find('\n');
      if (end != std::string::npos) {
        line = pending_.substr(0, end);
        pending_.erase(0, end + 1);
        return true;
      }
      pollfd descriptor{out_.readHandle(), POLLIN, 0};
      const int ready = poll(&descriptor, 1, remainingMs(deadline));
      if (ready < 0 && errno == EINTR) {
        continue;
      }
      if (ready <= 0) {
        return false;
      }
      char buffer[256];
      const ssize_t count = read(out_.readHandle(), buffer, sizeof buffer);
      if (count <= 0) {
        return false;
      }
      pending_.append(buffer, static_cast<std::size_t>(count));
    }
  }

  /// Writes `line` and a newline to the child's stdin.
  void writeLine(const std::string& line) {
    Poco::PipeOutputStream stream(in_);
    stream << line << '\n';
    stream.flush();
  }

  /// Waits at most `timeout` for the child to end (pidfd, no polling); its status or nullopt.
  std::optional<int> waitForExit(std::chrono::milliseconds timeout) {
    if (exitStatus_) {
      return exitStatus_;
    }
    // glibc 2.36's <sys/pidfd.h> lacks extern "C", so call the system call directly.
    const int pidDescriptor = static_cast<int>(syscall(SYS_pidfd_open, handle_.id(), 0));
    if (pidDescriptor < 0) {
      return std::nullopt;
    }
    pollfd descriptor{pidDescriptor, POLLIN, 0};
    int ready = 0;
    do {
      ready = poll(&descriptor, 1, static_cast<int>(timeout.count()));
    } while (ready < 0 && errno == EINTR);
    close(pidDescriptor);
    if (ready <= 0) {
      return std::nullopt;
    }
    exitStatus_ = handle_.wait();
    return exitStatus_;
  }

  /// Closes the child's stdin (antidrift_testwin and tiedToOurStdin() children end on that)
  /// and waits at most `timeout`; the exit status, or nullopt if it is still running (it is
  /// then left running; stop() or the destructor kills it).
  std::optional<int> closeInputAndWait(std::chrono::milliseconds timeout) {
    in_.close(Poco::Pipe::CLOSE_WRITE);
    return waitForExit(timeout);
  }

  /// Closes the child's stdin and waits for it; SIGKILL if it is still running after the
  /// deadline, or at once when it has no stdin. Reaps it.
  void stop() {
    if (exitStatus_) {
      return;
    }
    if (withStdin_ && closeInputAndWait(kDeadline)) {
      return;
    }
    kill();
  }

  /// SIGKILL (to the whole group when the child leads one) and reap; does nothing once the
  /// child was reaped.
  void kill() {
    if (exitStatus_) {
      return;
    }
    const pid_t pid = static_cast<pid_t>(handle_.id());
    ::kill(getpgid(pid) == pid ? -pid : pid, SIGKILL);
    exitStatus_ = handle_.wait();
  }

 private:
  Poco::ProcessHandle launch(const std::string& command, const std::vector<std::string>& arguments,
                             const std::string& display, bool withStdin, bool withStdout) {
    Poco::Process::Env environment;
    if (!display.empty()) {
      environment["DISPLAY"] = display;
    }
    return Poco::Process::launch(command, arguments, std::string(), withStdin ? &in_ : nullptr,
                                 withStdout ? &out_ : nullptr, nullptr, environment);
  }

  bool withStdin_;
  Poco::Pipe in_;
  Poco::Pipe out_;
  Poco::ProcessHandle handle_;
  std::string pending_;
  std::optional<int> exitStatus_;
};

/// Runs a short command to completion; "" on exit status 0, else what went wrong.
inline std::string runCommand(const std::string& command, const std::vector<std::string>& arguments,
                              const std::string& display) {
  Child child(command, arguments, display, false, false);
  const std::optional<int> status = child.waitForExit(kDeadline);
  if (!status) {
    return command + " did not finish within the deadline";
  }
  if (*status != 0) {
    return command + " exited with status " + std::to_string(*status);
  }
  return "";
}

/// An Xvfb display, optionally with openbox as the EWMH window manager. Both are stopped
/// (SIGTERM, so Xvfb removes its socket and lock file) on destruction or when the test
/// process dies.
class XServer {
 public:
  XServer() = default;
  XServer(const XServer&) = delete;
  XServer& operator=(const XServer&) = delete;

  /// Starts the server; "" on success, else why not (the tests fail with it).
  std::string start(bool withWindowManager) {
    for (const char* tool : {"Xvfb", "openbox", "xdotool"}) {
      Poco::Path found;
      if (!Poco::Path::find(Poco::Environment::get("PATH", ""), tool, found)) {
        return std::string(tool) +
               " is not installed; the X11 tests need Xvfb, openbox and xdotool "
               "(Debian: xvfb openbox xdotool)";
      }
    }
    // -displayfd 1: Xvfb picks a free display number and writes it to stdout once it
    // accepts connections, so no number is guessed and nothing races other servers.
    xvfb_ = std::make_unique<Child>("sh",
                                    tiedToOurStdin("Xvfb", {"-displayfd", "1", "-nolisten", "tcp",
                                                            "-screen", "0", "800x600x24"}),
                                    "", true, true);
    std::string number;
    if (!xvfb_->readLine(number, kDeadline) || number.empty()) {
      return "Xvfb did not report a display number";
    }
    name_ = ":" + number;
    control_ = XOpenDisplay(name_.c_str());
    if (control_ == nullptr) {
      return "cannot open the new display " + name_;
    }
    if (!withWindowManager) {
      XCloseDisplay(control_);  // not needed; a test may kill this server
      control_ = nullptr;
      return "";
    }
    // openbox sets _NET_SUPPORTING_WM_CHECK early in its start-up, before it listens for
    // MapRequest: a window mapped in that gap is never managed (seen here). Its --startup
    // command runs once it manages windows, so wait for that command's output instead.
    openbox_ = std::make_unique<Child>(
        "sh", tiedToOurStdin("openbox", {"--sm-disable", "--startup", "echo openbox-ready"}), name_,
        true, true);
    std::string line;
    while (line != "openbox-ready") {
      if (!openbox_->readLine(line, kDeadline)) {
        return "openbox did not finish starting on " + name_;
      }
    }
    return "";
  }

  ~XServer() {
    if (control_ != nullptr && !xvfbStopped_) {
      XCloseDisplay(control_);
    }
    // SIGTERM (see tiedToOurStdin) lets Xvfb remove its socket and lock file.
    openbox_.reset();
    xvfb_.reset();
  }

  /// The display name, e.g. ":3"; empty before a successful start().
  const std::string& name() const { return name_; }

  /// Shuts the X server down (SIGTERM; the connection of every client breaks).
  void stopServer() {
    xvfbStopped_ = true;
    xvfb_->stop();
  }

  /// Writes `window` into the root's _NET_ACTIVE_WINDOW as if a window manager had.
  /// Uses the test's own Display, opened before any source thread started; needs a server
  /// started with a window manager.
  void setActiveWindowProperty(Window window) {
    const Atom netActiveWindow = XInternAtom(control_, "_NET_ACTIVE_WINDOW", False);
    const unsigned long value = window;
    XChangeProperty(control_, DefaultRootWindow(control_), netActiveWindow, XA_WINDOW, 32,
                    PropModeReplace, reinterpret_cast<const unsigned char*>(&value), 1);
    XSync(control_, False);
  }

 private:
  std::unique_ptr<Child> xvfb_;
  std::unique_ptr<Child> openbox_;
  std::string name_;
  Display* control_ = nullptr;
  bool xvfbStopped_ = false;
};

/// One antidrift_testwin window; closing its stdin (destruction) closes it.
struct TestWindow {
  std::unique_ptr<Child> process;
  std::string id;  ///< decimal window id, as printed by the program
};

/// Opens a test window on `display` with antidrift_testwin `arguments` (--class, --title,
/// …); `id` stays empty when it did not come up within kDeadline.
inline TestWindow openWindow(const std::string& display,
                             const std::vector<std::string>& arguments) {
  TestWindow window;
  window.process = std::make_unique<Child>(TESTWIN_PATH, arguments, display, true, true);
  if (!window.process->readLine(window.id, kDeadline)) {
    window.id.clear();
  }
  return window;
}

/// GoogleTest fixture base for a suite that shares one Xvfb display with openbox: the server
/// starts in SetUpTestSuite and stops in TearDownTestSuite; SetUp fails each test with the
/// start error when it did not come up. `Base` is the fixture extended (a ::testing::Test).
/// Runs on GoogleTest's thread only.
template <typename Base = ::testing::Test>
class SharedXServerTest : public Base {
 protected:
  static void SetUpTestSuite() {
    server_ = std::make_unique<XServer>();
    setupError_ = server_->start(true);
  }

  static void TearDownTestSuite() {
    server_.reset();
    setupError_.clear();
  }

  void SetUp() override {
    Base::SetUp();
    ASSERT_EQ(setupError_, "") << "X test server setup failed";
  }

  /// The shared display's name (":N").
  static const std::string& display() { return server_->name(); }

  /// Opens a test window with WM_CLASS `className`, title `title` and `extra` antidrift_testwin
  /// arguments; its `id` is empty when it did not come up within kDeadline.
  static TestWindow open(const std::string& className, const std::string& title,
                         std::vector<std::string> extra = {}) {
    std::vector<std::string> arguments{"--class", className, "--title", title};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return openWindow(display(), arguments);
  }

  /// Activates `window` with `xdotool windowactivate --sync`; "" on success, else the error.
  static std::string activate(const TestWindow& window) {
    return runCommand("xdotool", {"windowactivate", "--sync", window.id}, display());
  }

  static inline std::unique_ptr<XServer> server_;
  static inline std::string setupError_;
};

}  // namespace antidrift::test
