/// @file x11_source_test.cpp
/// The X11 evidence source against a real X server (docs/DESIGN.md §3, docs/TECH-NOTES.md §6): Xvfb
/// with openbox as the EWMH window manager, real antidrift_testwin windows, real xdotool. Missing
/// Xvfb, openbox or xdotool fails every test with a message; nothing is skipped.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "x11_source.h"

// The shared Xvfb/openbox fixture; last, as it includes Xlib (macros clash with GoogleTest).
#include "support/xvfb_session.h"

namespace antidrift {
namespace {

using namespace std::chrono_literals;
using Milliseconds = std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;
using namespace test;  // the shared fixture: Child, XServer, TestWindow, kDeadline, ...

/// Collects what the source reports and lets the test wait for it with a deadline.
class Recorder {
 public:
  struct Report {
    std::string app;
    std::string title;
    SteadyClock::time_point at;
  };

  X11SourceCallbacks callbacks() {
    X11SourceCallbacks result;
    result.onWindow = [this](const std::string& app, const std::string& title) {
      record([&] { windows_.push_back({app, title, SteadyClock::now()}); });
      if (onWindowHook) {
        onWindowHook();
      }
    };
    result.onAway = [this](bool away) { record([&] { aways_.push_back(away); }); };
    result.onFailed = [this](const std::string& why) { record([&] { failures_.push_back(why); }); };
    return result;
  }

  /// Waits until the latest window report is (app, title).
  bool waitForWindow(const std::string& app, const std::string& title,
                     Milliseconds timeout = kDeadline) {
    return waitUntil(
        [&] {
          return !windows_.empty() && windows_.back().app == app && windows_.back().title == title;
        },
        timeout);
  }

  /// Waits until `predicate` (called under the lock) holds.
  bool waitUntil(const std::function<bool()>& predicate, Milliseconds timeout = kDeadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, predicate);
  }

  std::vector<Report> windows() {
    std::lock_guard<std::mutex> lock(mutex_);
    return windows_;
  }
  std::vector<bool> aways() {
    std::lock_guard<std::mutex> lock(mutex_);
    return aways_;
  }
  std::vector<std::string> failures() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failures_;
  }
  /// Unguarded accessors for use inside waitUntil predicates only.
  const std::vector<Report>& windowsLocked() const { return windows_; }
  const std::vector<bool>& awaysLocked() const { return aways_; }
  const std::vector<std::string>& failuresLocked() const { return failures_; }

  /// Runs on the source thread after each window report (set before start()).
  std::function<void()> onWindowHook;

 private:
  template <typename Mutation>
  void record(Mutation mutation) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      mutation();
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Report> windows_;
  std::vector<bool> aways_;
  std::vector<std::string> failures_;
};

constexpr std::int64_t kNoHeartbeat = 3600;
constexpr std::int64_t kNeverIdle = 3600;

/// Context switches (voluntary + involuntary: its wake-ups) of this process's thread
/// named `name`, from /proc/self/task; nullopt when no thread has that name.
std::optional<std::uint64_t> wakeupsOfThread(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string threadName;
    if (!std::getline(comm, threadName) || threadName != name) {
      continue;
    }
    std::ifstream status(task.path() / "status");
    std::string line;
    std::uint64_t switches = 0;
    while (std::getline(status, line)) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0 ||
          line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
        switches += std::stoull(line.substr(line.find(':') + 1));
      }
    }
    return switches;
  }
  return std::nullopt;
}

class X11SourceTest : public SharedXServerTest<> {
 protected:
  enum class Idle { Default, ScreenSaverPolling };

  std::unique_ptr<X11Source> startSource(std::int64_t heartbeatSecs, std::int64_t idleAfterSecs,
                                         Idle idle = Idle::Default) {
    return startSourceFor(recorder_, heartbeatSecs, idleAfterSecs, idle);
  }

  std::unique_ptr<X11Source> startSourceFor(Recorder& recorder, std::int64_t heartbeatSecs,
                                            std::int64_t idleAfterSecs, Idle idle) {
    auto source =
        std::make_unique<X11Source>(display(), heartbeatSecs, idleAfterSecs, recorder.callbacks());
    if (idle == Idle::ScreenSaverPolling) {
      source->useScreenSaverPollingForTest();
    }
    std::string error;
    EXPECT_TRUE(source->start(error)) << error;
    return source;
  }

