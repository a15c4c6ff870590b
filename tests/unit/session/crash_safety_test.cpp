// Issue 9 item 1: End exactly once by session id across a crash, and a write
// that fails (disk full) refuses the action and undoes it. The kill and the
// failure are simulated through the store ports (memory_stores.h).
#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using test::FakeClock;
using test::ManualExecutor;
using test::MemoryAuditSink;
using test::MemorySnapshotStore;
using ::testing::HasSubstr;

CommitmentRequest validRequest() {
  CommitmentRequest request;
  request.nextAction = "Write the crash loop";
  request.successCondition = "It kills the daemon 100 times";
  request.timeboxMinutes = 25;
  request.allowedApps = std::vector<std::string>{"code"};
  return request;
}

class CrashSafetyTest : public test::ControllerFixture {
 protected:
  CrashSafetyTest() { restart(); }

  /// A new daemon process on the same files (the old one was killed).
  void restart() { makeController(); }

  /// States announced so far, by every Controller of the test.
  int notified() const { return static_cast<int>(seen_.size()); }

  void toReview() {
    ASSERT_FALSE(controller_->enterPlanning());
    ASSERT_FALSE(controller_->startCommitment(validRequest()));
    clock_.advance(60'000);
    ASSERT_FALSE(controller_->complete());
  }

  /// End as if the process were killed after the audit append, before the
  /// snapshot write: the append happens, the snapshot on disk stays review.
  void endKilledBeforeTheSnapshotWrite() {
    const std::string review = snapshots_.json.value();
    ASSERT_FALSE(controller_->end());
    snapshots_.json = review;
    restart();
  }
};

// ---- End exactly once by session id ---------------------------------------------------

TEST_F(CrashSafetyTest, AKillBetweenTheAuditAppendAndTheSnapshotWriteRestoresLocked) {
  toReview();
  const std::string id = controller_->state().commitment->id;
  endKilledBeforeTheSnapshotWrite();
  EXPECT_EQ(snapshots_.last().runtime, RuntimeState::Review);  // what the kill left

  EXPECT_THAT(controller_->restore(), HasSubstr("already in the audit log"));
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Locked);
  EXPECT_EQ(snapshots_.last().runtime, RuntimeState::Locked);
  ASSERT_EQ(audit_.records.size(), 1u);
  EXPECT_EQ(audit_.records[0].id, id);
}

TEST_F(CrashSafetyTest, AnEndAfterSuchARestoreDoesNotAppendTheSessionTwice) {
  toReview();
  endKilledBeforeTheSnapshotWrite();
  audit_.failReads = true;  // the restore cannot check: the session stays in review
  EXPECT_THAT(controller_->restore(), HasSubstr("restored review"));
  ASSERT_EQ(controller_->state().runtime, RuntimeState::Review);
  audit_.failReads = false;

  EXPECT_FALSE(controller_->end());
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Locked);
  EXPECT_EQ(audit_.records.size(), 1u);
}

TEST_F(CrashSafetyTest, AnEndThatCannotReadTheAuditLogAppendsNothingAndKeepsReview) {
  toReview();
  audit_.failReads = true;
  const ActionResult result = controller_->end();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Review);
  EXPECT_TRUE(audit_.records.empty());
}

TEST_F(CrashSafetyTest, AnOlderRecordOfAnotherSessionDoesNotStopTheNextEnd) {
  toReview();
  ASSERT_FALSE(controller_->end());
  toReview();
  EXPECT_FALSE(controller_->end());
  ASSERT_EQ(audit_.records.size(), 2u);
  EXPECT_NE(audit_.records[0].id, audit_.records[1].id);
}

// ---- A write that fails (disk full) -----------------------------------------------------

TEST_F(CrashSafetyTest, EndWhoseSnapshotWriteFailsStaysInReviewAndAppendsOnceOnRetry) {
  toReview();
  const State before = controller_->state();
  snapshots_.failSaves = true;
  const ActionResult result = controller_->end();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_THAT(result->message, HasSubstr("nothing changed"));
  const State after = controller_->state();
  EXPECT_EQ(after.runtime, RuntimeState::Review);
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.commitment->id, before.commitment->id);
  EXPECT_EQ(snapshots_.last().runtime, RuntimeState::Review);  // what was on disk stays
  EXPECT_EQ(audit_.records.size(), 1u);                        // the record written stays

  snapshots_.failSaves = false;
  EXPECT_FALSE(controller_->end());
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Locked);
  EXPECT_EQ(audit_.records.size(), 1u);
}

