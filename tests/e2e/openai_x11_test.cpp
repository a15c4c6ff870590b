/// @file openai_x11_test.cpp
/// End to end through the openai plugin (issue 18 item 5): the real antidriftd on real X11
/// windows (Xvfb + openbox + xdotool, tests/support/xvfb_session.h) with ai.backend = openai
/// against the stand-in OpenAI-compatible server (tests/support/openai_stand_in.h) on a
/// loopback port. The coach's proposal, the heads-up, the drift banner's reason and the
/// reviewer's recap all come from the stand-in through the plugin. Every wait is on an SSE
/// event with a deadline; no sleeps. Missing Xvfb, openbox or xdotool fails the tests.

#include <gtest/gtest.h>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Query.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "integration/http_test_support.h"
#include "support/openai_stand_in.h"
#include "support/temp_dir.h"

// Last: it includes Xlib through support/xvfb_session.h (macros clash with GoogleTest).
#include "e2e/daemon_process.h"

namespace antidrift {
namespace {

using namespace test;  // Child, XServer, TestWindow, DaemonProcess, TempDirectory, SseRecorder, ...
using Poco::JSON::Object;

const std::string kEditorClass = "Code-Insiders";
const std::string kEditorApp = "code-insiders";
const std::string kEditorTitle = "index.js — chango.dev";
/// The editor's second title: the stand-in's nudge rule fires on "Cat videos" in the ring.
const std::string kEditorRetitle = "Cat videos ranked — notes.md";
/// A chat app judged per app, in no allowed list and not a known distraction
/// (data/distractions.txt), so the judge is asked.
const std::string kChatClass = "Zulip";
const std::string kChatApp = "zulip";
const std::string kChatTitle = "Cat videos — #random";
const std::string kCommitmentBody =
    R"({"next_action": "Add page transitions to index.js",
        "success_condition": "Transitions work between blog pages",
        "timebox_minutes": 25, "allowed_apps": ["code-insiders"]})";

Object::Ptr parseObject(const std::string& json) {
  Poco::JSON::Parser parser;
  return parser.parse(json).extract<Object::Ptr>();
}

std::string text(const Object::Ptr& object, const std::string& path) {
  const Poco::Dynamic::Var value = Poco::JSON::Query(object).find(path);
  return value.isEmpty() ? std::string("<absent>") : value.toString();
}

using StatePredicate = std::function<bool(const Object::Ptr&)>;

::testing::AssertionResult waitForState(const SseRecorder& events, const StatePredicate& matches,
                                        const std::string& what) {
  std::string newest;
  const bool matched = events.waitUntil([&](const std::vector<SseEvent>& all) {
    if (all.empty() || all.back().event != "state") return false;
    newest = all.back().data;
    return matches(parseObject(newest));
  });
  if (matched) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "no State with " << what << " arrived within the deadline; the newest was "
         << (newest.empty() ? "<none>" : newest);
}

StatePredicate inWindow(const std::string& app, const std::string& title) {
  return [app, title](const Object::Ptr& state) {
    return text(state, "evidence.current.app") == app &&
           text(state, "evidence.current.title") == title;
  };
}

Reply post(std::uint16_t port, const std::string& token, const std::string& path,
           const std::string& body = "{}") {
  RequestOptions options;
  options.token = token;
  return sendRequest(port, "POST", path, body, options);
}

