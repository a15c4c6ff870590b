/// @file daemon_x11_test.cpp
/// End to end: the real antidriftd binary on real X11 windows (docs/DESIGN.md §2, §3, §9, §10).
/// Xvfb with openbox (the shared fixture in tests/support/xvfb_session.h), two
/// antidrift_testwin windows, focus switched with xdotool; everything observed over the
/// daemon's own HTTP API and SSE stream, then its audit log checked with --verify-audit.
/// Every wait is on an SSE event or a child process, with a deadline; no sleeps.
/// Missing Xvfb, openbox or xdotool fails the X11 tests with a message; nothing is skipped.

#include <gtest/gtest.h>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Query.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "integration/http_test_support.h"
#include "support/temp_dir.h"

// Last: it includes Xlib through support/xvfb_session.h (macros clash with GoogleTest).
#include "e2e/daemon_process.h"

namespace antidrift {
namespace {

using namespace test;  // Child, XServer, TestWindow, DaemonProcess, TempDirectory, SseRecorder, ...
using Poco::JSON::Object;

/// What the windows show (UTF-8; the daemon must pass titles through unchanged).
const std::string kEditorClass = "Code-Insiders";
const std::string kEditorApp = "code-insiders";  // the class, lower-cased by the daemon
const std::string kEditorTitle = "index.js — chango.dev";
const std::string kBrowserClass = "Firefox";
const std::string kBrowserApp = "firefox";
const std::string kBrowserTitle = "Año nuevo — 中文 — Mozilla Firefox";
const std::string kBrowserRetitle = "Zürich ☕ 東京 — Mozilla Firefox";

const std::string kNextAction = "Add page transitions to index.js";
const std::string kCommitmentBody =
    R"({"next_action": "Add page transitions to index.js",
        "success_condition": "Transitions work between blog pages",
        "timebox_minutes": 25, "allowed_apps": ["code-insiders"]})";

Object::Ptr parseObject(const std::string& json) {
  Poco::JSON::Parser parser;
  return parser.parse(json).extract<Object::Ptr>();
}

/// The value at a dotted `path` of `object` as text, "<absent>" when there is none.
std::string text(const Object::Ptr& object, const std::string& path) {
  const Poco::Dynamic::Var value = Poco::JSON::Query(object).find(path);
  return value.isEmpty() ? std::string("<absent>") : value.toString();
}

/// The integer at a dotted `path` of `object`; -1 when there is none.
std::int64_t number(const Object::Ptr& object, const std::string& path) {
  const Poco::Dynamic::Var value = Poco::JSON::Query(object).find(path);
  return value.isEmpty() ? -1 : value.convert<std::int64_t>();
}

/// The apps of stats.buckets, largest first.
std::vector<std::string> bucketApps(const Object::Ptr& state) {
  std::vector<std::string> apps;
  const Poco::Dynamic::Var buckets = Poco::JSON::Query(state).find("stats.buckets");
  if (buckets.isEmpty()) {
    return apps;
  }
  const Poco::JSON::Array::Ptr array = buckets.extract<Poco::JSON::Array::Ptr>();
  for (std::size_t index = 0; index < array->size(); ++index) {
    apps.push_back(array->getObject(static_cast<unsigned>(index))->getValue<std::string>("app"));
  }
  return apps;
}

bool contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

using StatePredicate = std::function<bool(const Object::Ptr&)>;

/// True when the State shows this X11 window as the current one, with healthy evidence.
StatePredicate showsWindow(const std::string& app, const std::string& title) {
  return [app, title](const Object::Ptr& state) {
    return text(state, "evidence.current.app") == app &&
           text(state, "evidence.current.title") == title &&
           text(state, "evidence.source") == "x11" && text(state, "evidence.health") == "ok";
  };
}

/// True when the State is active in this window with this drift status.
StatePredicate activeIn(const std::string& app, const std::string& title,
                        const std::string& driftStatus) {
  const StatePredicate window = showsWindow(app, title);
  return [window, driftStatus](const Object::Ptr& state) {
    return text(state, "runtime") == "active" && window(state) &&
           text(state, "drift.status") == driftStatus;
  };
}

