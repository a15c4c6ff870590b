#include "server/notify/desktop_notifier.h"
#include "server/state_delivery.h"

#include <sys/stat.h>

#include <chrono>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/Path.h>

#include "support/temp_dir.h"
// Last: it includes Xlib (see its header).
#include "support/xvfb_session.h"

namespace antidrift::notify {
namespace {

using ::testing::ElementsAre;

constexpr std::chrono::milliseconds kWait = std::chrono::seconds(15);

State drifting(std::int64_t episodes, const std::string& reason) {
  State state;
  state.runtime = RuntimeState::Active;
  state.commitment = Commitment{};
  state.commitment->id = "session-1";
  state.drift.status = drift::DriftStatus::Drifting;
  state.drift.reason = reason;
  state.stats.driftEpisodes = episodes;
  return state;
}

/// A notify command that appends each of its arguments as a line to `log`.
struct FakeNotifyCommand {
  FakeNotifyCommand() {
    test::writeWholeFile(command, "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + log + "'\n");
    EXPECT_EQ(::chmod(command.c_str(), 0700), 0);
  }
  test::TempDirectory directory;
  const std::string command = directory.file("fake-notify");
  const std::string log = directory.file("calls.log");
};

TEST(DesktopNotifier, ArgumentsAreTheAppNameTheSummaryAndTheReasonAsOneElement) {
  EXPECT_THAT(
      DesktopNotifier::argumentsFor("a; $(rm -rf ~) \"b\""),
      ElementsAre("-a", "AntiDrift", "--", "AntiDrift: you drifted", "a; $(rm -rf ~) \"b\""));
}

TEST(DesktopNotifier, RunsTheCommandOncePerEpisodeWithArgvVerbatim) {
  const FakeNotifyCommand fake;
  const std::string& command = fake.command;
  const std::string& log = fake.log;

  DesktopNotifier::Options noRateLimit;
  noRateLimit.minGap = std::chrono::milliseconds(0);
  DesktopNotifier notifier(command, noRateLimit);
  notifier.onState(drifting(1, "steam is blocked during focus; $(echo not run)"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  notifier.onState(drifting(1, "steam is blocked during focus; $(echo not run)"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  notifier.onState(drifting(2, "second"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));

  EXPECT_THAT(test::readLines(log),
              ElementsAre("-a", "AntiDrift", "--", "AntiDrift: you drifted",
                          "steam is blocked during focus; $(echo not run)", "-a", "AntiDrift", "--",
                          "AntiDrift: you drifted", "second"));
}

TEST(DesktopNotifier, AStateDeliveredLateIsIgnored) {
  const FakeNotifyCommand fake;
  const std::string& command = fake.command;
  const std::string& log = fake.log;

  DesktopNotifier notifier(command);
  // The daemon hands States to the notifier through the one delivery point
  // (StateDelivery, issue 15 item 3), which puts racing listeners in order.
  StateDelivery delivery;
  delivery.addSink("desktop notifier",
                   [&notifier](const State& state) { notifier.onState(state); });
  State first = drifting(1, "once");
  first.version = 7;
  delivery.deliver(first);
  // A listener on another thread delivers the State of before the session (no commitment)
  // late: fed in, it would end the session's count and report the same episode twice.
  State stale;
  stale.version = 5;
  delivery.deliver(stale);
  State again = drifting(1, "once");
  again.version = 8;
  delivery.deliver(again);
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  EXPECT_THAT(test::readLines(log),
              ElementsAre("-a", "AntiDrift", "--", "AntiDrift: you drifted", "once"));
}

TEST(DesktopNotifier, SaysTimeIsUpWhenTheTimeboxRunsOut) {
  const FakeNotifyCommand fake;
  const std::string& command = fake.command;
  const std::string& log = fake.log;

  DesktopNotifier notifier(command);
  State active;
  active.runtime = RuntimeState::Active;
  active.commitment = Commitment{};
  active.commitment->id = "session-1";
  active.commitment->nextAction = "Draft the report";
  notifier.onState(active);
  State expired = active;
  expired.runtime = RuntimeState::Review;
  expired.outcome = Outcome::Expired;
  notifier.onState(expired);
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  EXPECT_THAT(test::readLines(log),
              ElementsAre("-a", "AntiDrift", "--", "AntiDrift: time is up", "Draft the report"));
}

TEST(DesktopNotifier, ADriftThatLastsIsRemindedUntilItEnds) {
  const FakeNotifyCommand fake;
  DesktopNotifier::Options options;
  options.repeatMs = 50;
  DesktopNotifier notifier(fake.command, options);
  notifier.onState(drifting(1, "YouTube"));
  ASSERT_TRUE(notifier.waitForSentForTest(3, kWait));
  State onTask = drifting(1, "YouTube");
  onTask.drift.status = drift::DriftStatus::OnTask;
  notifier.onState(onTask);
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  const std::vector<std::string> lines = test::readLines(fake.log);
  ASSERT_GE(lines.size(), 15u);
  EXPECT_THAT(std::vector<std::string>(lines.begin(), lines.begin() + 15),
              ElementsAre("-a", "AntiDrift", "--", "AntiDrift: you drifted", "YouTube", "-a",
                          "AntiDrift", "--", "AntiDrift: still drifting", "YouTube", "-a",
                          "AntiDrift", "--", "AntiDrift: still drifting", "YouTube"));
}

TEST(DesktopNotifier, ActionsAreOfferedAndTheChosenOneIsReported) {
  FakeNotifyCommand fake;
  // Prints the key of "This is on task", as notify-send does when it is clicked.
  test::writeWholeFile(fake.command,
                       "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + fake.log + "'\necho ontask\n");
  std::vector<std::string> chosen;
  DesktopNotifier::Options options;
  options.actions = true;
  options.onAction = [&chosen](const std::string& key) { chosen.push_back(key); };
  DesktopNotifier notifier(fake.command, options);
  notifier.onState(drifting(1, "-u critical"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  EXPECT_THAT(
      test::readLines(fake.log),
      ElementsAre("-a", "AntiDrift", "-A", "back=Back to task", "-A", "ontask=This is on task",
                  "-t", "15000", "--", "AntiDrift: you drifted", "-u critical"));
  EXPECT_THAT(chosen, ElementsAre("ontask"));
}

TEST(DesktopNotifier, TheHeadsUpNotifiesOnlyWhenAskedAndOncePerText) {
  const FakeNotifyCommand fake;
  State heads = drifting(0, "");
  heads.drift.status = drift::DriftStatus::OnTask;
  heads.drift.nudge = "Three videos in a row";
  {
    DesktopNotifier off(fake.command);
    off.onState(heads);
    ASSERT_TRUE(off.waitUntilIdleForTest(kWait));
  }
  DesktopNotifier::Options options;
  options.headsUp = true;
  DesktopNotifier notifier(fake.command, options);
  notifier.onState(heads);
  notifier.onState(heads);
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  EXPECT_THAT(test::readLines(fake.log),
              ElementsAre("-a", "AntiDrift", "--", "AntiDrift: heads up", "Three videos in a row"));
}

TEST(DesktopNotifier, AMissingCommandNeitherThrowsNorBlocks) {
  DesktopNotifier notifier("/nonexistent/notify-send");
  notifier.onState(drifting(1, "first"));
  notifier.onState(drifting(2, "second"));
  EXPECT_TRUE(notifier.waitUntilIdleForTest(kWait));
}

/// A private session bus (dbus-run-session) with dunst as the notification
/// server on an Xvfb display, and dbus-monitor recording every Notify call.
TEST(DesktopNotifierWithDunst, TheNotifyCallCarriesTheReason) {
  Poco::Path found;
  for (const char* tool : {"dbus-run-session", "dbus-monitor", "dunst", "notify-send"}) {
    ASSERT_TRUE(Poco::Path::find(Poco::Environment::get("PATH", ""), tool, found))
        << tool << " is missing: run scripts/deps.sh test";
  }
  test::XServer display;
  ASSERT_EQ(display.start(false), "");
  // The inner shell ends when its stdin (a pipe from this test) closes — at the
  // end of the test or when the test process dies — so dbus-run-session sees
  // its program exit and stops the bus itself (a SIGTERM to it would leave
  // the bus daemon running, holding the test's output pipe open).
  const std::string script =
      "echo \"$DBUS_SESSION_BUS_ADDRESS\"; "
      "dunst </dev/null >/dev/null 2>&1 & server=$!; "
      "dbus-monitor 'interface=org.freedesktop.Notifications,member=Notify' </dev/null & "
      "monitor=$!; read -r line; kill $monitor $server; wait";
  test::Child session("dbus-run-session", {"--", "sh", "-c", script}, display.name(), true, true);
  std::string address;
  ASSERT_TRUE(session.readLine(address, test::kDeadline));
  ASSERT_EQ(address.rfind("unix:", 0), 0u) << address;
  // dbus-monitor is recording once it has dropped its own name.
  std::string line;
  while (line.find("member=NameLost") == std::string::npos) {
    ASSERT_TRUE(session.readLine(line, test::kDeadline)) << "dbus-monitor did not start";
  }
  const std::string savedAddress = Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "");
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", address);

  const std::string reason = "YouTube is not the quarterly report; $(echo stays text)";
  {
    DesktopNotifier notifier("notify-send");
    notifier.onState(drifting(1, reason));
    EXPECT_TRUE(notifier.waitUntilIdleForTest(kWait));
  }
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", savedAddress);

  std::vector<std::string> call;
  const auto deadline = std::chrono::steady_clock::now() + test::kDeadline;
  bool sawReason = false;
  while (!sawReason && std::chrono::steady_clock::now() < deadline) {
    if (!session.readLine(line, std::chrono::milliseconds(test::remainingMs(deadline)))) {
      break;
    }
    call.push_back(line);
    sawReason = line == "   string \"" + reason + "\"";
  }
  ASSERT_TRUE(sawReason) << "dbus-monitor saw no Notify call carrying the reason";
  EXPECT_THAT(call, ::testing::Contains(::testing::HasSubstr("member=Notify")));
  EXPECT_THAT(call, ::testing::Contains("   string \"AntiDrift\""));
  EXPECT_THAT(call, ::testing::Contains("   string \"AntiDrift: you drifted\""));
}

}  // namespace
}  // namespace antidrift::notify