  /// Input on the display: the X server's idle time starts again from 0. Each call moves to
  /// a new place (a move to where the pointer already is may send no input).
  void moveTheMouse() {
    static int step = 0;
    ++step;
    ASSERT_EQ(runCommand("xdotool",
                         {"mousemove", "--sync", std::to_string(10 + 7 * step),
                          std::to_string(20 + 11 * step)},
                         display()),
              "");
  }

  static bool lastIs(const std::vector<bool>& aways, bool away) {
    return !aways.empty() && aways.back() == away;
  }

  Recorder recorder_;
};

TEST_F(X11SourceTest, ReportsTheInitialWindowThenEachActivatedWindowByClass) {
  TestWindow editor = open("EditorClass", "notes.txt - Editor", {"--instance", "editor-inst"});
  TestWindow browser = open("BrowserClass", "News - Browser");
  ASSERT_FALSE(editor.id.empty());
  ASSERT_FALSE(browser.id.empty());
  ASSERT_EQ(activate(editor), "");

  auto source = startSource(kNoHeartbeat, kNeverIdle);
  // The class (second WM_CLASS string), not the instance.
  EXPECT_TRUE(recorder_.waitForWindow("EditorClass", "notes.txt - Editor"));
  EXPECT_EQ(recorder_.windows().front().app, "EditorClass");

  ASSERT_EQ(activate(browser), "");
  EXPECT_TRUE(recorder_.waitForWindow("BrowserClass", "News - Browser"));
  ASSERT_EQ(activate(editor), "");
  EXPECT_TRUE(recorder_.waitForWindow("EditorClass", "notes.txt - Editor"));
  EXPECT_TRUE(recorder_.failures().empty());
}

TEST_F(X11SourceTest, RetitlingTheActiveWindowReportsTheNewTitle) {
  TestWindow terminal = open("TermClass", "~/src");
  ASSERT_FALSE(terminal.id.empty());
  ASSERT_EQ(activate(terminal), "");
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  ASSERT_TRUE(recorder_.waitForWindow("TermClass", "~/src"));

  terminal.process->writeLine("make -j2 - ~/src");
  EXPECT_TRUE(recorder_.waitForWindow("TermClass", "make -j2 - ~/src"));
}

TEST_F(X11SourceTest, Utf8TitlesComeThroughExactly) {
  const std::string title =
      "A\xC3\xB1o 2020 \xE2\x80\x94 \xE4\xB8\xAD\xE6\x96\x87";  // Año 2020 — 中文
  TestWindow window = open("Utf8Class", title);
  ASSERT_FALSE(window.id.empty());
  ASSERT_EQ(activate(window), "");
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  EXPECT_TRUE(recorder_.waitForWindow("Utf8Class", title));

  const std::string retitle =
      "Z\xC3\xBCrich \xE2\x98\x95 \xE6\x9D\xB1\xE4\xBA\xAC";  // Zürich ☕ 東京
  window.process->writeLine(retitle);
  EXPECT_TRUE(recorder_.waitForWindow("Utf8Class", retitle));
}

TEST_F(X11SourceTest, FallsBackToALatin1WmNameConvertedToUtf8) {
  const std::string title = "Caf\xC3\xA9 cr\xC3\xA8me";  // Café crème, stored as Latin-1 STRING
  TestWindow window = open("LegacyClass", title, {"--legacy-title"});
  ASSERT_FALSE(window.id.empty());
  ASSERT_EQ(activate(window), "");
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  EXPECT_TRUE(recorder_.waitForWindow("LegacyClass", title));

  window.process->writeLine("na\xC3\xAFve");  // naïve: a WM_NAME-only change is seen too
  EXPECT_TRUE(recorder_.waitForWindow("LegacyClass", "na\xC3\xAFve"));
}

