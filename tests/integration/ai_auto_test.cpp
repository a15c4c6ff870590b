// The real antidriftd binary choosing its AI (issue 18 items 2 and 3) and
// counting what the AI costs (item 4): ai.backend = auto against the stand-in
// OpenAI-compatible server (a real loopback HTTP server) and stand-in CLIs on
// the PATH, privacy.local_only, and the State's ai_cost after a coach call
// through the real fake plugin (estimated) and the openai plugin (reported).
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>
#include <Poco/Net/ServerSocket.h>

#include "http_test_support.h"
#include "support/child_process.h"
#include "support/openai_stand_in.h"
#include "support/temp_dir.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif

namespace antidrift {
namespace {

using test::RunningDaemon;
using ::testing::HasSubstr;

/// A port nothing listens on: bound, then closed again.
std::uint16_t closedPort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  const std::uint16_t port = socket.address().port();
  socket.close();
  return port;
}

class AiAutoTest : public ::testing::Test {
 protected:
  AiAutoTest() : store_(directory_.path() + "/store"), bin_(directory_.path() + "/bin") {
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment_["XDG_DATA_HOME"] = directory_.path() + "/data";
    // A home without credentials and a PATH with only the stand-ins a test writes.
    environment_["HOME"] = directory_.path() + "/home";
    environment_["PATH"] = bin_;
    environment_["ANTHROPIC_API_KEY"] = "";
    environment_["CODEX_HOME"] = directory_.path() + "/home/.codex";
    ::mkdir(bin_.c_str(), 0700);
    ::mkdir((directory_.path() + "/home").c_str(), 0700);
  }

  /// A stand-in CLI `name` in the PATH directory running `script` (sh).
  void standInCli(const std::string& name, const std::string& script) {
    const std::string path = bin_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << script;
    ASSERT_EQ(::chmod(path.c_str(), 0700), 0);
  }

  std::vector<std::string> args(std::vector<std::string> more) const {
    std::vector<std::string> all = {"-D", "server.port=0", "-D", "store.dir=" + store_, "-D",
                                    "evidence.source=none", "-D", "notify.desktop=false", "-D",
                                    "focus.do_not_disturb=off",
                                    // Only the URL a test names: nothing left on the machine's
                                    // 11434, 8080 or 1234 by another process is asked.
                                    "-D", "ai.auto.servers=none"};
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }

  Poco::JSON::Object::Ptr aiOf(const RunningDaemon& daemon) const {
    return test::sendRequest(daemon.port(), "GET", "/state").json()->getObject("ai");
  }

  test::TempDirectory directory_;
  std::string store_;
  std::string bin_;
  Poco::Process::Env environment_;
};

TEST_F(AiAutoTest, AutoChoosesTheLocalServerThatAnswers) {
  testing::OpenAiStandIn server;
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/v1";
  standInCli("claude", "echo '{\"loggedIn\": true}'\n");  // passed over: the server comes first
  RunningDaemon daemon(ANTIDRIFTD_PATH, args({"-D", "ai.openai.url=" + url}), environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_EQ(ai->getValue<std::string>("backend"), "openai");
  EXPECT_TRUE(ai->getValue<bool>("available")) << ai->getValue<std::string>("detail");
  EXPECT_TRUE(ai->getValue<bool>("auto"));
  EXPECT_EQ(ai->getValue<std::string>("prompts"), "local");
  EXPECT_EQ(ai->getValue<std::string>("destination"),
            "local 127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(ai->getValue<std::string>("found"),
            "ai.openai.url at 127.0.0.1:" + std::to_string(server.port()) + ", model stand-in");
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(),
              HasSubstr("ai.backend = auto chose openai: ai.openai.url at 127.0.0.1:" +
                        std::to_string(server.port()) + ", model stand-in answered GET " + url +
                        "/models"));
}

TEST_F(AiAutoTest, WithoutAServerAutoTakesALoggedInClaude) {
  standInCli("claude", "[ \"$1 $2\" = 'auth status' ] && echo '{\"loggedIn\": true}'\n");
  standInCli("codex", "exit 0\n");
  const std::string url = "http://127.0.0.1:" + std::to_string(closedPort()) + "/v1";
  RunningDaemon daemon(ANTIDRIFTD_PATH, args({"-D", "ai.openai.url=" + url}), environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_EQ(ai->getValue<std::string>("backend"), "claude");
  EXPECT_TRUE(ai->getValue<bool>("available"));
  EXPECT_TRUE(ai->getValue<bool>("auto"));
  EXPECT_EQ(ai->getValue<std::string>("found"),
            "claude on the PATH, logged in (`claude auth status`)");
  EXPECT_EQ(ai->getValue<std::string>("prompts"), "remote");
  const auto health = test::sendRequest(daemon.port(), "GET", "/healthz").json();
  EXPECT_EQ(health->getValue<std::string>("ai"), "claude");
  EXPECT_TRUE(health->getValue<bool>("ai_auto"));
  EXPECT_EQ(health->getValue<std::string>("ai_prompts"), "remote");
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), HasSubstr("ai.backend = auto chose claude"));
  EXPECT_THAT(daemon.err(), HasSubstr("ai.openai.url at " + url.substr(7, url.size() - 10) +
                                      ": connection refused"));
}

