// Do-not-disturb while a session runs (issue 17 item 3), against a real dunst
// on a private session bus (dbus-run-session) on an Xvfb display: the class on
// its own, and the antidriftd binary started, killed with SIGKILL and
// restarted. Nothing here reaches the developer's own bus: test_main points
// $DBUS_SESSION_BUS_ADDRESS at a dead address, and each test sets its private
// bus's address only while it runs.
#include "server/notify/do_not_disturb.h"
#include "server/state_delivery.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/File.h>
#include <Poco/Path.h>

#include "integration/http_test_support.h"
#include "server/notify/desktop_notifier.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
// Last: it includes Xlib (see its header).
#include "support/xvfb_session.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif
#ifndef STORE_LOCK_HOLDER_PATH
#error "STORE_LOCK_HOLDER_PATH must name the antidrift_store_lock_holder binary"
#endif

namespace antidrift::notify {
namespace {

using ::testing::HasSubstr;

constexpr std::chrono::milliseconds kWait = std::chrono::seconds(15);

TEST(DoNotDisturbBackends, EachServerMapsToItsSwitch) {
  EXPECT_EQ(dndBackendForServer("dunst"), "dunst");
  EXPECT_EQ(dndBackendForServer("mako"), "mako");
  EXPECT_EQ(dndBackendForServer("SwayNotificationCenter"), "swaync");
  EXPECT_EQ(dndBackendForServer("gnome-shell"), "gnome");
  EXPECT_EQ(dndBackendForServer("Xfce Notify Daemon"), "xfce");
  EXPECT_EQ(dndBackendForServer("Plasma"), "");
  EXPECT_EQ(dndBackendForServer(""), "");
  EXPECT_EQ(dndBackendNamed("kde"), std::nullopt);
  const std::optional<DndBackend> dunst = dndBackendNamed("dunst");
  ASSERT_TRUE(dunst);
  EXPECT_THAT(dunst->hold, ::testing::ElementsAre("dunstctl", "set-paused", "true"));
  EXPECT_TRUE(dunst->holdsOwnNotifications);
  EXPECT_FALSE(dndBackendNamed("mako")->holdsOwnNotifications);
}

TEST(DoNotDisturbBackends, NoBusAddressMeansNoServer) {
  // test_main's dead address: nothing answers, nothing is started.
  EXPECT_EQ(notificationServerName(), "");
  EXPECT_FALSE(notificationServerHasActions());
}

State withRuntime(RuntimeState runtime, std::uint64_t version) {
  State state;
  state.version = version;
  state.runtime = runtime;
  if (runtime != RuntimeState::Locked) {
    state.commitment = Commitment{};
    state.commitment->id = "session-1";
  }
  return state;
}

/// A private session bus with dunst owning org.freedesktop.Notifications on
/// an Xvfb display; the test process's DBUS_SESSION_BUS_ADDRESS points at it
/// while the object lives.
class PrivateDunst : public ::testing::Test {
 protected:
  void SetUp() override {
    Poco::Path found;
    for (const char* tool :
         {"dbus-run-session", "dbus-send", "gdbus", "dunst", "dunstctl", "notify-send"}) {
      ASSERT_TRUE(Poco::Path::find(Poco::Environment::get("PATH", ""), tool, found))
          << tool << " is missing: run scripts/deps.sh test";
    }
    Poco::File(store_).createDirectories();
    ASSERT_EQ(display_.start(false), "");
    // The inner shell ends when its stdin (a pipe from this test) closes, so
    // dbus-run-session stops the bus itself (see desktop_notifier_test.cpp).
    // gdbus wait returns once dunst owns the name; a dunstctl call before
    // that would start a second dunst by D-Bus activation.
    const std::string script =
        "dunst </dev/null >/dev/null 2>&1 & server=$!; "
        "gdbus wait --session --timeout 10 org.freedesktop.Notifications; "
        "echo \"$DBUS_SESSION_BUS_ADDRESS\"; read -r line; kill $server; wait";
    session_ = std::make_unique<test::Child>("dbus-run-session",
                                             std::vector<std::string>{"--", "sh", "-c", script},
                                             display_.name(), true, true);
    ASSERT_TRUE(session_->readLine(address_, test::kDeadline));
    ASSERT_EQ(address_.rfind("unix:", 0), 0u) << address_;
    saved_ = Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "");
    Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", address_);
  }
  void TearDown() override {
    Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", saved_);
    session_.reset();
  }