TEST_F(X11SourceTest, AnActiveWindowThatVanishesIsSkippedAndTheSourceKeepsWorking) {
  TestWindow doomed = open("DoomedClass", "about to go");
  TestWindow survivor = open("SurvivorClass", "still here");
  ASSERT_FALSE(doomed.id.empty());
  ASSERT_FALSE(survivor.id.empty());
  ASSERT_EQ(activate(doomed), "");
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  ASSERT_TRUE(recorder_.waitForWindow("DoomedClass", "about to go"));

  doomed.process->kill();  // its window is destroyed while it is the active one
  ASSERT_EQ(activate(survivor), "");
  EXPECT_TRUE(recorder_.waitForWindow("SurvivorClass", "still here"));
  EXPECT_TRUE(recorder_.failures().empty());
}

TEST_F(X11SourceTest, AnActiveWindowIdThatDoesNotExistIsSkippedWithoutAnyReport) {
  TestWindow first = open("FirstClass", "first");
  TestWindow second = open("SecondClass", "second");
  ASSERT_FALSE(first.id.empty());
  ASSERT_FALSE(second.id.empty());
  ASSERT_EQ(activate(first), "");
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  ASSERT_TRUE(recorder_.waitForWindow("FirstClass", "first"));
  const std::size_t before = recorder_.windows().size();

  // BadWindow on every query of this id; Xlib's default handler would exit the process.
  server_->setActiveWindowProperty(0x3ffffff);
  ASSERT_EQ(activate(second), "");
  ASSERT_TRUE(recorder_.waitForWindow("SecondClass", "second"));
  const std::vector<Recorder::Report> reports = recorder_.windows();
  for (std::size_t index = before; index < reports.size(); ++index) {
    EXPECT_EQ(reports[index].app, "SecondClass") << "report " << index;
  }
  EXPECT_TRUE(recorder_.failures().empty());
}

TEST_F(X11SourceTest, HeartbeatReemitsTheSameWindow) {
  TestWindow window = open("HeartClass", "steady");
  ASSERT_FALSE(window.id.empty());
  ASSERT_EQ(activate(window), "");
  auto source = startSource(1, kNeverIdle);
  ASSERT_TRUE(recorder_.waitForWindow("HeartClass", "steady"));

  // The one real-clock wait of this suite: the heartbeat is a real timer.
  ASSERT_TRUE(recorder_.waitUntil([&] { return recorder_.windowsLocked().size() >= 2; }, 5s));
  const std::vector<Recorder::Report> reports = recorder_.windows();
  EXPECT_EQ(reports[1].app, "HeartClass");
  EXPECT_EQ(reports[1].title, "steady");
  EXPECT_GE(reports[1].at - reports[0].at, 900ms);
}

TEST_F(X11SourceTest, WithTheHeartbeatOffOnlyChangesComeAndTurningItOnReemitsAtOnce) {
  TestWindow terminal = open("QuietClass", "steady");
  ASSERT_FALSE(terminal.id.empty());
  ASSERT_EQ(activate(terminal), "");
  auto source = std::make_unique<X11Source>(display(), 1, kNeverIdle, recorder_.callbacks());
  source->setHeartbeat(false);  // as the daemon does while no session is active
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(recorder_.waitForWindow("QuietClass", "steady"));  // the initial window either way

  // Nothing happens: no heartbeat (at 1 s it would come twice here) and the thread sleeps.
  const std::optional<std::uint64_t> before = wakeupsOfThread("ad-x11");
  ASSERT_TRUE(before.has_value()) << "the source's thread is named ad-x11";
  EXPECT_FALSE(recorder_.waitUntil([&] { return recorder_.windowsLocked().size() != 1; }, 2500ms));
  const std::optional<std::uint64_t> after = wakeupsOfThread("ad-x11");
  ASSERT_TRUE(after.has_value());
  // Each heartbeat costs about six context switches (three X round trips), so two would be
  // 12 or so; up to four leaves room for the start-up round trip (the idle counter's value)
  // that may still be under way when the initial window is reported.
  EXPECT_LT(*after - *before, 5u);

  // A change still comes at once.
  terminal.process->writeLine("retitled");
  ASSERT_TRUE(recorder_.waitForWindow("QuietClass", "retitled"));
  ASSERT_EQ(recorder_.windows().size(), 2u);

  // On: the window in front at once (well before a 1 s heartbeat could), then every second.
  const SteadyClock::time_point on = SteadyClock::now();
  source->setHeartbeat(true);
  ASSERT_TRUE(recorder_.waitUntil([&] { return recorder_.windowsLocked().size() == 3; }, 5s));
  EXPECT_LT(SteadyClock::now() - on, 900ms);
  ASSERT_TRUE(recorder_.waitUntil([&] { return recorder_.windowsLocked().size() == 4; }, 5s));
  const std::vector<Recorder::Report> reports = recorder_.windows();
  EXPECT_EQ(reports[3].title, "retitled");
  EXPECT_GE(reports[3].at - reports[2].at, 900ms);

  source->setHeartbeat(true);  // no change: nothing extra
  source->stop();
  source->setHeartbeat(false);  // after stop: a no-op, no write to a closed descriptor
}