/// Waits (SseRecorder's 10 s deadline) until the newest State on the stream matches.
::testing::AssertionResult waitForState(const SseRecorder& events, const StatePredicate& matches,
                                        const std::string& what) {
  std::string newest;
  const bool matched = events.waitUntil([&](const std::vector<SseEvent>& all) {
    if (all.empty() || all.back().event != "state") {
      return false;
    }
    newest = all.back().data;
    return matches(parseObject(newest));
  });
  if (matched) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "no State with " << what << " arrived within the deadline; the newest was "
         << (newest.empty() ? "<none>" : newest);
}

Reply get(std::uint16_t port, const std::string& path) {
  return sendRequest(port, "GET", path);
}

Reply post(std::uint16_t port, const std::string& token, const std::string& path,
           const std::string& body = "{}") {
  RequestOptions options;
  options.token = token;
  return sendRequest(port, "POST", path, body, options);
}

/// The token the daemon made in its store directory (docs/DESIGN.md §10).
std::string readToken(const std::string& storeDir) {
  std::string token = readWholeFile(storeDir + "/token");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) {
    token.pop_back();
  }
  return token;
}

/// A temporary store and config directory for one test; removed afterwards.
class DaemonTest : public ::testing::Test {
 protected:
  DaemonLaunch launch(std::optional<std::string> display) const {
    return DaemonLaunch{storeDir(), directory_.path() + "/config", std::move(display), ""};
  }
  std::string storeDir() const { return directory_.path() + "/store"; }

  TempDirectory directory_;
};

/// The daemon on one Xvfb display with openbox, shared by the tests of the suite.
class DaemonOnX11Test : public SharedXServerTest<DaemonTest> {
 protected:
  DaemonLaunch launch() const { return DaemonTest::launch(display()); }

  /// Opens the editor and the browser window; fails the test unless both came up.
  static void openEditorAndBrowser(TestWindow& editor, TestWindow& browser) {
    editor = open(kEditorClass, kEditorTitle);
    browser = open(kBrowserClass, kBrowserTitle);
    ASSERT_FALSE(editor.id.empty()) << "the editor window did not come up";
    ASSERT_FALSE(browser.id.empty()) << "the browser window did not come up";
  }
};

