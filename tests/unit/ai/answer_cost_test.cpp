// Each role asks through answer() with its role and answer schema, and
// reports what the call cost (issue 18 items 1 and 4).
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/ai/answer_schema.h"
#include "antidrift/ai/coach.h"
#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/ai/reviewer.h"
#include "antidrift/backend.h"
#include "antidrift/domain/ai_cost.h"
#include "antidrift/store/ai_cost_json.h"

namespace antidrift::ai {
namespace {

/// A backend that reports usage like a server does, and keeps each Request.
class UsageBackend : public Backend {
 public:
  std::string name() const override { return "usage"; }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string&, std::int64_t) override {
    throw BackendError("complete() is not the ABI 2 path");
  }
  Completion answer(const Request& request) override {
    requests.push_back(request);
    if (fail) throw BackendError("refused");
    Completion completion;
    completion.text = text;
    completion.usage.inputTokens = inputTokens;
    completion.usage.outputTokens = outputTokens;
    completion.usage.estimated = false;
    return completion;
  }

  std::vector<Request> requests;
  std::string text;
  bool fail = false;
  std::int64_t inputTokens = 120;
  std::int64_t outputTokens = 7;
};

/// The schema parses as a JSON object of type "object" that requires `keys`.
void expectSchema(const std::string& schema, const std::vector<std::string>& keys) {
  Poco::JSON::Parser parser;
  const auto object = parser.parse(schema).extract<Poco::JSON::Object::Ptr>();
  ASSERT_FALSE(object.isNull());
  EXPECT_EQ(object->getValue<std::string>("type"), "object");
  const auto required = object->getArray("required");
  ASSERT_FALSE(required.isNull());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < required->size(); ++i)
    names.push_back(required->getElement<std::string>(static_cast<unsigned>(i)));
  EXPECT_EQ(names, keys);
}

TEST(AnswerSchema, EachRoleSchemaIsAnObjectRequiringWhatItsParserReads) {
  expectSchema(kJudgeAnswerSchema, {"on_task", "reason"});
  expectSchema(kNudgeAnswerSchema, {"on_track", "message"});
  expectSchema(kCoachAnswerSchema, {"next_action", "success_condition", "timebox_minutes"});
  expectSchema(kReviewerAnswerSchema, {"recap", "carry_forward"});
}

TEST(RoleCost, TheJudgeSendsItsRoleAndSchemaAndReportsTheServersUsage) {
  UsageBackend backend;
  backend.text = R"({"on_task": false, "reason": "video", "scope": "page"})";
  CallCost cost;
  const auto verdict =
      judge(backend, JudgeInput{"Write", "Done", "firefox", "YouTube"}, 5000, &cost);
  ASSERT_TRUE(verdict.hasValue());
  ASSERT_EQ(backend.requests.size(), 1u);
  EXPECT_EQ(backend.requests[0].role, "judge");
  EXPECT_EQ(backend.requests[0].answerSchema, kJudgeAnswerSchema);
  EXPECT_EQ(backend.requests[0].timeoutMs, 5000);
  EXPECT_EQ(cost.inputTokens, 120);
  EXPECT_EQ(cost.outputTokens, 7);
  EXPECT_FALSE(cost.estimated);
  EXPECT_GE(cost.wallMs, 0);
}

TEST(RoleCost, NudgeCoachAndReviewerSendTheirRoleAndSchema) {
  UsageBackend backend;
  backend.text = R"({"on_track": true, "message": ""})";
  CallCost cost;
  EXPECT_TRUE(nudge(backend, NudgeInput{"Write", "Done", {"a"}}, 1000, &cost).hasValue());
  backend.text = R"({"next_action": "a", "success_condition": "b", "timebox_minutes": 25})";
  EXPECT_TRUE(coach(backend, "write", CoachGrounding{}, 1000, &cost).hasValue());
  backend.text = R"({"recap": "r", "carry_forward": "c"})";
  EXPECT_TRUE(tryReview(backend, "finished", "", 1000, &cost).hasValue());
  ASSERT_EQ(backend.requests.size(), 3u);
  EXPECT_EQ(backend.requests[0].role, "nudge");
  EXPECT_EQ(backend.requests[0].answerSchema, kNudgeAnswerSchema);
  EXPECT_EQ(backend.requests[1].role, "coach");
  EXPECT_EQ(backend.requests[1].answerSchema, kCoachAnswerSchema);
  EXPECT_EQ(backend.requests[2].role, "reviewer");
  EXPECT_EQ(backend.requests[2].answerSchema, kReviewerAnswerSchema);
  EXPECT_EQ(cost.inputTokens, 120);
}

TEST(RoleCost, AFailedCallHasUnknownTokensButCountsAsACall) {
  UsageBackend backend;
  backend.fail = true;
  CallCost cost;
  cost.inputTokens = 99;
  EXPECT_FALSE(judge(backend, JudgeInput{"Write", "Done", "firefox", "YouTube"}, 1000, &cost));
  EXPECT_EQ(cost.inputTokens, -1);
  EXPECT_EQ(cost.outputTokens, -1);
  AiCost total;
  total.add(cost);
  EXPECT_EQ(total.calls, 1);
  EXPECT_EQ(total.inputTokens, 0);
  EXPECT_FALSE(total.estimated);
}