/// One action whose snapshot write fails, from the state `setUp` reaches
/// (End, which also appends, has its own test above).
struct FailedWriteCase {
  const char* name;
  std::function<void(Controller&, FakeClock&)> setUp;
  std::function<ActionResult(Controller&)> act;
};

class FailedWriteTest : public CrashSafetyTest,
                        public ::testing::WithParamInterface<FailedWriteCase> {};

TEST_P(FailedWriteTest, AnswersStorageAndLeavesStateAndFilesAsTheyWere) {
  GetParam().setUp(*controller_, clock_);
  executor_.runAll();  // planning's todo.txt and profile loads land before the action
  const State before = controller_->state();
  const std::string onDisk = snapshots_.json.value_or("");
  const int savesBefore = snapshots_.saves;
  const int notifiedBefore = notified();
  snapshots_.failSaves = true;

  const ActionResult result = GetParam().act(*controller_);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_EQ(result->state, before.runtime);
  executor_.runAll();  // whatever the undone action launched comes back: discarded

  const State after = controller_->state();
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.runtime, before.runtime);
  EXPECT_EQ(after.commitment.has_value(), before.commitment.has_value());
  if (before.commitment) {
    EXPECT_EQ(after.commitment->id, before.commitment->id);
    EXPECT_EQ(after.commitment->deadlineMs, before.commitment->deadlineMs);
    EXPECT_EQ(after.commitment->extendedSecs, before.commitment->extendedSecs);
  }
  EXPECT_EQ(after.remainingSecs, before.remainingSecs);
  EXPECT_EQ(after.outcome, before.outcome);
  EXPECT_EQ(after.review.success, before.review.success);
  EXPECT_EQ(after.stats.aiCalls, before.stats.aiCalls);
  EXPECT_EQ(snapshots_.json.value_or(""), onDisk);
  EXPECT_EQ(snapshots_.saves, savesBefore);
  EXPECT_EQ(notified(), notifiedBefore);  // nothing announced that is not on disk
  EXPECT_TRUE(audit_.records.empty());

  snapshots_.failSaves = false;  // space again: the same action now succeeds
  EXPECT_FALSE(GetParam().act(*controller_));
  EXPECT_GT(controller_->state().version, before.version);
}

void locked(Controller&, FakeClock&) {}
void planning(Controller& controller, FakeClock&) {
  ASSERT_FALSE(controller.enterPlanning());
}
void active(Controller& controller, FakeClock& clock) {
  planning(controller, clock);
  ASSERT_FALSE(controller.startCommitment(validRequest()));
  clock.advance(60'000);
}
void review(Controller& controller, FakeClock& clock) {
  active(controller, clock);
  ASSERT_FALSE(controller.complete());
}

INSTANTIATE_TEST_SUITE_P(
    EveryAction, FailedWriteTest,
    ::testing::Values(
        FailedWriteCase{"EnterPlanning", locked, [](Controller& c) { return c.enterPlanning(); }},
        FailedWriteCase{"CancelPlanning", planning,
                        [](Controller& c) { return c.cancelPlanning(); }},
        FailedWriteCase{"Start", planning,
                        [](Controller& c) { return c.startCommitment(validRequest()); }},
        FailedWriteCase{"Complete", active, [](Controller& c) { return c.complete(); }},
        FailedWriteCase{"Abandon", active, [](Controller& c) { return c.abandon(); }},
        FailedWriteCase{"Extend", active, [](Controller& c) { return c.extend(15); }},
        FailedWriteCase{"Refocus", active, [](Controller& c) { return c.refocus(); }},
        FailedWriteCase{"AnswerReview", review,
                        [](Controller& c) {
                          return c.answerReview(ReviewAnswer{"partly", "half of it"});
                        }}),
    [](const ::testing::TestParamInfo<FailedWriteCase>& info) { return info.param.name; });

}  // namespace
}  // namespace antidrift