TEST_F(DaemonOnX11Test, StateShowsTheClassAndTitleOfTheFocusedWindow) {
  TestWindow editor;
  TestWindow browser;
  ASSERT_NO_FATAL_FAILURE(openEditorAndBrowser(editor, browser));

  DaemonProcess daemon(launch());
  ASSERT_EQ(daemon.startError(), "");
  SseRecorder events(daemon.port());
  ASSERT_EQ(events.status(), 200) << events.errorBody();

  ASSERT_EQ(activate(editor), "");
  ASSERT_TRUE(waitForState(events, showsWindow(kEditorApp, kEditorTitle), "the editor"));
  Object::Ptr state = get(daemon.port(), "/state").json();
  EXPECT_EQ(text(state, "evidence.current.app"), kEditorApp);
  EXPECT_EQ(text(state, "evidence.current.title"), kEditorTitle);
  EXPECT_EQ(text(state, "evidence.source"), "x11");
  EXPECT_EQ(text(state, "evidence.health"), "ok");
  EXPECT_EQ(text(state, "runtime"), "locked");

  ASSERT_EQ(activate(browser), "");
  ASSERT_TRUE(waitForState(events, showsWindow(kBrowserApp, kBrowserTitle), "the browser"));
  state = get(daemon.port(), "/state").json();
  EXPECT_EQ(text(state, "evidence.current.app"), kBrowserApp);
  EXPECT_EQ(text(state, "evidence.current.title"), kBrowserTitle);
  EXPECT_EQ(text(state, "evidence.source"), "x11");

  // The page in the browser changes: only _NET_WM_NAME of the active window changes.
  browser.process->writeLine(kBrowserRetitle);
  ASSERT_TRUE(
      waitForState(events, showsWindow(kBrowserApp, kBrowserRetitle), "the browser retitled"));
  state = get(daemon.port(), "/state").json();
  EXPECT_EQ(text(state, "evidence.current.title"), kBrowserRetitle);

  const Reply health = get(daemon.port(), "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.field("evidence"), "ok");

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

TEST_F(DaemonOnX11Test, ASessionOverRealWindowsLeavesOneAuditRecordThatVerifies) {
  TestWindow editor;
  TestWindow browser;
  ASSERT_NO_FATAL_FAILURE(openEditorAndBrowser(editor, browser));

  DaemonProcess daemon(launch());
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  ASSERT_GE(token.size(), 32u);
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  ASSERT_EQ(activate(browser), "");
  ASSERT_TRUE(waitForState(events, showsWindow(kBrowserApp, kBrowserTitle), "the browser"));

  const Reply planning = post(port, token, "/planning");
  ASSERT_EQ(planning.status, 200) << planning.body;
  EXPECT_EQ(planning.field("runtime"), "planning");
  const Reply started = post(port, token, "/commitment", kCommitmentBody);
  ASSERT_EQ(started.status, 200) << started.body;
  const Object::Ptr commitment = started.json();
  EXPECT_EQ(text(commitment, "runtime"), "active");
  EXPECT_EQ(text(commitment, "commitment.next_action"), kNextAction);
  EXPECT_EQ(number(commitment, "commitment.timebox_secs"), 1500);
  EXPECT_EQ(text(commitment, "commitment.allowed_apps[0]"), kEditorApp);
  const std::string id = text(commitment, "commitment.id");
  ASSERT_NE(id, "<absent>");

  // Editor → browser → editor while active: on task only in the allowed app; with AI off
  // the browser is "unknown", never a fabricated drift (docs/DESIGN.md §4).
  ASSERT_EQ(activate(editor), "");
  ASSERT_TRUE(waitForState(events, activeIn(kEditorApp, kEditorTitle, "ontask"), "editor ontask"));
  EXPECT_EQ(text(get(port, "/state").json(), "drift.status"), "ontask");
  ASSERT_EQ(activate(browser), "");
  ASSERT_TRUE(
      waitForState(events, activeIn(kBrowserApp, kBrowserTitle, "unknown"), "browser unknown"));
  EXPECT_EQ(text(get(port, "/state").json(), "drift.status"), "unknown");
  ASSERT_EQ(activate(editor), "");
  ASSERT_TRUE(waitForState(events, activeIn(kEditorApp, kEditorTitle, "ontask"), "editor again"));
  const Object::Ptr active = get(port, "/state").json();
  EXPECT_EQ(text(active, "drift.status"), "ontask");
  // The session started in the browser, then three changes of app were each seen over SSE.
  EXPECT_GE(number(active, "stats.switches"), 3);

  const Reply completed = post(port, token, "/complete");
  ASSERT_EQ(completed.status, 200) << completed.body;
  const Object::Ptr review = completed.json();
  EXPECT_EQ(text(review, "runtime"), "review");
  EXPECT_EQ(text(review, "outcome"), "completed");
  EXPECT_GE(number(review, "stats.switches"), 3);
  const std::vector<std::string> apps = bucketApps(review);
  EXPECT_TRUE(contains(apps, kEditorApp)) << completed.body;
  EXPECT_TRUE(contains(apps, kBrowserApp)) << completed.body;

  const Reply ended = post(port, token, "/end");
  ASSERT_EQ(ended.status, 200) << ended.body;
  EXPECT_EQ(ended.field("runtime"), "locked");
  EXPECT_EQ(text(ended.json(), "commitment"), "<absent>");
  const Reply history = get(port, "/history?n=10");
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(text(history.json(), "sessions[0].id"), id);
  EXPECT_EQ(text(history.json(), "sessions[1].id"), "<absent>");

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);

  const DaemonRun verify = runDaemonToCompletion(launch(), {"--verify-audit"});
  ASSERT_TRUE(verify.status) << "antidriftd --verify-audit did not finish";
  EXPECT_EQ(*verify.status, 0) << verify.output;
  EXPECT_EQ(verify.output, "audit chain ok: 1 record\n");

  const std::vector<std::string> records = readLines(storeDir() + "/audit.jsonl");
  ASSERT_EQ(records.size(), 1u);
  const Object::Ptr record = parseObject(records.front());
  EXPECT_EQ(text(record, "id"), id);
  EXPECT_EQ(text(record, "next_action"), kNextAction);
  EXPECT_EQ(text(record, "outcome"), "completed");
  EXPECT_GE(number(record, "switches"), 3);
  EXPECT_EQ(text(record, "prev"), std::string(64, '0'));
}

// ---- Drift (docs/DESIGN.md §4; issue 6 item 9)
// ------------------------------------------------------

/// A window no commitment here allows: a chat app, judged per app (not title-sensitive), and
/// not a known distraction (data/distractions.txt), so the judge is asked.
const std::string kChatClass = "Zulip";
const std::string kChatApp = "zulip";
const std::string kChatTitle = "Cat videos — #random";
/// The fake judge's reason for it, which the banner shows verbatim.
const std::string kChatReason = "Cat videos in a chat channel do not add page transitions.";

/// The fake plugin's answers (plugins/fake/README.md): off task with kChatReason for the chat
/// window's title, on task for anything else; the nudge stays silent.
const std::string kFakeResponses = R"({"responses": [
  {"role": "judge", "match": "Cat videos",
   "text": "{\"on_task\": false, \"reason\": \"Cat videos in a chat channel do not add page transitions.\"}"},
  {"role": "judge", "text": "{\"on_task\": true, \"reason\": \"It fits.\"}"},
  {"role": "nudge", "text": "{\"on_track\": true, \"message\": \"\"}"}
]})";