  /// dunstctl's answer, trimmed ("" when it failed).
  static std::string dunstctl(const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{"dunstctl"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::string out;
    if (runCommand(argv, std::chrono::seconds(5), &out) != 0) return "";
    out.erase(out.find_last_not_of(" \n") + 1);
    return out;
  }
  static std::string isPaused() { return dunstctl({"is-paused"}); }
  /// Asks until dunst answers `paused`, at most kWait; the last answer.
  static std::string awaitPaused(const std::string& paused) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    std::string answer = isPaused();
    while (answer != paused && std::chrono::steady_clock::now() < deadline) {
      answer = isPaused();
    }
    return answer;
  }
  /// Asks until dunst shows at least `count` notifications, at most kWait.
  static bool awaitDisplayed(int count) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      const std::string shown = dunstctl({"count", "displayed"});
      if (!shown.empty() && std::stoi(shown) >= count) return true;
    }
    return false;
  }
  static bool exists(const std::string& path) { return Poco::File(path).exists(); }
  /// Looks until `path` is gone (the daemon removes it right after the
  /// release command returned), at most kWait; true when gone.
  static bool awaitGone(const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (exists(path) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return !exists(path);
  }

  Poco::Process::Env daemonEnvironment() const {
    return {{"DBUS_SESSION_BUS_ADDRESS", address_},
            {"XDG_CONFIG_HOME", directory_.path() + "/config"},
            {"XDG_DATA_HOME", directory_.path() + "/data"}};
  }

  test::XServer display_;
  std::unique_ptr<test::Child> session_;
  std::string address_;
  std::string saved_;
  test::TempDirectory directory_;
  const std::string store_ = directory_.path() + "/store";
  const std::string record_ = store_ + "/dnd.state";
};

TEST_F(PrivateDunst, AutoFindsTheServerOnTheBusAndItsActions) {
  EXPECT_EQ(notificationServerName(), "dunst");
  EXPECT_EQ(dndBackendForServer(notificationServerName()), "dunst");
  EXPECT_TRUE(notificationServerHasActions());
}

TEST_F(PrivateDunst, PausedWhileActiveAndResumedAtTheEnd) {
  ASSERT_EQ(isPaused(), "false");
  DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
  // Through the daemon's one delivery point (StateDelivery, issue 15 item 3).
  StateDelivery delivery;
  delivery.addSink("do-not-disturb", [&dnd](const State& state) { dnd.onState(state); });
  delivery.deliver(withRuntime(RuntimeState::Planning, 1));
  ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));

  delivery.deliver(withRuntime(RuntimeState::Active, 2));
  ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
  EXPECT_EQ(isPaused(), "true");
  EXPECT_EQ(test::readWholeFile(record_), "dunst\n");
  // A State delivered late (older version) changes nothing.
  delivery.deliver(withRuntime(RuntimeState::Planning, 1));
  ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
  EXPECT_EQ(isPaused(), "true");

  delivery.deliver(withRuntime(RuntimeState::Review, 3));
  ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));
}

TEST_F(PrivateDunst, TheExitReleasesAHold) {
  {
    DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
    dnd.onState(withRuntime(RuntimeState::Active, 1));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    ASSERT_EQ(isPaused(), "true");
  }
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));
}

