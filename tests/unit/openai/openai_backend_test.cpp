// Tests of the real openai plugin (plugins/openai, issue 18 items 1 and 5),
// loaded through PluginLoader and run over real HTTP against the stand-in
// OpenAI-compatible server (tests/support/openai_stand_in.h) on loopback.

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <Poco/AutoPtr.h>
#include <Poco/Channel.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>
#include <Poco/Message.h>
#include <Poco/Net/ServerSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/backend.h"
#include "antidrift/plugin/loader.h"
#include "support/openai_stand_in.h"
#include "support/temp_dir.h"

namespace antidrift::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;
using Settings = std::map<std::string, std::string>;

const std::string kPluginDir = OPENAI_PLUGIN_DIR;

const char* kJudgePrompt =
    "ROLE: judge\nDecide.\n<<<BEGIN title>>>\nSolitaire - Klondike\n<<<END title>>>\n";
const char* kJudgeSchema =
    R"({"type":"object","properties":{"on_task":{"type":"boolean"},"reason":{"type":"string"},)"
    R"("scope":{"type":"string","enum":["page","site"]}},"required":["on_task","reason"],)"
    R"("additionalProperties":false})";

/// Records every log message of the process while it lives.
class LogRecorder : public Poco::Channel {
 public:
  void log(const Poco::Message& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.push_back(message.getText());
  }
  std::vector<std::string> lines() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

Poco::JSON::Object::Ptr parse(const std::string& json) {
  Poco::JSON::Parser parser;
  return parser.parse(json).extract<Poco::JSON::Object::Ptr>();
}

Request judgeRequest(std::int64_t timeoutMs = 5000, const std::string& schema = kJudgeSchema) {
  Request request;
  request.prompt = kJudgePrompt;
  request.timeoutMs = timeoutMs;
  request.role = "judge";
  request.answerSchema = schema;
  return request;
}

class OpenAiBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    recorder_ = new LogRecorder;
    Poco::Logger::root().setChannel(recorder_);
    Poco::Logger::get("antidrift.ai.openai").setChannel(recorder_);
    Poco::Logger::get("antidrift.ai.openai").setLevel(Poco::Message::PRIO_DEBUG);
  }

  /// Loads the plugin with url = the stand-in's and `settings`; fails the test
  /// when it does not load.
  std::shared_ptr<Backend> load(Settings settings = {}) {
    settings.emplace("url", server_.url());
    settings.emplace("model", "stand-in");
    plugin::LoadResult result = loader_.load("openai", kPluginDir, settings);
    EXPECT_TRUE(result.loaded()) << result.error;
    return result.backend;
  }

  std::string loadError(const Settings& settings) {
    return loader_.load("openai", kPluginDir, settings).error;
  }

  /// The BackendError message of answering `request`; "" when none was thrown.
  static std::string errorOf(Backend& backend, const Request& request) {
    try {
      backend.answer(request);
    } catch (const BackendError& e) {
      return e.what();
    }
    return "";
  }

  OpenAiStandIn server_;
  plugin::PluginLoader loader_;
  Poco::AutoPtr<LogRecorder> recorder_;
};

TEST_F(OpenAiBackendTest, AsksForTheSchemaWithThinkingOffAndReportsTheServersUsage) {
  auto backend = load();
  ASSERT_TRUE(backend);
  EXPECT_EQ(backend->name(), "openai");
  const Completion completion = backend->answer(judgeRequest());
  const auto answer = parse(completion.text);
  EXPECT_FALSE(answer->getValue<bool>("on_task"));
  EXPECT_THAT(answer->getValue<std::string>("reason"), HasSubstr("Solitaire - Klondike"));

  const auto bodies = server_.completionBodies();
  ASSERT_EQ(bodies.size(), 1u);
  const auto body = parse(bodies[0]);
  EXPECT_EQ(body->getValue<std::string>("model"), "stand-in");
  EXPECT_EQ(body->getArray("messages")->getObject(0)->getValue<std::string>("role"), "user");
  EXPECT_EQ(body->getArray("messages")->getObject(0)->getValue<std::string>("content"),
            kJudgePrompt);
  const auto format = body->getObject("response_format");
  ASSERT_TRUE(format);
  EXPECT_EQ(format->getValue<std::string>("type"), "json_schema");
  EXPECT_EQ(format->getObject("json_schema")->getValue<std::string>("name"), "judge_answer");
  EXPECT_TRUE(format->getObject("json_schema")->getValue<bool>("strict"));
  EXPECT_TRUE(format->getObject("json_schema")->getObject("schema")->has("properties"));
  EXPECT_FALSE(body->getValue<bool>("think"));
  EXPECT_EQ(body->getValue<std::string>("reasoning_effort"), "low");
  EXPECT_FALSE(body->getObject("chat_template_kwargs")->getValue<bool>("enable_thinking"));
  EXPECT_FALSE(body->getValue<bool>("stream"));

  // The stand-in reports prompt_tokens = request body bytes / 4.
  EXPECT_FALSE(completion.usage.estimated);
  EXPECT_EQ(completion.usage.inputTokens, static_cast<std::int64_t>(bodies[0].size() / 4));
  EXPECT_GT(completion.usage.outputTokens, 0);
}