/// The daemon on X11 with a config file of its own (written into the test's directory).
class DriftOnX11Test : public DaemonOnX11Test {
 protected:
  DaemonLaunch launchWithConfig(const std::string& properties) const {
    const std::string path = directory_.file("antidrift.properties");
    writeWholeFile(path, properties);
    DaemonLaunch result = launch();
    result.configFile = path;
    return result;
  }

  /// Opens the editor and the chat window; fails the test unless both came up.
  static void openEditorAndChat(TestWindow& editor, TestWindow& chat) {
    editor = open(kEditorClass, kEditorTitle);
    chat = open(kChatClass, kChatTitle);
    ASSERT_FALSE(editor.id.empty()) << "the editor window did not come up";
    ASSERT_FALSE(chat.id.empty()) << "the chat window did not come up";
  }

  /// Starts the commitment (allowed: the editor) in the editor and waits for ontask.
  static void startInEditor(std::uint16_t port, const std::string& token, const SseRecorder& events,
                            const TestWindow& editor) {
    ASSERT_EQ(activate(editor), "");
    ASSERT_TRUE(waitForState(events, showsWindow(kEditorApp, kEditorTitle), "the editor"));
    ASSERT_EQ(post(port, token, "/planning").status, 200);
    const Reply started = post(port, token, "/commitment", kCommitmentBody);
    ASSERT_EQ(started.status, 200) << started.body;
    ASSERT_TRUE(waitForState(events, activeIn(kEditorApp, kEditorTitle, "ontask"), "ontask"));
  }
};