TEST_F(PrivateDunst, ACrashLeavesARecordThatTheNextStartReleases) {
  {
    DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
    dnd.onState(withRuntime(RuntimeState::Active, 1));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    dnd.abandonForTest();  // as a crash: no release
  }
  ASSERT_EQ(isPaused(), "true");
  ASSERT_TRUE(exists(record_));
  EXPECT_EQ(DoNotDisturb::releaseLeftover(store_), "dunst");
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));
  EXPECT_EQ(DoNotDisturb::releaseLeftover(store_), "");  // nothing left
}

TEST_F(PrivateDunst, ThePersonsOwnPauseIsLeftAsItWas) {
  ASSERT_EQ(dunstctl({"set-paused", "true"}), "");
  ASSERT_EQ(isPaused(), "true");
  {
    DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
    dnd.onState(withRuntime(RuntimeState::Active, 1));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    EXPECT_FALSE(exists(record_));
    dnd.onState(withRuntime(RuntimeState::Review, 2));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    EXPECT_EQ(isPaused(), "true");
    // They switched it off; the next session holds it (and lets it go) again.
    ASSERT_EQ(dunstctl({"set-paused", "false"}), "");
    dnd.onState(withRuntime(RuntimeState::Active, 3));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    EXPECT_EQ(isPaused(), "true");
    EXPECT_TRUE(exists(record_));
  }
  // The exit releases this run's own hold.
  EXPECT_EQ(isPaused(), "false");
}

TEST_F(PrivateDunst, AntiDriftsOwnDriftNotificationIsShownWhilePaused) {
  DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
  dnd.onState(withRuntime(RuntimeState::Active, 1));
  ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
  ASSERT_EQ(isPaused(), "true");
  // Another app's notification is held.
  ASSERT_EQ(runCommand({"notify-send", "-a", "chat", "--", "chat", "new message"},
                       std::chrono::seconds(5)),
            0);
  EXPECT_EQ(dunstctl({"count", "displayed"}), "0");

  DesktopNotifier::Options options;
  options.around = [&dnd](const std::function<void()>& send) { dnd.aroundOwnNotification(send); };
  options.waitForClose = true;
  DesktopNotifier notifier("notify-send", options);
  State drifting = withRuntime(RuntimeState::Active, 2);
  drifting.drift.status = drift::DriftStatus::Drifting;
  drifting.drift.reason = "YouTube is not the report";
  drifting.stats.driftEpisodes = 1;
  notifier.onState(drifting);
  // Shown while the session still runs: dunst displays it (the held one too:
  // dunst 1.9 has no pause levels), then the person closes both.
  ASSERT_TRUE(awaitDisplayed(2)) << "dunst did not show both";
  EXPECT_EQ(dunstctl({"close-all"}), "");
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  // Shown and closed: it is in dunst's history; the hold is back.
  EXPECT_THAT(dunstctl({"history"}), HasSubstr("AntiDrift: you drifted"));
  EXPECT_THAT(dunstctl({"history"}), HasSubstr("YouTube is not the report"));
  EXPECT_EQ(isPaused(), "true");
}