/// A CLI-like backend: only complete(); the ABI's default answer() estimates.
class CliLikeBackend : public Backend {
 public:
  std::string name() const override { return "cli"; }
  void configure(const std::map<std::string, std::string>&) override {}
  std::string complete(const std::string&, std::int64_t) override {
    return R"({"on_track": false, "message": "Back to it"})";  // 44 bytes → 11 tokens
  }
};

TEST(RoleCost, ACliBackendsCostIsTheCharactersOverFourEstimate) {
  CliLikeBackend backend;
  CallCost cost;
  const NudgeInput input{"Write", "Done", {"a"}};
  ASSERT_TRUE(nudge(backend, input, 1000, &cost).hasValue());
  EXPECT_TRUE(cost.estimated);
  EXPECT_EQ(cost.inputTokens, static_cast<std::int64_t>((buildNudgePrompt(input).size() + 3) / 4));
  EXPECT_EQ(cost.outputTokens, 11);
}

TEST(AiCostTest, AddsCallsTokensAndWallTimeAndRemembersEstimates) {
  AiCost total;
  total.add(CallCost{100, 10, false, 250});
  total.add(CallCost{50, 5, true, 750});
  EXPECT_EQ(total.calls, 2);
  EXPECT_EQ(total.inputTokens, 150);
  EXPECT_EQ(total.outputTokens, 15);
  EXPECT_TRUE(total.estimated);
  EXPECT_EQ(total.wallMs, 1000);
  AiCost other;
  other.add(CallCost{1, 1, false, 1});
  total.add(other);
  EXPECT_EQ(total.calls, 3);
  EXPECT_EQ(total.wallMs, 1001);
}

// docs/SECURITY.md N3: a model server reported 2^63 - 1 tokens twice and the
// session's sum wrapped to -2, which was persisted.
TEST(RoleCost, HugeReportedTokenCountsSaturateAndNeverTurnNegative) {
  UsageBackend backend;
  backend.text = R"({"on_task": false, "reason": "video", "scope": "page"})";
  backend.inputTokens = std::numeric_limits<std::int64_t>::max();
  backend.outputTokens = std::numeric_limits<std::int64_t>::max();
  AiCost total;
  for (int call = 0; call < 2; ++call) {
    CallCost cost;
    ASSERT_TRUE(
        judge(backend, JudgeInput{"Write", "Done", "firefox", "YouTube"}, 1000, &cost).hasValue());
    EXPECT_EQ(cost.inputTokens, kMaxCallTokens);
    EXPECT_EQ(cost.outputTokens, kMaxCallTokens);
    total.add(cost);
  }
  EXPECT_EQ(total.inputTokens, 2 * kMaxCallTokens);
  EXPECT_EQ(total.outputTokens, 2 * kMaxCallTokens);

  backend.inputTokens = -5;  // nonsense the other way: no tokens, not a negative cost
  CallCost negative;
  ASSERT_TRUE(judge(backend, JudgeInput{"Write", "Done", "firefox", "YouTube"}, 1000, &negative)
                  .hasValue());
  EXPECT_EQ(negative.inputTokens, 0);
}

TEST(AiCostTest, SumsSaturateAtTheLargestCountInsteadOfOverflowing) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  AiCost total;
  total.inputTokens = kMax - 1;
  total.calls = kMax;
  total.add(CallCost{kMax, kMax, false, kMax});
  EXPECT_EQ(total.inputTokens, kMax);
  EXPECT_EQ(total.outputTokens, kMaxCallTokens);  // one call counts at most kMaxCallTokens
  EXPECT_EQ(total.calls, kMax);
  EXPECT_EQ(total.wallMs, kMax);
  AiCost other = total;
  total.add(other);
  EXPECT_EQ(total.inputTokens, kMax);
  EXPECT_EQ(total.wallMs, kMax);
  AiCost broken;  // as restored from an older daemon's wrapped sum
  broken.inputTokens = -2;
  AiCost sum;
  sum.add(broken);
  EXPECT_EQ(sum.inputTokens, 0);
}

TEST(AiCostJson, ANegativeSumFromAnOlderDaemonReadsAsZero) {
  Poco::JSON::Parser parser;
  const auto object =
      parser
          .parse(R"({"calls": 2, "input_tokens": -2, "output_tokens": -2, "estimated": false,)"
                 R"( "wall_ms": 30})")
          .extract<Poco::JSON::Object::Ptr>();
  const AiCost cost = aiCostFromJson(*object);
  EXPECT_EQ(cost.calls, 2);
  EXPECT_EQ(cost.inputTokens, 0);
  EXPECT_EQ(cost.outputTokens, 0);
  EXPECT_EQ(cost.wallMs, 30);
}

TEST(PercentileMs, IsTheNearestRank) {
  EXPECT_EQ(percentileMs({}, 50), 0);
  EXPECT_EQ(percentileMs({30, 10, 20}, 50), 20);
  std::vector<std::int64_t> hundred;
  for (std::int64_t i = 1; i <= 100; ++i) hundred.push_back(101 - i);
  EXPECT_EQ(percentileMs(hundred, 50), 50);
  EXPECT_EQ(percentileMs(hundred, 99), 99);
  EXPECT_EQ(percentileMs({5}, 99), 5);
}

}  // namespace
}  // namespace antidrift::ai