std::string readToken(const std::string& storeDir) {
  std::string token = readWholeFile(storeDir + "/token");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

class DaemonTest : public ::testing::Test {
 protected:
  std::string storeDir() const { return directory_.path() + "/store"; }
  TempDirectory directory_;
};

class OpenAiOnX11Test : public SharedXServerTest<DaemonTest> {};

TEST_F(OpenAiOnX11Test, CoachNudgeJudgeAndReviewerAnswerThroughThePluginOnRealWindows) {
  testing::StandInOptions options;
  options.offTaskWords = {"Cat videos"};
  testing::OpenAiStandIn server(options);

  TestWindow editor = open(kEditorClass, kEditorTitle);
  TestWindow chat = open(kChatClass, kChatTitle);
  ASSERT_FALSE(editor.id.empty()) << "the editor window did not come up";
  ASSERT_FALSE(chat.id.empty()) << "the chat window did not come up";

  const std::string config = directory_.file("antidrift.properties");
  writeWholeFile(config,
                 "ai.backend = openai\n"
                 "ai.plugin_dir = " OPENAI_PLUGIN_DIR
                 "\n"
                 "ai.openai.url = " +
                     server.url() +
                     "\n"
                     "ai.openai.model = stand-in\n"
                     "drift.judge_debounce_s = 0\n"
                     "nudge.debounce_s = 0\n");
  DaemonProcess daemon(DaemonLaunch{storeDir(), directory_.path() + "/config", display(), config});
  ASSERT_EQ(daemon.startError(), "");
  const std::uint16_t port = daemon.port();
  const std::string token = readToken(storeDir());
  SseRecorder events(port);
  ASSERT_EQ(events.status(), 200) << events.errorBody();
  const Object::Ptr first = sendRequest(port, "GET", "/state").json();
  ASSERT_EQ(text(first, "ai.available"), "true") << text(first, "ai.detail");
  EXPECT_EQ(text(first, "ai.backend"), "openai");

  // The coach: a proposal from the stand-in.
  ASSERT_EQ(activate(editor), "");
  ASSERT_TRUE(waitForState(events, inWindow(kEditorApp, kEditorTitle), "the editor"));
  ASSERT_EQ(post(port, token, "/planning").status, 200);
  const Reply coached = post(port, token, "/coach", R"({"intent": "write the report"})");
  ASSERT_EQ(coached.status, 200) << coached.body;
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return text(state, "coach.status") == "ready" &&
               text(state, "coach.proposal.next_action") == "Write the stand-in's first paragraph";
      },
      "the stand-in coach's proposal"));

  const Reply started = post(port, token, "/commitment", kCommitmentBody);
  ASSERT_EQ(started.status, 200) << started.body;
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return text(state, "runtime") == "active" && text(state, "drift.status") == "ontask";
      },
      "ontask in the editor"));

  // The nudge: a second title in the allowed editor, which the stand-in's rule calls drift.
  editor.process->writeLine(kEditorRetitle);
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return text(state, "drift.nudge") == "Stand-in nudge: Cat videos has taken over.";
      },
      "the stand-in's heads-up"));

  // The judge: the chat window is off task with the stand-in's reason naming it.
  ASSERT_EQ(activate(chat), "");
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return inWindow(kChatApp, kChatTitle)(state) && text(state, "drift.status") == "drifting" &&
               // The model's words under their label, its quotes made single
               // (issue 19 item 4).
               text(state, "drift.reason") == "AI judge: \"Stand-in rule: '" + kChatTitle +
                                                  "' is about Cat videos, not the next action.\"";
      },
      "drifting with the stand-in judge's reason"));

  // The reviewer: the recap after ending the session.
  ASSERT_EQ(post(port, token, "/abandon").status, 200);
  ASSERT_TRUE(waitForState(
      events,
      [](const Object::Ptr& state) {
        return text(state, "reflection.status") == "ready" &&
               text(state, "reflection.recap") == "Stand-in recap: you kept to the plan.";
      },
      "the stand-in reviewer's recap"));

  // Every role reached the stand-in through the plugin, as JSON-asking requests.
  std::set<std::string> roles;
  for (const std::string& body : server.completionBodies()) {
    const Object::Ptr request = parseObject(body);
    const std::string prompt = text(request, "messages[0].content");
    roles.insert(prompt.substr(6, prompt.find('\n') - 6));
    EXPECT_EQ(text(request, "model"), "stand-in");
    EXPECT_NE(text(request, "response_format.type"), "<absent>");
    EXPECT_EQ(text(request, "think"), "false");
  }
  EXPECT_EQ(roles, (std::set<std::string>{"coach", "judge", "nudge", "reviewer"}));

  events.close();
  const std::optional<int> status = daemon.terminate(kDeadline);
  ASSERT_TRUE(status) << "antidriftd did not exit within the deadline after SIGTERM";
  EXPECT_EQ(*status, 0);
}

}  // namespace
}  // namespace antidrift