/// The daemon itself: Start pauses, kill -9 leaves it paused and recorded,
/// the restart releases the record (and holds again for the resumed session),
/// Abandon resumes, SIGINT during a session resumes, and a drift notification
/// is shown while paused.
TEST_F(PrivateDunst, TheDaemonHoldsReleasesAndRecoversFromSigkill) {
  const std::vector<std::string> args = {"-D", "server.port=0",
                                         "-D", "store.dir=" + store_,
                                         "-D", "evidence.x11=false",
                                         "-D", "evidence.source=none",
                                         "-D", "ai.backend=none",
                                         "-D", "drift.blocked_apps=steam",
                                         "-D", "server.www_dir=" + directory_.path() + "/www"};
  const Poco::Process::Env environment = daemonEnvironment();
  test::RequestOptions options;
  const auto post = [&options](std::uint16_t port, const std::string& path,
                               const std::string& body) {
    return test::sendRequest(port, "POST", path, body, options);
  };
  const std::string commitment =
      R"({"next_action":"Write","success_condition":"done","timebox_minutes":30})";
  {
    test::RunningDaemon daemon(ANTIDRIFTD_PATH, args, environment);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
    std::string token = test::readWholeFile(store_ + "/token");
    token.erase(token.find_last_not_of('\n') + 1);
    options.token = token;
    const auto state = test::sendRequest(daemon.port(), "GET", "/state").json();
    EXPECT_EQ(state->getObject("notify")->getValue<std::string>("do_not_disturb"), "dunst");
    EXPECT_TRUE(state->getObject("notify")->getValue<bool>("desktop"));
    EXPECT_EQ(isPaused(), "false");
    ASSERT_EQ(post(daemon.port(), "/planning", "{}").status, 200);
    ASSERT_EQ(post(daemon.port(), "/commitment", commitment).status, 200);
    EXPECT_EQ(awaitPaused("true"), "true");
    EXPECT_TRUE(exists(record_));

    // A drift: the daemon's own notification is shown although dunst is paused.
    ASSERT_EQ(post(daemon.port(), "/evidence/window", R"({"app":"steam","title":"Steam"})").status,
              202);
    ASSERT_TRUE(awaitDisplayed(1)) << "the drift notification was not shown";
    EXPECT_EQ(dunstctl({"close-all"}), "");
    EXPECT_EQ(awaitPaused("true"), "true");
    EXPECT_THAT(dunstctl({"history"}), HasSubstr("AntiDrift: you drifted"));

    ASSERT_EQ(::kill(daemon.pid(), SIGKILL), 0);
    EXPECT_EQ(daemon.waitForExit(), 256 + SIGKILL);
  }
  // The crash left the desktop paused, and said so in the store.
  EXPECT_EQ(isPaused(), "true");
  EXPECT_EQ(test::readWholeFile(record_), "dunst\n");
  {
    test::RunningDaemon daemon(ANTIDRIFTD_PATH, args, environment);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
    // The session resumed, so it is held again; Abandon releases it.
    EXPECT_EQ(
        test::sendRequest(daemon.port(), "GET", "/state").json()->getValue<std::string>("runtime"),
        "active");
    EXPECT_EQ(awaitPaused("true"), "true");
    ASSERT_EQ(post(daemon.port(), "/abandon", "{}").status, 200);
    EXPECT_EQ(awaitPaused("false"), "false");
    EXPECT_TRUE(awaitGone(record_));
    ASSERT_EQ(post(daemon.port(), "/end", "{}").status, 200);

    // SIGINT during a session: released before the daemon exits.
    ASSERT_EQ(post(daemon.port(), "/planning", "{}").status, 200);
    ASSERT_EQ(post(daemon.port(), "/commitment", commitment).status, 200);
    EXPECT_EQ(awaitPaused("true"), "true");
    EXPECT_EQ(daemon.stop(), 0) << daemon.err();
    EXPECT_THAT(daemon.err(), HasSubstr("left dunst's do-not-disturb on; released it"));
  }
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));

  // kill -9 again, then a restart that no longer holds (focus.do_not_disturb
  // = off) still releases what the crash left.
  std::vector<std::string> offArgs = args;
  {
    test::RunningDaemon daemon(ANTIDRIFTD_PATH, args, environment);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
    EXPECT_EQ(awaitPaused("true"), "true");  // the session resumed once more
    ASSERT_EQ(::kill(daemon.pid(), SIGKILL), 0);
    daemon.waitForExit();
  }
  ASSERT_EQ(isPaused(), "true");
  offArgs.insert(offArgs.end(), {"-D", "focus.do_not_disturb=off"});
  {
    test::RunningDaemon daemon(ANTIDRIFTD_PATH, offArgs, environment);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
    EXPECT_EQ(isPaused(), "false");  // released before the daemon listens
    EXPECT_FALSE(exists(record_));
    EXPECT_EQ(daemon.stop(), 0) << daemon.err();
  }
}