TEST_F(OpenAiBackendTest, AsksForAJsonObjectWhenTheRoleHasNoSchema) {
  auto backend = load();
  ASSERT_TRUE(backend);
  backend->answer(judgeRequest(5000, ""));
  const auto body = parse(server_.completionBodies().at(0));
  EXPECT_EQ(body->getObject("response_format")->getValue<std::string>("type"), "json_object");
}

TEST_F(OpenAiBackendTest, CompleteReturnsTheSameText) {
  auto backend = load();
  ASSERT_TRUE(backend);
  EXPECT_THAT(backend->complete("ROLE: coach\nPlan.", 5000), HasSubstr("\"next_action\""));
}

TEST_F(OpenAiBackendTest, StripsThinkingAndIgnoresReasoningContent) {
  auto backend = load({{"model", "stand-in@think"}});
  ASSERT_TRUE(backend);
  const std::string text = backend->answer(judgeRequest()).text;
  EXPECT_THAT(text, StartsWith("{\"on_task\":false"));
  EXPECT_THAT(text, Not(HasSubstr("think")));

  auto reasoning =
      loader_.load("openai", kPluginDir, {{"url", server_.url()}, {"model", "stand-in@reasoning"}});
  ASSERT_TRUE(reasoning.loaded()) << reasoning.error;
  const std::string answer = reasoning.backend->answer(judgeRequest()).text;
  EXPECT_THAT(answer, StartsWith("{\"on_task\":false"));
  EXPECT_THAT(answer, Not(HasSubstr("Let me think")));
}

TEST_F(OpenAiBackendTest, PassesProseAroundJsonThroughForTheRolesToExtract) {
  auto backend = load({{"model", "stand-in@prose"}});
  ASSERT_TRUE(backend);
  const std::string text = backend->answer(judgeRequest()).text;
  EXPECT_THAT(text, StartsWith("Sure!"));
  EXPECT_THAT(text, HasSubstr("{\"on_task\":false"));
}

TEST_F(OpenAiBackendTest, EstimatesUsageWhenTheServerReportsNone) {
  auto backend = load({{"model", "stand-in@no_usage"}});
  ASSERT_TRUE(backend);
  const Request request = judgeRequest();
  const Completion completion = backend->answer(request);
  const Usage expected = estimateUsage(request.prompt, completion.text);
  EXPECT_TRUE(completion.usage.estimated);
  EXPECT_EQ(completion.usage.inputTokens, expected.inputTokens);
  EXPECT_EQ(completion.usage.outputTokens, expected.outputTokens);
}

struct FailureCase {
  std::string mode;
  std::string message;
};

class OpenAiFailureTest : public OpenAiBackendTest,
                          public ::testing::WithParamInterface<FailureCase> {};

TEST_P(OpenAiFailureTest, EachFailureIsOneShortBackendError) {
  auto backend = load({{"model", "stand-in@" + GetParam().mode}});
  ASSERT_TRUE(backend);
  const auto start = Clock::now();
  const std::string message = errorOf(*backend, judgeRequest(3000));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(2500));
  EXPECT_THAT(message, StartsWith("openai: "));
  EXPECT_THAT(message, HasSubstr(GetParam().message));
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_LE(message.size(), 240u);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, OpenAiFailureTest,
    ::testing::Values(FailureCase{"error500",
                                  "answered 500: model runner has unexpectedly stopped"},
                      FailureCase{"html", "answered 502 with an HTML page"},
                      FailureCase{"truncated", "cut short"},
                      FailureCase{"close", "closed the connection without answering"},
                      FailureCase{"length", "token limit"}, FailureCase{"malformed", "not JSON"}),
    [](const ::testing::TestParamInfo<FailureCase>& info) { return info.param.mode; });

