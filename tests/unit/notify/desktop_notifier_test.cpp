#include "server/notify/desktop_notifier.h"
#include "server/notify/do_not_disturb.h"
#include "server/state_delivery.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Environment.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
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
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted",
                          "steam is blocked during focus; $(echo not run)", "-a", "AntiDrift", "-p",
                          "--", "AntiDrift: you drifted", "second"));
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
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted", "once"));
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
  ASSERT_GE(lines.size(), 18u);
  EXPECT_THAT(std::vector<std::string>(lines.begin(), lines.begin() + 18),
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted", "YouTube", "-a",
                          "AntiDrift", "-p", "--", "AntiDrift: still drifting", "YouTube", "-a",
                          "AntiDrift", "-p", "--", "AntiDrift: still drifting", "YouTube"));
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
  EXPECT_THAT(test::readLines(fake.log),
              ElementsAre("-a", "AntiDrift", "-p", "-A", "back=Back to task", "-A",
                          "ontask=This is on task", "-t", "15000", "--", "AntiDrift: you drifted",
                          "-u critical"));
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

TEST(DesktopNotifier, TheDriftNotificationReplacesTheOneItsCommandPrintedTheIdOf) {
  FakeNotifyCommand fake;
  // Prints an id, as notify-send -p does.
  test::writeWholeFile(fake.command,
                       "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + fake.log + "'\necho 42\n");
  DesktopNotifier notifier(fake.command);
  notifier.onState(drifting(1, "first"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  notifier.onState(drifting(2, "second"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  State next = drifting(1, "next session");
  next.commitment->id = "session-2";
  notifier.onState(next);
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  const std::vector<std::string> lines = test::readLines(fake.log);
  // The second's body is two lines: "Another distraction — 2nd drift in 1 min", "second".
  ASSERT_EQ(lines.size(), 6u + 9u + 6u);
  EXPECT_THAT(std::vector<std::string>(lines.begin() + 6, lines.begin() + 11),
              ElementsAre("-a", "AntiDrift", "-p", "-r", "42"));
  // Another session's first drift is a notification of its own.
  EXPECT_THAT(std::vector<std::string>(lines.begin() + 15, lines.end()),
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted", "next session"));
}

TEST(DesktopNotifier, EscapingABodyReplacesOnlyTheThreeMarkupCharacters) {
  EXPECT_EQ(DesktopNotifier::escapeBodyMarkup("<b>x</b> & <a href=\"http://e\">y</a> — 'q'"),
            "&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href=\"http://e\"&gt;y&lt;/a&gt; — 'q'");
  EXPECT_EQ(DesktopNotifier::escapeBodyMarkup("&amp;"), "&amp;amp;");
  EXPECT_EQ(DesktopNotifier::escapeBodyMarkup(""), "");
}

/// docs/SECURITY.md "N4": for a server that lists body-markup the body goes
/// out escaped; the summary (plain text by the spec) stays as it is.
TEST(DesktopNotifier, AReasonWithMarkupIsEscapedForAMarkupServer) {
  const FakeNotifyCommand fake;
  DesktopNotifier::Options options;
  options.escapeMarkup = true;
  DesktopNotifier notifier(fake.command, options);
  notifier.onState(drifting(1, "<b>x</b> & <a href=\"http://e\">y</a>"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));

  EXPECT_THAT(test::readLines(fake.log),
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted",
                          "&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href=\"http://e\"&gt;y&lt;/a&gt;"));
}

TEST(DesktopNotifier, AReasonIsSentVerbatimToAServerWithoutMarkup) {
  const FakeNotifyCommand fake;
  DesktopNotifier notifier(fake.command);
  notifier.onState(drifting(1, "a <b> & c"));
  ASSERT_TRUE(notifier.waitUntilIdleForTest(kWait));
  EXPECT_THAT(test::readLines(fake.log),
              ElementsAre("-a", "AntiDrift", "-p", "--", "AntiDrift: you drifted", "a <b> & c"));
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

/// Two drifts 4 s apart (the injected clock) against a real dunst that
/// offers buttons, as the daemon runs it: both reach the desktop, the second
/// names its site and replaces the first in place, so one notification shows.
TEST(DesktopNotifierWithDunst, ASecondDriftSoonAfterIsShownInPlaceOfTheFirst) {
  Poco::Path found;
  for (const char* tool :
       {"dbus-run-session", "dbus-monitor", "dunst", "dunstctl", "notify-send"}) {
    ASSERT_TRUE(Poco::Path::find(Poco::Environment::get("PATH", ""), tool, found))
        << tool << " is missing: run scripts/deps.sh test";
  }
  test::XServer display;
  ASSERT_EQ(display.start(false), "");
  const std::string script =
      "echo \"$DBUS_SESSION_BUS_ADDRESS\"; "
      "dunst </dev/null >/dev/null 2>&1 & server=$!; "
      "dbus-monitor 'interface=org.freedesktop.Notifications,member=Notify' </dev/null & "
      "monitor=$!; read -r line; kill $monitor $server; wait";
  test::Child session("dbus-run-session", {"--", "sh", "-c", script}, display.name(), true, true);
  std::string address;
  ASSERT_TRUE(session.readLine(address, test::kDeadline));
  ASSERT_EQ(address.rfind("unix:", 0), 0u) << address;
  std::string line;
  while (line.find("member=NameLost") == std::string::npos) {
    ASSERT_TRUE(session.readLine(line, test::kDeadline)) << "dbus-monitor did not start";
  }
  const std::string savedAddress = Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "");
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", address);

  /// The lines of the next Notify call dbus-monitor prints, up to its body.
  const auto nextCall = [&session, &line](const std::string& bodyStart) {
    std::vector<std::string> call;
    const auto deadline = std::chrono::steady_clock::now() + test::kDeadline;
    bool inCall = false;
    while (std::chrono::steady_clock::now() < deadline &&
           session.readLine(line, std::chrono::milliseconds(test::remainingMs(deadline)))) {
      if (line.find("member=Notify") != std::string::npos) inCall = true;
      if (!inCall) continue;
      call.push_back(line);
      if (line.rfind("   string \"" + bodyStart, 0) == 0) return call;
    }
    ADD_FAILURE() << "dbus-monitor saw no Notify call whose body starts with " << bodyStart;
    return call;
  };
  std::int64_t clockMs = 1'000;
  DesktopNotifier::Options options;
  options.actions = true;  // dunst offers buttons: notify-send waits for the person
  options.nowMs = [&clockMs] { return clockMs; };
  std::string displayed;
  {
    DesktopNotifier notifier("notify-send", options);
    notifier.onState(drifting(1, "youtube.com is a known distraction (video)"));
    const std::vector<std::string> first = nextCall("youtube.com is a known distraction");
    ASSERT_GE(first.size(), 3u);
    EXPECT_EQ(first[2], "   uint32 0");  // replaces_id: a new notification

    clockMs += 4'000;
    State facebook = drifting(2, "facebook.com is a known distraction (social)");
    facebook.drift.site = "facebook.com";
    facebook.stats.driftMs = 3'000;
    notifier.onState(facebook);
    const std::vector<std::string> second = nextCall("Facebook.com — 2nd drift in 1 min");
    ASSERT_GE(second.size(), 3u);
    EXPECT_NE(second[2], "   uint32 0") << "the second drift did not replace the first";
    EXPECT_EQ(second[2].rfind("   uint32 ", 0), 0u) << second[2];
    // dunst handles the calls in order: counted after the second, every
    // notification it holds (shown or waiting to be) is one.
    const auto count = [](const char* which) {
      std::string out;
      runCommand({"dunstctl", "count", which}, std::chrono::seconds(5), &out);
      return out.empty() ? -1 : std::stoi(out);
    };
    displayed = std::to_string(count("displayed") + count("waiting"));
  }
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", savedAddress);
  EXPECT_EQ(displayed, "1");
}

/// The text Pango shows for `markup`, for the subset a notification body
/// uses: nullopt when it holds a tag (it would be rendered, not shown); else
/// the five XML entities decoded.
std::optional<std::string> shownText(const std::string& markup) {
  if (markup.find('<') != std::string::npos) return std::nullopt;
  std::string text;
  for (std::size_t at = 0; at < markup.size();) {
    bool decoded = false;
    for (const auto& [entity, character] : std::vector<std::pair<std::string, char>>{
             {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}}) {
      if (markup.compare(at, entity.size(), entity) == 0) {
        text += character;
        at += entity.size();
        decoded = true;
        break;
      }
    }
    if (!decoded) text += markup[at++];
  }
  return text;
}

/// docs/SECURITY.md "N4", against a real dunst with `markup = full` (Debian's
/// default) on a private bus: the daemon's way of setting the notifier up (the
/// server's capabilities decide the escaping) makes a reason carrying a tag,
/// a link and an ampersand show as that literal text — what dunst keeps as
/// the notification's message holds no tag, and decodes to the reason.
TEST(DesktopNotifierWithDunst, AReasonWithMarkupIsShownAsLiteralText) {
  Poco::Path found;
  for (const char* tool : {"dbus-run-session", "dunst", "dunstctl", "notify-send"}) {
    ASSERT_TRUE(Poco::Path::find(Poco::Environment::get("PATH", ""), tool, found))
        << tool << " is missing: run scripts/deps.sh test";
  }
  test::XServer display;
  ASSERT_EQ(display.start(false), "");
  test::TempDirectory directory;
  // The person's dunstrc is not read: the markup setting is this test's own.
  const std::string dunstrc = directory.file("dunstrc");
  test::writeWholeFile(dunstrc, "[global]\n    markup = full\n    format = \"%s\\n%b\"\n");
  const std::string script =
      "echo \"$DBUS_SESSION_BUS_ADDRESS\"; "
      "dunst -config '" +
      dunstrc +
      "' </dev/null >/dev/null 2>&1 & server=$!; "
      "read -r line; kill $server; wait";
  test::Child session("dbus-run-session", {"--", "sh", "-c", script}, display.name(), true, true);
  std::string address;
  ASSERT_TRUE(session.readLine(address, test::kDeadline));
  ASSERT_EQ(address.rfind("unix:", 0), 0u) << address;
  const std::string savedAddress = Poco::Environment::get("DBUS_SESSION_BUS_ADDRESS", "");
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", address);
  // dunst owns the name once it answers; until then the capabilities are none.
  std::vector<std::string> capabilities;
  const auto deadline = std::chrono::steady_clock::now() + test::kDeadline;
  while (notificationServerName().empty() && std::chrono::steady_clock::now() < deadline) {
  }
  capabilities = notificationServerCapabilities();

  const std::string reason = "<b>x</b> & <a href=\"http://e\">y</a>";
  std::string history;
  {
    DesktopNotifier::Options options;
    options.escapeMarkup =
        std::find(capabilities.begin(), capabilities.end(), "body-markup") != capabilities.end();
    DesktopNotifier notifier("notify-send", options);
    notifier.onState(drifting(1, reason));
    EXPECT_TRUE(notifier.waitUntilIdleForTest(kWait));
    // Closed notifications go to dunst's history, which says what it kept.
    EXPECT_EQ(runCommand({"dunstctl", "close-all"}, std::chrono::seconds(5)), 0);
    const auto closed = std::chrono::steady_clock::now() + test::kDeadline;
    do {
      history.clear();
      runCommand({"dunstctl", "history"}, std::chrono::seconds(5), &history);
    } while (history.find("AntiDrift: you drifted") == std::string::npos &&
             std::chrono::steady_clock::now() < closed);
  }
  Poco::Environment::set("DBUS_SESSION_BUS_ADDRESS", savedAddress);
  EXPECT_THAT(capabilities, ::testing::Contains("body-markup"));

  Poco::JSON::Parser parser;
  const Poco::JSON::Object::Ptr root = parser.parse(history).extract<Poco::JSON::Object::Ptr>();
  const Poco::JSON::Array::Ptr all = root->getArray("data")->getArray(0);
  ASSERT_EQ(all->size(), 1u) << history;
  const std::string message =
      all->getObject(0)->getObject("message")->getValue<std::string>("data");
  ASSERT_EQ(message.rfind("AntiDrift: you drifted\n", 0), 0u) << message;
  const std::string body = message.substr(std::string("AntiDrift: you drifted\n").size());
  EXPECT_EQ(shownText(body), std::optional<std::string>(reason))
      << "dunst would render this body's markup: " << body;
}

}  // namespace
}  // namespace antidrift::notify