/// The daemon's arguments for the tests below: no AI, no evidence, its store.
std::vector<std::string> daemonArguments(const std::string& store, const std::string& www) {
  return {"-D", "server.port=0",        "-D", "store.dir=" + store, "-D", "evidence.x11=false",
          "-D", "evidence.source=none", "-D", "ai.backend=none",    "-D", "server.www_dir=" + www};
}

/// docs/SECURITY.md "N6": a crash leaves dunst paused; the next start then
/// fails because a program that is not an antidriftd keeps the store lock
/// past the wait (exit 75, as the review's `flock` did). The desktop is not
/// left silenced: that failing start released the hold (no daemon runs on
/// the store), and so does `antidriftd --release-dnd`, the unit's ExecStopPost.
TEST_F(PrivateDunst, AStartThatFailsOnAHeldLockStillReleasesACrashsHold) {
  const auto crash = [this] {
    DoNotDisturb dnd(*dndBackendNamed("dunst"), store_);
    dnd.onState(withRuntime(RuntimeState::Active, 1));
    ASSERT_TRUE(dnd.waitUntilSettledForTest(kWait));
    dnd.abandonForTest();  // as kill -9: no release
  };
  crash();
  ASSERT_EQ(isPaused(), "true");
  ASSERT_TRUE(exists(record_));
  test::PipedChild holder(STORE_LOCK_HOLDER_PATH, {store_}, daemonEnvironment());
  std::string line;
  ASSERT_TRUE(holder.readOutLine(line, kWait)) << "the lock holder did not start";
  const test::ChildResult failed = test::runToCompletion(
      ANTIDRIFTD_PATH, daemonArguments(store_, directory_.path() + "/www"), daemonEnvironment());
  EXPECT_EQ(failed.exitCode, 75) << failed.err;
  EXPECT_THAT(failed.err, HasSubstr("left dunst's do-not-disturb on; released it"));
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));

  // The unit's ExecStopPost after another crash, the lock still held by the
  // same non-daemon: released too.
  crash();
  ASSERT_EQ(isPaused(), "true");
  const test::ChildResult released = test::runToCompletion(
      ANTIDRIFTD_PATH, {"--release-dnd", "-D", "store.dir=" + store_}, daemonEnvironment());
  EXPECT_EQ(released.exitCode, 0) << released.err;
  EXPECT_EQ(released.out, "released dunst's do-not-disturb\n");
  EXPECT_EQ(isPaused(), "false");
  EXPECT_FALSE(exists(record_));
  holder.closeInput();
  EXPECT_EQ(holder.waitForExit(kWait), std::optional<int>(0));

  const test::ChildResult nothing = test::runToCompletion(
      ANTIDRIFTD_PATH, {"--release-dnd", "-D", "store.dir=" + store_}, daemonEnvironment());
  EXPECT_EQ(nothing.exitCode, 0) << nothing.err;
  EXPECT_EQ(nothing.out, "no do-not-disturb hold recorded in " + store_ + "\n");
}