TEST_F(OpenAiBackendTest, ASlowServerTimesOutWithinTheRequestsTimeout) {
  server_.setDelayMs(5000);
  auto backend = load({{"model", "stand-in@slow"}});
  ASSERT_TRUE(backend);
  const auto start = Clock::now();
  EXPECT_THAT(errorOf(*backend, judgeRequest(400)), HasSubstr("no answer in time"));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
}

TEST_F(OpenAiBackendTest, TimeoutSettingCapsEveryCall) {
  server_.setDelayMs(5000);
  auto backend = load({{"model", "stand-in@slow"}, {"timeout_s", "0.3"}});
  ASSERT_TRUE(backend);
  const auto start = Clock::now();
  EXPECT_THAT(errorOf(*backend, judgeRequest(10000)), HasSubstr("no answer in time"));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
  EXPECT_THAT(loadError({{"url", server_.url()}, {"model", "stand-in"}, {"timeout_s", "soon"}}),
              HasSubstr("timeout_s"));
}

TEST_F(OpenAiBackendTest, ASlowAnswerWithinTheTimeoutArrives) {
  server_.setDelayMs(200);
  auto backend = load({{"model", "stand-in@slow"}});
  ASSERT_TRUE(backend);
  EXPECT_THAT(backend->answer(judgeRequest(3000)).text, HasSubstr("on_task"));
}

TEST_F(OpenAiBackendTest, FallsBackOnceFromAJsonSchemaTheServerRefusesAndRemembers) {
  auto backend = load({{"model", "stand-in@reject_schema"}});
  ASSERT_TRUE(backend);
  EXPECT_THAT(backend->answer(judgeRequest()).text, HasSubstr("on_task"));
  EXPECT_THAT(backend->answer(judgeRequest()).text, HasSubstr("on_task"));
  const auto bodies = server_.completionBodies();
  ASSERT_EQ(bodies.size(), 3u);  // schema (400), json_object, then json_object straight away
  EXPECT_EQ(parse(bodies[0])->getObject("response_format")->getValue<std::string>("type"),
            "json_schema");
  EXPECT_EQ(parse(bodies[1])->getObject("response_format")->getValue<std::string>("type"),
            "json_object");
  EXPECT_EQ(parse(bodies[2])->getObject("response_format")->getValue<std::string>("type"),
            "json_object");
}

TEST_F(OpenAiBackendTest, FallsBackToPlainWithoutThinkingFieldsForAServerThatRefusesThem) {
  auto backend = load({{"model", "stand-in@reject_extras"}});
  ASSERT_TRUE(backend);
  EXPECT_THAT(backend->answer(judgeRequest()).text, HasSubstr("on_task"));
  const auto last = parse(server_.completionBodies().back());
  EXPECT_FALSE(last->has("think"));
  EXPECT_FALSE(last->has("response_format"));
  backend->answer(judgeRequest());
  EXPECT_FALSE(parse(server_.completionBodies().back())->has("think"));
  EXPECT_EQ(server_.completionBodies().size(), 5u);  // 4 forms, then the remembered one
}

TEST_F(OpenAiBackendTest, FallsBackToNoResponseFormatWhenTheServerRefusesAny) {
  auto backend = load({{"model", "stand-in@reject_format"}});
  ASSERT_TRUE(backend);
  EXPECT_THAT(backend->answer(judgeRequest()).text, HasSubstr("on_task"));
  const auto last = parse(server_.completionBodies().back());
  EXPECT_FALSE(last->has("response_format"));
  EXPECT_FALSE(last->getValue<bool>("think"));
}

