// Unit tests of ai.backend = auto's rule (issue 18 item 2; backend_choice.h).
#include "antidrift/plugin/backend_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift::plugin {
namespace {

using ::testing::HasSubstr;

ServerProbe answering(const ServerCandidate& candidate, std::vector<std::string> models) {
  ServerProbe probe;
  probe.candidate = candidate;
  probe.answered = true;
  probe.models = std::move(models);
  return probe;
}

ServerProbe refused(const ServerCandidate& candidate) {
  ServerProbe probe;
  probe.candidate = candidate;
  probe.problem = "connection refused";
  return probe;
}

CliProbe usableCli(const std::string& how) {
  return CliProbe{true, true, how, ""};
}

/// Every default server refusing.
AutoProbes nothingRuns() {
  AutoProbes probes;
  for (const ServerCandidate& candidate : autoServerCandidates("")) {
    probes.servers.push_back(refused(candidate));
  }
  probes.claude = CliProbe{false, false, "", "not on the PATH"};
  probes.codex = CliProbe{false, false, "", "not on the PATH"};
  return probes;
}

TEST(AutoServerCandidates, AreOllamaLlamaCppAndLmStudioOnLoopback) {
  const auto candidates = autoServerCandidates("");
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:11434/v1");
  EXPECT_EQ(candidates[0].label, "Ollama");
  EXPECT_EQ(candidates[1].url, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(candidates[1].label, "llama.cpp");
  EXPECT_EQ(candidates[2].url, "http://127.0.0.1:1234/v1");
  EXPECT_EQ(candidates[2].label, "LM Studio");
}

TEST(AutoServerCandidates, TheConfiguredUrlComesFirstAndIsNotAskedTwice) {
  auto candidates = autoServerCandidates("http://127.0.0.1:9999/v1/");
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:9999/v1");
  EXPECT_EQ(candidates[0].label, "ai.openai.url");
  candidates = autoServerCandidates("http://127.0.0.1:8080/v1");
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:8080/v1");
}

TEST(AutoServerCandidates, AiAutoServersReplacesTheWellKnownPorts) {
  auto candidates =
      autoServerCandidates("http://127.0.0.1:9999/v1", " http://127.0.0.1:4000/v1/ ,, none");
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:9999/v1");
  EXPECT_EQ(candidates[1].url, "http://127.0.0.1:4000/v1");
  EXPECT_EQ(candidates[1].label, "ai.auto.servers");
  candidates = autoServerCandidates("http://127.0.0.1:9999/v1", "none");
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].label, "ai.openai.url");
  candidates = autoServerCandidates("", "http://127.0.0.1:1234/v1");
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].label, "LM Studio");
}

TEST(AutoServerCandidates, WithAnApiKeyOnlyTheConfiguredUrlIsAsked) {
  auto candidates = autoServerCandidates("http://127.0.0.1:9999/v1", kDefaultAutoServers, true);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:9999/v1");
  candidates = autoServerCandidates("", kDefaultAutoServers, true);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].url, "http://127.0.0.1:11434/v1");
}

TEST(ChooseBackend, TheFirstServerThatListsAModelWinsOverTheClis) {
  AutoProbes probes = nothingRuns();
  probes.servers[1] = answering(probes.servers[1].candidate, {"qwen3:4b", "llama3"});
  probes.servers[2] = answering(probes.servers[2].candidate, {"other"});
  probes.claude = usableCli("~/.claude/.credentials.json");
  const BackendChoice choice = chooseBackend(probes);
  EXPECT_EQ(choice.backend, "openai");
  EXPECT_EQ(choice.settings.at("url"), "http://127.0.0.1:8080/v1");
  EXPECT_EQ(choice.settings.at("model"), "qwen3:4b");
  EXPECT_EQ(choice.found, "llama.cpp at 127.0.0.1:8080, model qwen3:4b");
  EXPECT_THAT(choice.reason, HasSubstr("ai.backend = auto chose openai"));
  EXPECT_THAT(choice.reason, HasSubstr("Ollama at 127.0.0.1:11434: connection refused"));
}

TEST(ChooseBackend, TheConfiguredModelIsUsed) {
  AutoProbes probes = nothingRuns();
  probes.configuredModel = "llama3";
  probes.servers[0] = answering(probes.servers[0].candidate, {"qwen3:4b", "llama3"});
  EXPECT_EQ(chooseBackend(probes).settings.at("model"), "llama3");
}