/// The other side of the rule: a hold that a running antidriftd keeps for its
/// session is its own. A second daemon on the same store (exit 75, the XDG
/// autostart copy beside the unit's) and `--release-dnd` leave it on.
TEST_F(PrivateDunst, ASecondStartAndReleaseDndLeaveARunningDaemonsHold) {
  const std::vector<std::string> args = daemonArguments(store_, directory_.path() + "/www");
  test::RunningDaemon daemon(ANTIDRIFTD_PATH, args, daemonEnvironment());
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
  std::string token = test::readWholeFile(store_ + "/token");
  token.erase(token.find_last_not_of('\n') + 1);
  test::RequestOptions options;
  options.token = token;
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/commitment",
                              R"({"next_action":"Write","success_condition":"done",)"
                              R"("timebox_minutes":30})",
                              options)
                .status,
            200);
  ASSERT_EQ(awaitPaused("true"), "true");

  const test::ChildResult second =
      test::runToCompletion(ANTIDRIFTD_PATH, args, daemonEnvironment());
  EXPECT_EQ(second.exitCode, 75) << second.err;
  EXPECT_THAT(second.err, HasSubstr("another antidriftd is using " + store_ + " (pid " +
                                    std::to_string(daemon.pid()) + ")"));
  EXPECT_EQ(isPaused(), "true");
  EXPECT_TRUE(exists(record_));

  const test::ChildResult released = test::runToCompletion(
      ANTIDRIFTD_PATH, {"--release-dnd", "-D", "store.dir=" + store_}, daemonEnvironment());
  EXPECT_EQ(released.exitCode, 0) << released.err;
  EXPECT_EQ(released.out, "antidriftd (pid " + std::to_string(daemon.pid()) + ") runs on " +
                              store_ + "; its do-not-disturb hold is left to it\n");
  EXPECT_EQ(isPaused(), "true");
  EXPECT_TRUE(exists(record_));

  EXPECT_EQ(daemon.stop(), 0) << daemon.err();
  EXPECT_EQ(isPaused(), "false");  // its clean exit releases it
}

/// "This is on task" chosen on the daemon's desktop notification does what the
/// page's button does. A stand-in notify command answers the action as
/// notify-send prints it; dunst on the private bus lists "actions".
TEST_F(PrivateDunst, ThisIsOnTaskChosenOnTheNotificationMarksTheWindow) {
  const std::string command = directory_.path() + "/fake-notify";
  const std::string log = directory_.path() + "/calls.log";
  test::writeWholeFile(command, "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + log + "'\necho ontask\n");
  ASSERT_EQ(::chmod(command.c_str(), 0700), 0);
  test::RunningDaemon daemon(
      ANTIDRIFTD_PATH,
      {"-D", "server.port=0", "-D", "store.dir=" + store_, "-D", "evidence.x11=false", "-D",
       "evidence.source=none", "-D", "ai.backend=none", "-D", "focus.do_not_disturb=off", "-D",
       "notify.command=" + command, "-D", "server.www_dir=" + directory_.path() + "/www"},
      daemonEnvironment());
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine();
  std::string token = test::readWholeFile(store_ + "/token");
  token.erase(token.find_last_not_of('\n') + 1);
  test::RequestOptions options;
  options.token = token;
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/commitment",
                              R"({"next_action":"Write the report","success_condition":"sent",)"
                              R"("timebox_minutes":30,"allowed_apps":["code"]})",
                              options)
                .status,
            200);
  test::SseRecorder sse(daemon.port());
  ASSERT_EQ(sse.status(), 200);
  // A known distraction (no AI): drifting, and not a hard rule.
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/evidence/window",
                              R"({"app":"firefox","title":"Funny cats - YouTube"})", options)
                .status,
            202);
  // On task once the stand-in answered "ontask": the page is on the session's
  // allowed titles (SSE may coalesce the drifting State in between; the
  // notification's log below proves the drift).
  const auto markedOnTask = [](const test::SseEvent& event) {
    if (event.event != "state") return false;
    Poco::JSON::Parser parser;
    const auto state = parser.parse(event.data).extract<Poco::JSON::Object::Ptr>();
    const auto titles = state->getObject("commitment")->getArray("allowed_titles");
    return state->getObject("drift")->getValue<std::string>("status") == "ontask" && titles &&
           titles->size() == 1;
  };
  ASSERT_TRUE(sse.waitUntil(
      [&markedOnTask](const std::vector<test::SseEvent>& events) {
        return std::any_of(events.begin(), events.end(), markedOnTask);
      },
      kWait))
      << daemon.err();
  sse.close();
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), HasSubstr("\"This is on task\" chosen on the desktop notification"));
  const std::string calls = test::readWholeFile(log);
  EXPECT_THAT(calls, HasSubstr("ontask=This is on task\n"));
  EXPECT_THAT(calls, HasSubstr("--\nAntiDrift: you drifted\n"));
}

}  // namespace
}  // namespace antidrift::notify