TEST_F(OpenAiBackendTest, AMissingModelFailsConfigureAndNamesWhatTheServerHas) {
  const std::string error = loadError({{"url", server_.url()}, {"model", "llama3:8b"}});
  EXPECT_THAT(error, HasSubstr("model \"llama3:8b\" is not on the server"));
  EXPECT_THAT(error, HasSubstr("stand-in"));
  EXPECT_THAT(loadError({{"url", server_.url()}}), HasSubstr("ai.openai.model"));
  EXPECT_THAT(loadError({{"url", "ftp://x"}, {"model", "m"}}), HasSubstr("http://"));
}

TEST_F(OpenAiBackendTest, AServerDownAtConfigureLoadsAndTheCallSaysConnectionRefused) {
  std::uint16_t port = 0;
  {
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    port = socket.address().port();
  }  // closed: nothing listens there now
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  plugin::LoadResult result = loader_.load("openai", kPluginDir, {{"url", url}, {"model", "m"}});
  ASSERT_TRUE(result.loaded()) << result.error;
  // No listener passed the owner check yet: not called local (docs/SECURITY.md N1).
  EXPECT_EQ(result.backend->destination(), "unchecked 127.0.0.1:" + std::to_string(port));
  EXPECT_THAT(errorOf(*result.backend, judgeRequest()), HasSubstr("connection refused"));
  bool logged = false;
  for (const std::string& line : recorder_->lines()) {
    logged = logged || line.find("server not answering") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST_F(OpenAiBackendTest, SendsTheApiKeyAsABearerHeaderAndNeverLogsOrShowsIt) {
  antidrift::test::TempDirectory dir;
  const std::string keyFile = dir.path() + "/key";
  const std::string key = "sk-test-7f3a9c1e5b";
  std::ofstream(keyFile) << key << "\n";
  auto backend = load({{"api_key_file", keyFile}, {"model", "stand-in@unauthorized"}});
  ASSERT_TRUE(backend);
  const std::string message = errorOf(*backend, judgeRequest());
  EXPECT_THAT(message, HasSubstr("answered 401"));
  EXPECT_THAT(message, Not(HasSubstr(key)));
  const auto requests = server_.requests();
  ASSERT_GE(requests.size(), 2u);  // GET /models and the call
  for (const StandInRequest& request : requests) {
    EXPECT_EQ(request.authorization, "Bearer " + key);
  }
  for (const std::string& line : recorder_->lines()) {
    EXPECT_THAT(line, Not(HasSubstr(key)));
  }
  EXPECT_THAT(loadError({{"url", server_.url()},
                         {"model", "stand-in"},
                         {"api_key_file", dir.path() + "/absent"}}),
              HasSubstr("api_key_file"));
}

TEST_F(OpenAiBackendTest, LocalOnlyRefusesARemoteUrlUnlessItsHostIsListed) {
  const std::string remote = "http://192.0.2.1:8080/v1";
  EXPECT_THAT(loadError({{"url", remote}, {"model", "m"}, {"local_only", "true"}}),
              HasSubstr("privacy.local_only is on and 192.0.2.1 is not this machine"));
  plugin::LoadResult listed = loader_.load("openai", kPluginDir,
                                           {{"url", remote},
                                            {"model", "m"},
                                            {"local_only", "true"},
                                            {"local_hosts", "gpu-box, 192.0.2.1"}});
  ASSERT_TRUE(listed.loaded()) << listed.error;
  EXPECT_EQ(listed.backend->destination(), "local 192.0.2.1:8080");
  plugin::LoadResult open = loader_.load(
      "openai", kPluginDir, {{"url", remote}, {"model", "m"}, {"local_only", "false"}});
  ASSERT_TRUE(open.loaded()) << open.error;
  EXPECT_EQ(open.backend->destination(), "remote 192.0.2.1");
  auto local = load({{"local_only", "true"}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->destination(), "local 127.0.0.1:" + std::to_string(server_.port()));
}

TEST_F(OpenAiBackendTest, ConcurrentCallsAllAnswer) {
  auto backend = load();
  ASSERT_TRUE(backend);
  std::vector<std::thread> threads;
  std::vector<std::string> texts(8);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        texts[i] = backend->answer(judgeRequest()).text;
      } catch (const BackendError& e) {
        texts[i] = e.what();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& text : texts) EXPECT_THAT(text, StartsWith("{\"on_task\":false"));
  EXPECT_EQ(server_.completionBodies().size(), texts.size());
}

}  // namespace
}  // namespace antidrift::testing
