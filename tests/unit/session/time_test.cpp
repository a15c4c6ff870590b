// Issue 9 item 2, "time that lies": durations and the timebox come from
// monotonic time whatever the wall clock does; a suspend is neither focus nor
// drift, is recorded, and a deadline that passed during it expires on resume;
// nothing stamped before Start is session time. Each case drives the injected
// FakeClock (tests/mocks/fake_clock.h).
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

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;

class TimeTest : public test::ControllerFixture {
 protected:
  TimeTest() { makeController(); }

  void start(std::int64_t minutes = 25) {
    ASSERT_FALSE(controller_->enterPlanning());
    CommitmentRequest request;
    request.nextAction = "Make time honest";
    request.successCondition = "Every case has a test";
    request.timeboxMinutes = minutes;
    request.allowedApps = std::vector<std::string>{"code"};
    ASSERT_FALSE(controller_->startCommitment(request));
  }

  void see(const std::string& app, std::int64_t atMs = 0) {
    controller_->recordWindow(Observation{atMs, app, app + " window", "x11", ""});
  }

  std::int64_t bucketMs(const std::string& app) const {
    const SessionStats stats = controller_->state().stats;
    const auto it = stats.bucketsMs.find(app);
    return it == stats.bucketsMs.end() ? 0 : it->second;
  }
};

TEST_F(TimeTest, WallClockStepsMoveNeitherDurationsNorTheTimebox) {
  start(25);
  see("code");
  clock_.advance(kMinute);
  clock_.setUtcMs(clock_.nowUtcMs() - kHour);  // NTP or a person sets the clock back
  see("firefox");
  clock_.advance(kMinute);
  clock_.setUtcMs(clock_.nowUtcMs() + 2 * kHour);  // …and forward (DST, a manual change)
  see("code");
  clock_.advance(kMinute);
  controller_->tick();

  const State state = controller_->state();
  EXPECT_EQ(state.runtime, RuntimeState::Active);
  EXPECT_EQ(state.remainingSecs, 22 * 60);

  ASSERT_FALSE(controller_->complete());
  EXPECT_EQ(bucketMs("code"), 2 * kMinute);
  EXPECT_EQ(bucketMs("firefox"), kMinute);
  ASSERT_FALSE(controller_->end());
  const SessionSummary& summary = audit_.records.at(0);
  EXPECT_EQ(summary.endedAtMs - summary.startedAtMs, 3 * kMinute);
}

TEST_F(TimeTest, TheTimeboxExpiresOnMonotonicTimeWhenTheWallClockJumpsPastIt) {
  start(25);
  clock_.setUtcMs(clock_.nowUtcMs() + 3 * kHour);
  controller_->tick();
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Active);
  clock_.advance(25 * kMinute);
  controller_->tick();
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Review);
  EXPECT_EQ(controller_->state().outcome, Outcome::Expired);
}

TEST_F(TimeTest, ASessionEndedAfterTheWallClockWentBackBeforeStartIsNeverNegative) {
  start(25);
  see("code");
  clock_.advance(2 * kMinute);
  clock_.setUtcMs(clock_.nowUtcMs() - 5 * kHour);
  ASSERT_FALSE(controller_->abandon());
  ASSERT_FALSE(controller_->end());
  const SessionSummary& summary = audit_.records.at(0);
  EXPECT_EQ(summary.endedAtMs - summary.startedAtMs, 2 * kMinute);
  EXPECT_EQ(summary.topBuckets.at(0).second, 120);
}

TEST_F(TimeTest, ASuspendIsNeitherFocusNorDriftAndTheGapIsRecorded) {
  start(60);
  see("code");
  clock_.advance(kMinute);
  see("firefox");  // off task: drifting from here
  clock_.advance(kMinute);
  clock_.suspend(20 * kMinute);  // the lid closes with firefox in front
  controller_->tick();
  EXPECT_EQ(controller_->state().stats.suspendedMs, 20 * kMinute);
  see("firefox");
  clock_.advance(kMinute);
  see("code");
  clock_.advance(kMinute);
  ASSERT_FALSE(controller_->complete());

  const State state = controller_->state();
  EXPECT_EQ(bucketMs("code"), 2 * kMinute);
  EXPECT_EQ(bucketMs("firefox"), 2 * kMinute);
  EXPECT_LE(state.stats.driftMs, 2 * kMinute);
  EXPECT_EQ(state.stats.suspendedMs, 20 * kMinute);
  // The session lasted 24 minutes of real time: 4 awake, 20 suspended.
  EXPECT_EQ(state.endedAtMs - state.commitment->startedAtMs, 24 * kMinute);
  EXPECT_EQ(snapshots_.last().stats.suspendedMs, 20 * kMinute);  // it survives a restart
}

TEST_F(TimeTest, ADeadlineThatPassedDuringASuspendExpiresOnResume) {
  start(25);
  for (int minute = 0; minute < 10; ++minute) {
    see("code");  // heartbeats
    clock_.advance(kMinute);
  }
  see("code");
  clock_.suspend(kHour);
  // The ticker asks when to wake: now, although monotonic time barely moved.
  ASSERT_TRUE(controller_->nextWakeMonotonicMs());
  EXPECT_LE(*controller_->nextWakeMonotonicMs(), clock_.monotonicMs());
  controller_->tick();

  const State state = controller_->state();
  EXPECT_EQ(state.runtime, RuntimeState::Review);
  EXPECT_EQ(state.outcome, Outcome::Expired);
  EXPECT_EQ(bucketMs("code"), 10 * kMinute);  // the hour asleep is not focus
  EXPECT_EQ(state.stats.suspendedMs, kHour);
}

TEST_F(TimeTest, ASuspendDoesNotPostponeTheDeadline) {
  start(25);
  clock_.advance(10 * kMinute);
  clock_.suspend(5 * kMinute);
  controller_->tick();
  EXPECT_EQ(controller_->state().remainingSecs, 10 * 60);
  clock_.advance(10 * kMinute);
  controller_->tick();
  EXPECT_EQ(controller_->state().outcome, Outcome::Expired);
}

TEST_F(TimeTest, AHeartbeatStampedBeforeStartIsNotSessionTime) {
  ASSERT_FALSE(controller_->enterPlanning());
  see("firefox");
  clock_.advance(20'000);
  const std::int64_t beforeStart = clock_.nowUtcMs();
  ASSERT_FALSE(controller_->cancelPlanning());
  start(25);
  const std::int64_t startedAt = controller_->state().commitment->startedAtMs;
  // A watcher delivers late: a heartbeat stamped 20 s before Start.
  clock_.advance(kMinute);
  see("firefox", beforeStart - 20'000);
  see("firefox", startedAt - 5'000);
  clock_.advance(kMinute);
  see("code");
  ASSERT_FALSE(controller_->complete());
  // Firefox was in front from Start: two minutes, not a second more.
  EXPECT_EQ(bucketMs("firefox"), 2 * kMinute);
  for (const TimelineSpan& span : controller_->state().timeline) {
    EXPECT_GE(span.startMs, startedAt);
  }
}

TEST_F(TimeTest, NothingAfterTheEndOfTheSessionIsCreditedToIt) {
  start(25);
  see("code");
  clock_.advance(kMinute);
  ASSERT_FALSE(controller_->complete());
  clock_.advance(kMinute);
  see("code", clock_.nowUtcMs());  // in review: not session time
  clock_.advance(kMinute);
  ASSERT_FALSE(controller_->end());
  EXPECT_EQ(audit_.records.at(0).topBuckets.at(0).second, 60);
}

}  // namespace
}  // namespace antidrift