TEST(ChooseBackend, AServerWithoutAModelIsPassedOver) {
  AutoProbes probes = nothingRuns();
  probes.servers[0] = answering(probes.servers[0].candidate, {});
  probes.codex = usableCli("`codex login status`");
  const BackendChoice choice = chooseBackend(probes);
  EXPECT_EQ(choice.backend, "codex");
  EXPECT_TRUE(choice.settings.empty());
  EXPECT_THAT(choice.reason, HasSubstr("Ollama at 127.0.0.1:11434: answered but lists no model"));
}

TEST(ChooseBackend, ClaudeBeforeCodexAndOnlyWhenLoggedIn) {
  AutoProbes probes = nothingRuns();
  probes.claude = usableCli("~/.claude/.credentials.json");
  probes.codex = usableCli("`codex login status`");
  EXPECT_EQ(chooseBackend(probes).backend, "claude");
  EXPECT_EQ(chooseBackend(probes).found,
            "claude on the PATH, logged in (~/.claude/.credentials.json)");
  probes.claude =
      CliProbe{true, false, "`claude auth status`", "not logged in (`claude auth status`)"};
  const BackendChoice choice = chooseBackend(probes);
  EXPECT_EQ(choice.backend, "codex");
  EXPECT_THAT(choice.reason, HasSubstr("claude: not logged in (`claude auth status`)"));
}

TEST(ChooseBackend, NothingUsableIsNoneAndSaysWhatEachLacked) {
  const BackendChoice choice = chooseBackend(nothingRuns());
  EXPECT_EQ(choice.backend, "none");
  EXPECT_EQ(choice.found, "");
  EXPECT_THAT(choice.reason, HasSubstr("found no usable AI backend, AI is off"));
  EXPECT_THAT(choice.reason, HasSubstr("LM Studio at 127.0.0.1:1234: connection refused"));
  EXPECT_THAT(choice.reason, HasSubstr("claude: not on the PATH"));
  EXPECT_THAT(choice.reason, HasSubstr("codex: not on the PATH"));
}

TEST(ChooseBackend, LocalOnlyNeverChoosesACli) {
  AutoProbes probes = nothingRuns();
  probes.localOnly = true;
  probes.claude = usableCli("~/.claude/.credentials.json");
  probes.codex = usableCli("`codex login status`");
  const BackendChoice choice = chooseBackend(probes);
  EXPECT_EQ(choice.backend, "none");
  EXPECT_THAT(choice.reason, HasSubstr("claude: skipped, privacy.local_only"));
  probes.servers[2] = answering(probes.servers[2].candidate, {"m"});
  EXPECT_EQ(chooseBackend(probes).backend, "openai");
}

TEST(AiOffByAutoSentence, SaysAiIsOffInOneShortLineInAPersonsWords) {
  // `antidrift status` and the bar's tooltip carry it whole (issue 17, re-walk C).
  const std::string sentence = aiOffByAutoSentence(false);
  EXPECT_EQ(sentence, "No local model server and no logged-in claude or codex was found at start.");
  EXPECT_LT(sentence.size(), 100u);
  EXPECT_EQ(sentence.find('\n'), std::string::npos);
  EXPECT_THAT(sentence, ::testing::Not(HasSubstr("ai.backend")));
  EXPECT_EQ(aiOffByAutoSentence(true), "No local model server was found at start.");
}

TEST(DescribeConfiguredServer, NamesTheModelWhenTheServerAnswers) {
  const ServerCandidate configured = autoServerCandidates("http://127.0.0.1:9999/v1/").front();
  EXPECT_EQ(describeConfiguredServer(answering(configured, {"a", "b"}), "b"),
            "ai.openai.url at 127.0.0.1:9999, model b");
  EXPECT_EQ(describeConfiguredServer(answering(configured, {"a", "b"}), ""),
            "ai.openai.url at 127.0.0.1:9999, model a");
}

TEST(DescribeConfiguredServer, SaysPlainlyWhenTheServerDoesNotAnswer) {
  const ServerCandidate ollama = autoServerCandidates("").front();
  EXPECT_EQ(describeConfiguredServer(refused(ollama), "qwen3"),
            "not answering at 127.0.0.1:11434 (connection refused): each call tries again");
}

}  // namespace
}  // namespace antidrift::plugin