TEST_F(X11SourceTest, UsesSyncAlarmsForIdleTimeWhenTheServerHasThem) {
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  EXPECT_EQ(source->idleDetection(), X11IdleDetection::SyncAlarms);
  auto withoutIdle = startSource(kNoHeartbeat, 0);
  EXPECT_EQ(withoutIdle->idleDetection(), X11IdleDetection::Off);
  EXPECT_EQ(toString(X11IdleDetection::SyncAlarms), "sync alarms");
}

TEST_F(X11SourceTest, AlarmsReportAwayAtTheThresholdAndBackAtTheNextInputWithoutPolling) {
  moveTheMouse();
  const SteadyClock::time_point input = SteadyClock::now();
  auto source = startSource(kNoHeartbeat, 1);
  ASSERT_EQ(source->idleDetection(), X11IdleDetection::SyncAlarms);

  // Nobody types on Xvfb: one second after the input the IDLETIME alarm says away.
  ASSERT_TRUE(recorder_.waitUntil([&] { return lastIs(recorder_.awaysLocked(), true); }, 5s));
  EXPECT_GE(SteadyClock::now() - input, 900ms);
  EXPECT_EQ(recorder_.aways(), std::vector<bool>{true});

  // Someone who is already away when a source starts is reported away at once.
  Recorder late;
  auto lateSource = startSourceFor(late, kNoHeartbeat, 1, Idle::Default);
  EXPECT_TRUE(late.waitUntil([&] { return lastIs(late.awaysLocked(), true); }));
  lateSource.reset();

  // While away and nothing happens, the source's thread sleeps: no re-check every second
  // as with XScreenSaver (which would wake it at least twice here), and no report.
  const std::optional<std::uint64_t> before = wakeupsOfThread("ad-x11");
  ASSERT_TRUE(before.has_value()) << "the source's thread is named ad-x11";
  EXPECT_FALSE(recorder_.waitUntil([&] { return recorder_.awaysLocked().size() != 1; }, 2500ms));
  const std::optional<std::uint64_t> after = wakeupsOfThread("ad-x11");
  ASSERT_TRUE(after.has_value());
  EXPECT_LT(*after - *before, 2u);

  // Input resets the counter below the threshold: the second alarm says back, at once.
  moveTheMouse();
  const SteadyClock::time_point back = SteadyClock::now();
  ASSERT_TRUE(recorder_.waitUntil([&] { return lastIs(recorder_.awaysLocked(), false); }, 5s));
  EXPECT_LT(SteadyClock::now() - back, 1s);

  // And the alarms stay armed: away again after another second without input.
  ASSERT_TRUE(recorder_.waitUntil([&] { return recorder_.awaysLocked().size() == 3; }, 5s));
  EXPECT_EQ(recorder_.aways(), (std::vector<bool>{true, false, true}));
}