TEST_F(AiAutoTest, AClaudeNotLoggedInIsPassedOverForALoggedInCodex) {
  standInCli("claude", "echo '{\"loggedIn\": false}'\nexit 1\n");
  standInCli("codex", "[ \"$1 $2\" = 'login status' ] && echo 'Logged in using ChatGPT'\n");
  RunningDaemon daemon(
      ANTIDRIFTD_PATH,
      args({"-D", "ai.openai.url=http://127.0.0.1:" + std::to_string(closedPort()) + "/v1"}),
      environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_EQ(ai->getValue<std::string>("backend"), "codex");
  EXPECT_TRUE(ai->getValue<bool>("available"));
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), HasSubstr("claude: not logged in (`claude auth status`)"));
}

TEST_F(AiAutoTest, WithNothingUsableTheAiIsOffAndThePageSaysSoPlainly) {
  RunningDaemon daemon(
      ANTIDRIFTD_PATH,
      args({"-D", "ai.openai.url=http://127.0.0.1:" + std::to_string(closedPort()) + "/v1"}),
      environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_EQ(ai->getValue<std::string>("backend"), "none");
  EXPECT_FALSE(ai->getValue<bool>("available"));
  EXPECT_TRUE(ai->getValue<bool>("auto"));
  // One short line, which the page, `antidrift status` and the bar carry (issue 17, re-walk C).
  EXPECT_EQ(ai->getValue<std::string>("detail"),
            "No local model server and no logged-in claude or codex was found at start.");
  EXPECT_EQ(ai->getValue<std::string>("prompts"), "");
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), HasSubstr("ai.backend = auto found no usable AI backend, AI is off"));
  EXPECT_THAT(daemon.err(), HasSubstr("claude: not on the PATH"));
}

TEST_F(AiAutoTest, AnExplicitBackendWinsAndIsNotProbed) {
  testing::OpenAiStandIn server;
  RunningDaemon daemon(
      ANTIDRIFTD_PATH,
      args({"-D", "ai.backend=none", "-D",
            "ai.openai.url=http://127.0.0.1:" + std::to_string(server.port()) + "/v1"}),
      environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  EXPECT_EQ(aiOf(daemon)->getValue<std::string>("backend"), "none");
  EXPECT_FALSE(aiOf(daemon)->getValue<bool>("auto"));
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(), ::testing::Not(HasSubstr("ai.backend = auto")));
}

