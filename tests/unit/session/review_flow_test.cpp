// Reflection and history through the Controller (issue 7; DESIGN §7, §9;
// seed 004 "Testing", the session list): the timeline, the Reviewer's
// orchestration, the carry-forward, Extend and the review answer. A scripted
// backend answers by role, a ManualExecutor chooses when a call returns and a
// FakeClock drives time.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"
#include "mocks/scripted_backend.h"

namespace antidrift {
namespace {

using test::FakeClock;
using test::ManualExecutor;
using test::MemoryAuditSink;
using test::MemorySnapshotStore;
using test::ScriptedBackend;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const char* kOffTask = R"({"on_task": false, "reason": "YouTube is not the report"})";
const char* kReflection =
    R"({"recap": "You drifted to YouTube twice but finished.", "carry_forward": "Close the browser first."})";

class ReviewFlowTest : public ::testing::Test {
 protected:
  ReviewFlowTest() {
    settings_.judgeDebounceSecs = 0;
    backend_ = std::make_shared<ScriptedBackend>();
    backend_->answer("judge", kOffTask);
    backend_->answer("reviewer", kReflection);
  }

  void make(bool withAi = true) {
    controller_ = std::make_unique<Controller>(settings_, clock_, executor_, snapshots_, audit_,
                                               withAi ? "scripted" : "none", false);
    controller_->setBackend(withAi ? backend_ : nullptr);
    controller_->setChangeListener([this](const State& state) { seen_.push_back(state); });
  }

  void plan() {
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();
  }

  void start(const std::string& nextAction = "Draft the report", std::int64_t minutes = 30) {
    plan();
    CommitmentRequest request;
    request.nextAction = nextAction;
    request.successCondition = "Three paragraphs";
    request.timeboxMinutes = minutes;
    request.allowedApps = std::vector<std::string>{"code"};
    ASSERT_FALSE(controller_->startCommitment(request));
  }

  void see(const std::string& app, const std::string& title) {
    controller_->recordWindow(Observation{0, app, title, "x11"});
  }

  State state() const { return controller_->state(); }

  Settings settings_;
  FakeClock clock_;
  ManualExecutor executor_;
  MemorySnapshotStore snapshots_;
  MemoryAuditSink audit_;
  std::shared_ptr<ScriptedBackend> backend_;
  std::unique_ptr<Controller> controller_;
  std::vector<State> seen_;
};

// ---- The timeline (issue 7 item 3) ------------------------------------------------------------

TEST_F(ReviewFlowTest, TheTimelineFollowsWindowsDriftAndAway) {
  make();
  start();
  const std::int64_t t0 = clock_.nowUtcMs();
  see("code", "report.md");
  clock_.advance(60'000);
  see("firefox", "YouTube");  // judging, then drifting when the judge answers
  executor_.runAll();
  clock_.advance(30'000);
  controller_->setAway(true);
  clock_.advance(20'000);
  controller_->setAway(false);
  see("code", "report.md");
  clock_.advance(10'000);
  ASSERT_FALSE(controller_->complete());
  const State review = state();
  std::vector<std::string> strip;
  for (const TimelineSpan& span : review.timeline) {
    strip.push_back(span.app + ":" + std::string(toString(span.status)));
  }
  EXPECT_THAT(strip, ElementsAre("code:ontask", "firefox:drifting", "firefox:away", "code:ontask"));
  EXPECT_EQ(review.timeline.front().startMs, t0);
  EXPECT_EQ(review.timeline.back().endMs, t0 + 120'000);
  EXPECT_EQ(review.appSplit.at("code").onTaskMs, 70'000);
  EXPECT_EQ(review.appSplit.at("firefox").driftingMs, 30'000);

  const auto json = toJson(review);
  ASSERT_EQ(json->getArray("timeline")->size(), 4u);
  EXPECT_EQ(json->getArray("timeline")->getObject(1)->getValue<std::string>("status"), "drifting");
  const auto buckets = json->getObject("stats")->getArray("buckets");
  for (std::size_t index = 0; index < buckets->size(); ++index) {
    const auto bucket = buckets->getObject(static_cast<unsigned>(index));
    if (bucket->getValue<std::string>("app") == "code") {
      EXPECT_EQ(bucket->getValue<std::int64_t>("ontask_secs"), 70);
      EXPECT_EQ(bucket->getValue<std::int64_t>("drifting_secs"), 0);
    } else {
      EXPECT_EQ(bucket->getValue<std::int64_t>("drifting_secs"), 30);
    }
  }
}

TEST_F(ReviewFlowTest, TheTimelineSurvivesARestart) {
  make();
  start();
  see("code", "report.md");
  clock_.advance(60'000);
  see("code", "report.md");
  const std::vector<TimelineSpan> before = state().timeline;
  make();
  controller_->restore();
  // The restored spans come back; after them, "unknown" until evidence is ok.
  const std::vector<TimelineSpan> after = state().timeline;
  ASSERT_GE(after.size(), before.size());
  EXPECT_EQ(std::vector<TimelineSpan>(after.begin(), after.begin() + 1), before);
  EXPECT_EQ(after.back().status, SpanStatus::Unknown);
}

}  // namespace
}  // namespace antidrift