TEST_F(X11SourceTest, FallsBackToXScreenSaverPollingForAwayAndBack) {
  // A 3 s threshold, well above the fallback's 1 s re-check while away, so
  // the first re-check after the input still sees a short idle time even on
  // a loaded machine (with a 1 s threshold a late re-check saw idle ≥ 1 s
  // again and "back" was never reported).
  auto source = startSource(kNoHeartbeat, 3, Idle::ScreenSaverPolling);
  EXPECT_EQ(source->idleDetection(), X11IdleDetection::ScreenSaverPolling);
  // Nobody types on Xvfb: after three seconds of idle time the person is away.
  ASSERT_TRUE(recorder_.waitUntil([&] { return lastIs(recorder_.awaysLocked(), true); }, 8s));
  moveTheMouse();
  EXPECT_TRUE(recorder_.waitUntil([&] { return lastIs(recorder_.awaysLocked(), false); }, 5s));
}

TEST_F(X11SourceTest, StopReturnsPromptlyWhileTheThreadWaits) {
  auto source = startSource(kNoHeartbeat, 0);  // no heartbeat, no idle check: poll waits forever
  const SteadyClock::time_point before = SteadyClock::now();
  source->stop();
  EXPECT_LT(SteadyClock::now() - before, 1s);
  source->stop();  // idempotent
}

TEST_F(X11SourceTest, StopFromACallbackDoesNotDeadlock) {
  TestWindow window = open("StopClass", "stop me");
  ASSERT_FALSE(window.id.empty());
  ASSERT_EQ(activate(window), "");
  X11Source* raw = nullptr;
  recorder_.onWindowHook = [&raw] { raw->stop(); };
  auto source =
      std::make_unique<X11Source>(display(), kNoHeartbeat, kNeverIdle, recorder_.callbacks());
  raw = source.get();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(recorder_.waitForWindow("StopClass", "stop me"));
  const SteadyClock::time_point before = SteadyClock::now();
  source.reset();  // joins the thread that stopped itself
  EXPECT_LT(SteadyClock::now() - before, 1s);
}

TEST_F(X11SourceTest, StartTwiceIsRefused) {
  auto source = startSource(kNoHeartbeat, kNeverIdle);
  std::string error;
  EXPECT_FALSE(source->start(error));
  EXPECT_EQ(error, "the X11 source was already started");
}

TEST(X11SourceStart, FailsWithAMessageForAnUnreachableDisplay) {
  X11Source source(":59999", 10, 180, {});
  std::string error;
  EXPECT_FALSE(source.start(error));
  EXPECT_EQ(error, "cannot open display :59999");
  source.stop();
}

TEST(X11SourceStart, FailsWithNoDisplayWhenNoneIsNamedOrSet) {
  const char* saved = std::getenv("DISPLAY");
  const std::optional<std::string> previous =
      saved != nullptr ? std::optional<std::string>(saved) : std::nullopt;
  unsetenv("DISPLAY");
  X11Source source("", 10, 180, {});
  std::string error;
  const bool started = source.start(error);
  if (previous) {
    setenv("DISPLAY", previous->c_str(), 1);
  }
  EXPECT_FALSE(started);
  EXPECT_EQ(error, "no DISPLAY");
}

/// Without a window manager there is no _NET_ACTIVE_WINDOW: the focus is read instead
/// (at the heartbeat), and a dying X server ends the source with onFailed, not the process.
TEST(X11SourceWithoutWindowManager, ReadsTheFocusAndReportsALostServer) {
  XServer server;
  ASSERT_EQ(server.start(false), "");
  TestWindow window =
      openWindow(server.name(), {"--class", "BareClass", "--title", "no window manager"});
  ASSERT_FALSE(window.id.empty());

  Recorder recorder;
  X11Source source(server.name(), 1, kNeverIdle, recorder.callbacks());
  std::string error;
  ASSERT_TRUE(source.start(error)) << error;
  ASSERT_EQ(runCommand("xdotool", {"windowfocus", "--sync", window.id}, server.name()), "");
  EXPECT_TRUE(recorder.waitForWindow("BareClass", "no window manager"));

  server.stopServer();
  ASSERT_TRUE(recorder.waitUntil([&] { return !recorder.failuresLocked().empty(); }));
  EXPECT_EQ(recorder.failures().front(), "lost the connection to X display " + server.name());
  const SteadyClock::time_point before = SteadyClock::now();
  source.stop();
  EXPECT_LT(SteadyClock::now() - before, 1s);
}

}  // namespace
}  // namespace antidrift