TEST_F(DriftOnX11Test, AJudgedOffTaskWindowDriftsWithTheReasonAndThisIsOnTaskAllowsIt) {
  TestWindow editor;
  TestWindow chat;
  ASSERT_NO_FATAL_FAILURE(openEditorAndChat(editor, chat));
  const std::string responses = directory_.file("responses.json");
  writeWholeFile(responses, kFakeResponses);

  DaemonProcess daemon(
      launchWithConfig("ai.backend = fake\n"
                       "ai.plugin_dir = " FAKE_PLUGIN_DIR "\n"
                       "ai.fake.responses = " +
                       responses +
                       "\n"
                       "drift.judge_debounce_s = 0\n"));
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  EXPECT_EQ(text(get(port, "/state").json(), "ai.available"), "true");
  ASSERT_NO_FATAL_FAILURE(startInEditor(port, token, events, editor));

  // Focus moves to the unmatched window: the fake judge says off task, and the stream
  // carries drifting with its reason verbatim.
  ASSERT_EQ(activate(chat), "");
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return activeIn(kChatApp, kChatTitle, "drifting")(state) &&
               // The model's words under their label (issue 19 item 4).
               text(state, "drift.reason") == "AI judge: \"" + kChatReason + "\"";
      },
      "drifting with the judge's reason"));
  Object::Ptr state = get(port, "/state").json();
  EXPECT_EQ(number(state, "stats.drift_episodes"), 1);

  // This is on task, over HTTP with the store's token: ontask, and the app is allowed now.
  const Reply marked = post(port, token, "/drift/ontask");
  ASSERT_EQ(marked.status, 200) << marked.body;
  ASSERT_TRUE(waitForState(events, activeIn(kChatApp, kChatTitle, "ontask"), "ontask again"));
  state = get(port, "/state").json();
  EXPECT_EQ(text(state, "drift.status"), "ontask");
  EXPECT_EQ(text(state, "commitment.allowed_apps[0]"), kEditorApp);
  EXPECT_EQ(text(state, "commitment.allowed_apps[1]"), kChatApp);
  EXPECT_EQ(number(state, "stats.corrections"), 1);

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

// ---- Heartbeats during a session only (issue 8 item 2) ---------------------------------------

/// The pid of the antidriftd whose command line names `storeDir`; -1 when there is none.
int daemonPid(const std::string& storeDir) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::ifstream comm(entry.path() / "comm");
    std::string command;
    if (!std::getline(comm, command) || command != "antidriftd") {
      continue;
    }
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    const std::string arguments((std::istreambuf_iterator<char>(cmdline)),
                                std::istreambuf_iterator<char>());
    if (arguments.find("store.dir=" + storeDir + '\0') != std::string::npos) {
      return std::stoi(name);
    }
  }
  return -1;
}

/// Context switches (its wake-ups) of the thread named `thread` in process `pid`; nullopt when
/// it has no such thread.
std::optional<std::uint64_t> wakeupsOfThread(int pid, const std::string& thread) {
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (!std::getline(comm, name) || name != thread) {
      continue;
    }
    std::ifstream status(task.path() / "status");
    std::uint64_t switches = 0;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0 ||
          line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
        switches += std::stoull(line.substr(line.find(':') + 1));
      }
    }
    return switches;
  }
  return std::nullopt;
}

TEST_F(DriftOnX11Test, ALockedDaemonSleepsWithOkEvidenceAndASessionBringsTheHeartbeatBack) {
  TestWindow editor;
  TestWindow chat;
  ASSERT_NO_FATAL_FAILURE(openEditorAndChat(editor, chat));
  // A 1 s heartbeat: during a session, evidence goes stale 3 s after the last observation.
  DaemonProcess daemon(launchWithConfig("ai.backend = none\nevidence.heartbeat_s = 1\n"));
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  ASSERT_EQ(activate(editor), "");
  ASSERT_TRUE(waitForState(events, showsWindow(kEditorApp, kEditorTitle), "the editor"));
  const int pid = daemonPid(storeDir());
  ASSERT_GT(pid, 0) << "no antidriftd process with this store";

  // Locked and nothing happens for four heartbeat intervals: the X11 thread sleeps (a 1 s
  // heartbeat would wake it about six times a second), nothing is published, and the window
  // in front is still ok evidence: the source reports every change the moment it happens.
  const std::optional<std::uint64_t> lockedBefore = wakeupsOfThread(pid, "ad-x11");
  ASSERT_TRUE(lockedBefore.has_value()) << "the X11 source's thread is named ad-x11";
  const std::size_t published = events.events().size();
  EXPECT_FALSE(
      events.waitUntil([&](const std::vector<SseEvent>& all) { return all.size() > published; },
                       std::chrono::milliseconds(4000)));
  const std::optional<std::uint64_t> lockedAfter = wakeupsOfThread(pid, "ad-x11");
  ASSERT_TRUE(lockedAfter.has_value());
  // A 1 s heartbeat costs about six switches a second (27 in 4 s when it was left on); a few
  // are allowed for the thread finishing the switch to the editor when the count begins.
  EXPECT_LT(*lockedAfter - *lockedBefore, 5u);
  EXPECT_EQ(text(get(port, "/state").json(), "evidence.health"), "ok");

  // A session: the window counts as just observed (ontask at once), and the heartbeat runs,
  // so four intervals without a switch leave the evidence ok, never stale.
  ASSERT_NO_FATAL_FAILURE(startInEditor(port, token, events, editor));
  const std::optional<std::uint64_t> activeBefore = wakeupsOfThread(pid, "ad-x11");
  ASSERT_TRUE(activeBefore.has_value());
  EXPECT_FALSE(events.waitUntil(
      [](const std::vector<SseEvent>& all) {
        return !all.empty() && all.back().event == "state" &&
               text(parseObject(all.back().data), "evidence.health") != "ok";
      },
      std::chrono::milliseconds(4000)));
  const std::optional<std::uint64_t> activeAfter = wakeupsOfThread(pid, "ad-x11");
  ASSERT_TRUE(activeAfter.has_value());
  EXPECT_GE(*activeAfter - *activeBefore, 3u);  // at least three heartbeats
  const Object::Ptr active = get(port, "/state").json();
  EXPECT_EQ(text(active, "evidence.health"), "ok");
  EXPECT_EQ(text(active, "drift.status"), "ontask");
  EXPECT_GE(number(active, "stats.buckets[0].secs"), 3);

  ASSERT_EQ(post(port, token, "/complete").status, 200);
  ASSERT_EQ(post(port, token, "/end").status, 200);
  EXPECT_EQ(text(get(port, "/state").json(), "evidence.health"), "ok");
  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status);
  EXPECT_EQ(*status, 0);
}