TEST_F(AiAutoTest, LocalOnlyRefusesClaudeWithALogLineAndRunsWithTheAiOff) {
  standInCli("claude", "echo '{\"loggedIn\": true}'\n");
  RunningDaemon daemon(ANTIDRIFTD_PATH,
                       args({"-D", "ai.backend=claude", "-D", "privacy.local_only=true"}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_FALSE(ai->getValue<bool>("available"));
  EXPECT_THAT(ai->getValue<std::string>("detail"),
              HasSubstr("privacy.local_only is on and backend claude sends prompts off this "
                        "machine (plugin.json \"prompts\": \"remote\")"));
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(daemon.err(),
              HasSubstr("AI backend \"claude\" not loaded: privacy.local_only is on"));
}

TEST_F(AiAutoTest, LocalOnlyMakesAutoPassOverTheClis) {
  standInCli("claude", "echo '{\"loggedIn\": true}'\n");
  RunningDaemon daemon(
      ANTIDRIFTD_PATH,
      args({"-D", "privacy.local_only=true", "-D",
            "ai.openai.url=http://127.0.0.1:" + std::to_string(closedPort()) + "/v1"}),
      environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  EXPECT_EQ(aiOf(daemon)->getValue<std::string>("backend"), "none");
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_THAT(
      daemon.err(),
      HasSubstr("claude: skipped, privacy.local_only and it sends prompts off the machine"));
}

TEST_F(AiAutoTest, ACoachCallThroughTheFakePluginIsCountedAsAnEstimatedCost) {
  RunningDaemon daemon(ANTIDRIFTD_PATH,
                       args({"-D", "ai.backend=fake", "-D", "ai.plugin_dir=" FAKE_PLUGIN_DIR, "-D",
                             "ai.fake.responses=" FAKE_EXAMPLE_RESPONSES}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  std::string token = test::readWholeFile(store_ + "/token");
  token.erase(token.find_last_not_of('\n') + 1);
  test::RequestOptions options;
  options.token = token;
  const auto before = aiOf(daemon);
  EXPECT_EQ(before->getValue<std::string>("prompts"), "local");
  EXPECT_EQ(before->getObject("cost")->getValue<int>("calls"), 0);

  test::SseRecorder events(daemon.port());
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
  ASSERT_EQ(
      test::sendRequest(daemon.port(), "POST", "/coach", R"({"intent":"write the intro"})", options)
          .status,
      200);
  ASSERT_TRUE(events.waitUntil([](const std::vector<test::SseEvent>& seen) {
    return !seen.empty() && seen.back().data.find(R"("status":"ready")") != std::string::npos;
  })) << daemon.err();
  const auto cost = aiOf(daemon)->getObject("cost");
  EXPECT_EQ(cost->getValue<int>("calls"), 1);
  EXPECT_TRUE(cost->getValue<bool>("estimated"));
  EXPECT_GT(cost->getValue<int>("input_tokens"), 100);  // the coach prompt is long
  EXPECT_GT(cost->getValue<int>("output_tokens"), 10);
  EXPECT_GE(cost->getValue<int>("wall_ms"), 0);

  // The coach's call counts with the session it planned.
  const auto active = test::sendRequest(
      daemon.port(), "POST", "/commitment",
      R"({"next_action":"Write the intro","success_condition":"One paragraph","timebox_minutes":25})",
      options);
  ASSERT_EQ(active.status, 200) << active.body;
  const auto stats = active.json()->getObject("stats")->getObject("ai_cost");
  EXPECT_EQ(stats->getValue<int>("calls"), 1);
  EXPECT_EQ(stats->getValue<int>("input_tokens"), cost->getValue<int>("input_tokens"));
  events.close();
  EXPECT_EQ(daemon.stop(), 0);
}

// Issue 18 item 1: an explicitly named server's state is on the page before
// the first call — answering with its model, or not answering.
TEST_F(AiAutoTest, AnExplicitOpenAiServerIsDescribedBeforeTheFirstCall) {
  testing::OpenAiStandIn server;
  {
    RunningDaemon daemon(ANTIDRIFTD_PATH,
                         args({"-D", "ai.backend=openai", "-D", "ai.openai.url=" + server.url(),
                               "-D", "ai.openai.model=stand-in"}),
                         environment_);
    ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
    const auto ai = aiOf(daemon);
    EXPECT_TRUE(ai->getValue<bool>("available")) << ai->getValue<std::string>("detail");
    EXPECT_EQ(ai->getValue<std::string>("found"),
              "ai.openai.url at 127.0.0.1:" + std::to_string(server.port()) + ", model stand-in");
    EXPECT_EQ(daemon.stop(), 0);
  }
  const std::uint16_t nobody = closedPort();
  RunningDaemon daemon(ANTIDRIFTD_PATH,
                       args({"-D", "ai.backend=openai", "-D",
                             "ai.openai.url=http://127.0.0.1:" + std::to_string(nobody) + "/v1",
                             "-D", "ai.openai.model=stand-in"}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  const auto ai = aiOf(daemon);
  EXPECT_TRUE(ai->getValue<bool>("available"));  // each call tries again
  EXPECT_THAT(ai->getValue<std::string>("found"),
              HasSubstr("not answering at 127.0.0.1:" + std::to_string(nobody)));
  EXPECT_EQ(daemon.stop(), 0);
}

TEST_F(AiAutoTest, ACoachCallThroughTheStandInServerIsCountedWithTheServersUsage) {
  testing::OpenAiStandIn server;
  RunningDaemon daemon(ANTIDRIFTD_PATH, args({"-D", "ai.openai.url=" + server.url()}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.firstLine() << daemon.err();
  ASSERT_TRUE(aiOf(daemon)->getValue<bool>("available")) << daemon.err();
  std::string token = test::readWholeFile(store_ + "/token");
  token.erase(token.find_last_not_of('\n') + 1);
  test::RequestOptions options;
  options.token = token;
  test::SseRecorder events(daemon.port());
  ASSERT_EQ(test::sendRequest(daemon.port(), "POST", "/planning", "{}", options).status, 200);
  ASSERT_EQ(
      test::sendRequest(daemon.port(), "POST", "/coach", R"({"intent":"write the intro"})", options)
          .status,
      200);
  ASSERT_TRUE(events.waitUntil([](const std::vector<test::SseEvent>& seen) {
    return !seen.empty() && seen.back().data.find(R"("status":"ready")") != std::string::npos;
  })) << daemon.err();
  const auto cost = aiOf(daemon)->getObject("cost");
  EXPECT_EQ(cost->getValue<int>("calls"), 1);
  EXPECT_FALSE(cost->getValue<bool>("estimated"));  // the server's usage
  EXPECT_GT(cost->getValue<int>("input_tokens"), 100);
  EXPECT_GT(cost->getValue<int>("output_tokens"), 5);
  events.close();
  EXPECT_EQ(daemon.stop(), 0);
}

}  // namespace
}  // namespace antidrift