TEST_F(DriftOnX11Test, ABlockedAppDriftsWithTheAiOff) {
  TestWindow editor;
  TestWindow chat;
  ASSERT_NO_FATAL_FAILURE(openEditorAndChat(editor, chat));

  DaemonProcess daemon(
      launchWithConfig("ai.backend = none\n"
                       "drift.blocked_apps = " +
                       kChatClass + "\n"));
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  EXPECT_EQ(text(get(port, "/state").json(), "ai.available"), "false");
  ASSERT_NO_FATAL_FAILURE(startInEditor(port, token, events, editor));

  ASSERT_EQ(activate(chat), "");
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return activeIn(kChatApp, kChatTitle, "drifting")(state) &&
               text(state, "drift.reason") == kChatApp + " is blocked during focus";
      },
      "drifting on the blocked app"));

  // Back to task hides the banner until the next observation is judged.
  const Reply refocused = post(port, token, "/drift/refocus");
  ASSERT_EQ(refocused.status, 200) << refocused.body;
  EXPECT_NE(text(refocused.json(), "drift.status"), "drifting");

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

TEST_F(DriftOnX11Test, AKnownDistractionRaisesTheBannerWithinASecondWithTheAiOff) {
  // Issue 16 item 3: the shipped known distractions, no AI, no blocked rule.
  TestWindow editor = open(kEditorClass, kEditorTitle);
  TestWindow video = open(kBrowserClass, "Late night show highlights - YouTube — Mozilla Firefox");
  ASSERT_FALSE(editor.id.empty()) << "the editor window did not come up";
  ASSERT_FALSE(video.id.empty()) << "the browser window did not come up";

  DaemonProcess daemon(launchWithConfig("ai.backend = none\n"));
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  ASSERT_NO_FATAL_FAILURE(startInEditor(port, token, events, editor));

  const auto switched = std::chrono::steady_clock::now();
  ASSERT_EQ(activate(video), "");
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return text(state, "drift.status") == "drifting" &&
               text(state, "drift.reason") == "YouTube is a known distraction (video)";
      },
      "the banner for a known distraction"));
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - switched);
  // From the switch (xdotool's own start-up included) to the State on the stream.
  EXPECT_LE(elapsed.count(), 1000) << "the banner took " << elapsed.count() << " ms";

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

/// How the daemon's environment lacks a display.
struct NoDisplay {
  const char* name;
  std::optional<std::string> display;  ///< nullopt: DISPLAY unset
};

/// Names the case in GoogleTest's messages instead of dumping its bytes.
void PrintTo(const NoDisplay& noDisplay, std::ostream* out) {
  *out << noDisplay.name;
}

class DaemonWithoutDisplayTest : public DaemonTest,
                                 public ::testing::WithParamInterface<NoDisplay> {};

TEST_P(DaemonWithoutDisplayTest, ServesWithEvidenceUnavailableUntilAWatcherPosts) {
  DaemonProcess daemon(launch(GetParam().display));
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();

  const Reply health = get(port, "/healthz");
  ASSERT_EQ(health.status, 200) << health.body;
  EXPECT_EQ(health.field("status"), "ok");
  EXPECT_EQ(health.field("evidence"), "unavailable");
  Object::Ptr state = get(port, "/state").json();
  EXPECT_EQ(text(state, "evidence.health"), "unavailable");
  EXPECT_EQ(text(state, "evidence.source"), "");
  EXPECT_EQ(text(state, "evidence.current"), "<absent>");

  // An outside watcher (docs/DESIGN.md §3): the observation is recorded before the 202.
  const Reply posted = post(port, readToken(storeDir()), "/evidence/window",
                            R"({"app": "Code-Insiders", "title": ")" + kEditorTitle + R"("})");
  ASSERT_EQ(posted.status, 202) << posted.body;
  state = get(port, "/state").json();
  EXPECT_EQ(text(state, "evidence.health"), "ok");
  EXPECT_EQ(text(state, "evidence.source"), "http");
  EXPECT_EQ(text(state, "evidence.current.app"), kEditorApp);
  EXPECT_EQ(text(state, "evidence.current.title"), kEditorTitle);
  EXPECT_EQ(get(port, "/healthz").field("evidence"), "ok");

  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

INSTANTIATE_TEST_SUITE_P(Environments, DaemonWithoutDisplayTest,
                         ::testing::Values(NoDisplay{"DisplayUnset", std::nullopt},
                                           NoDisplay{"DisplayEmpty", std::string()}),
                         [](const ::testing::TestParamInfo<NoDisplay>& info) {
                           return std::string(info.param.name);
                         });

using DaemonRestartTest = DaemonTest;

TEST_F(DaemonRestartTest, AnActiveSessionSurvivesARestartOnTheSameStore) {
  std::string id;
  std::int64_t startedAt = 0;
  std::string token;
  {
    DaemonProcess first(launch(std::nullopt));
    ASSERT_EQ(first.startError(), "");
    token = readToken(storeDir());
    ASSERT_EQ(post(first.port(), token, "/planning").status, 200);
    const Reply started = post(first.port(), token, "/commitment", kCommitmentBody);
    ASSERT_EQ(started.status, 200) << started.body;
    id = text(started.json(), "commitment.id");
    startedAt = number(started.json(), "commitment.started_at");
    ASSERT_NE(id, "<absent>");
    const std::optional<int> status = first.terminate(kDeadline);
    ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
    EXPECT_EQ(*status, 0);
  }

  DaemonProcess second(launch(std::nullopt));
  ASSERT_EQ(second.startError(), "");
  EXPECT_EQ(readToken(storeDir()), token);  // the page's token stays valid across restarts
  const Object::Ptr state = get(second.port(), "/state").json();
  EXPECT_EQ(text(state, "runtime"), "active");
  EXPECT_EQ(text(state, "commitment.id"), id);
  EXPECT_EQ(text(state, "commitment.next_action"), kNextAction);
  EXPECT_EQ(number(state, "commitment.started_at"), startedAt);
  EXPECT_GT(number(state, "commitment.remaining_secs"), 0);
  EXPECT_LE(number(state, "commitment.remaining_secs"), 1500);

  // The restored session is a live one: it can be completed and ended.
  const Reply completed = post(second.port(), token, "/complete");
  ASSERT_EQ(completed.status, 200) << completed.body;
  EXPECT_EQ(completed.field("outcome"), "completed");
  EXPECT_EQ(post(second.port(), token, "/end").status, 200);
  const std::optional<int> status = second.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

}  // namespace
}  // namespace antidrift
