#include "antidrift/session/controller.h"
#include "antidrift/wire/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

CommitmentRequest validRequest(std::int64_t minutes = 25) {
  CommitmentRequest request;
  request.nextAction = "Add page transitions to the chango.dev Gatsby site";
  request.successCondition = "Transitions work between blog pages";
  request.timeboxMinutes = minutes;
  request.allowedApps = std::vector<std::string>{"Code - Insiders", "qterminal"};
  return request;
}

Observation window(const std::string& app, const std::string& title) {
  return Observation{0, app, title, "x11", ""};
}

class ControllerTest : public test::ControllerFixture {
 protected:
  ControllerTest() { makeController(); }

  void toActive(std::int64_t minutes = 25) {
    ASSERT_FALSE(controller_->enterPlanning());
    ASSERT_FALSE(controller_->startCommitment(validRequest(minutes)));
  }

  RuntimeState runtime() const { return controller_->state().runtime; }
};

TEST_F(ControllerTest, StartsLockedWithNothingScheduled) {
  EXPECT_EQ(runtime(), RuntimeState::Locked);
  EXPECT_FALSE(controller_->state().commitment);
  EXPECT_FALSE(controller_->nextWakeMonotonicMs());
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
}

TEST_F(ControllerTest, WalksAWholeSessionThroughEveryState) {
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_EQ(runtime(), RuntimeState::Planning);
  ASSERT_FALSE(controller_->startCommitment(validRequest()));
  State active = controller_->state();
  ASSERT_EQ(active.runtime, RuntimeState::Active);
  ASSERT_TRUE(active.commitment);
  EXPECT_EQ(active.commitment->timeboxSecs, 25 * 60);
  EXPECT_EQ(active.commitment->startedAtMs, clock_.nowUtcMs());
  EXPECT_EQ(active.commitment->deadlineMs, clock_.nowUtcMs() + 25 * 60 * 1000);
  EXPECT_THAT(active.commitment->allowedApps, ElementsAre("code - insiders", "qterminal"));
  EXPECT_EQ(active.commitment->id.size(), 36u);
  EXPECT_EQ(active.remainingSecs, 25 * 60);

  clock_.advance(60'000);
  ASSERT_FALSE(controller_->complete());
  State review = controller_->state();
  EXPECT_EQ(review.runtime, RuntimeState::Review);
  EXPECT_EQ(review.outcome, Outcome::Completed);
  EXPECT_EQ(review.endedAtMs, clock_.nowUtcMs());

  ASSERT_FALSE(controller_->end());
  EXPECT_EQ(runtime(), RuntimeState::Locked);
  EXPECT_FALSE(controller_->state().commitment);
  ASSERT_EQ(audit_.records.size(), 1u);
  EXPECT_EQ(audit_.records[0].outcome, Outcome::Completed);
  EXPECT_EQ(audit_.records[0].id, active.commitment->id);
  EXPECT_EQ(audit_.records[0].timeboxSecs, 25 * 60);

  std::vector<RuntimeState> runtimes;
  for (const auto& state : seen_) runtimes.push_back(state.runtime);
  EXPECT_THAT(runtimes, ElementsAre(RuntimeState::Planning, RuntimeState::Active,
                                    RuntimeState::Review, RuntimeState::Locked));
  for (std::size_t i = 1; i < seen_.size(); ++i) EXPECT_GT(seen_[i].version, seen_[i - 1].version);
}

TEST_F(ControllerTest, CancelPlanningReturnsToLocked) {
  ASSERT_FALSE(controller_->enterPlanning());
  ASSERT_FALSE(controller_->cancelPlanning());
  EXPECT_EQ(runtime(), RuntimeState::Locked);
}

TEST_F(ControllerTest, AbandonEndsInReviewAsAbandoned) {
  toActive();
  ASSERT_FALSE(controller_->abandon());
  EXPECT_EQ(controller_->state().outcome, Outcome::Abandoned);
}

struct IllegalCase {
  const char* name;
  RuntimeState from;
  std::function<ActionResult(Controller&)> action;
};

// Names the case in test listings instead of a byte dump of the struct.
void PrintTo(const IllegalCase& illegal, std::ostream* out) {
  *out << illegal.name;
}

class IllegalTransitionTest : public ControllerTest,
                              public ::testing::WithParamInterface<IllegalCase> {};

TEST_P(IllegalTransitionTest, Returns409KindAndChangesNothing) {
  const IllegalCase& param = GetParam();
  if (param.from != RuntimeState::Locked) {
    ASSERT_FALSE(controller_->enterPlanning());
  }
  if (param.from == RuntimeState::Active || param.from == RuntimeState::Review) {
    ASSERT_FALSE(controller_->startCommitment(validRequest()));
  }
  if (param.from == RuntimeState::Review) {
    ASSERT_FALSE(controller_->complete());
  }
  ASSERT_EQ(runtime(), param.from);
  const State before = controller_->state();
  const int savesBefore = snapshots_.saves;
  const std::size_t eventsBefore = seen_.size();

  const ActionResult result = param.action(*controller_);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::IllegalTransition);
  EXPECT_EQ(result->state, param.from);
  EXPECT_THAT(result->message, HasSubstr(toString(param.from)));

  const State after = controller_->state();
  EXPECT_EQ(after.runtime, before.runtime);
  EXPECT_EQ(after.version, before.version);
  EXPECT_EQ(after.outcome, before.outcome);
  EXPECT_EQ(snapshots_.saves, savesBefore);
  EXPECT_EQ(seen_.size(), eventsBefore);
  EXPECT_TRUE(audit_.records.empty());
}

const auto kPlan = [](Controller& c) { return c.enterPlanning(); };
const auto kCancel = [](Controller& c) { return c.cancelPlanning(); };
const auto kStart = [](Controller& c) { return c.startCommitment(validRequest()); };
const auto kComplete = [](Controller& c) { return c.complete(); };
const auto kAbandon = [](Controller& c) { return c.abandon(); };
const auto kEnd = [](Controller& c) { return c.end(); };

INSTANTIATE_TEST_SUITE_P(
    EveryIllegalPair, IllegalTransitionTest,
    ::testing::Values(IllegalCase{"LockedCancel", RuntimeState::Locked, kCancel},
                      IllegalCase{"LockedStart", RuntimeState::Locked, kStart},
                      IllegalCase{"LockedComplete", RuntimeState::Locked, kComplete},
                      IllegalCase{"LockedAbandon", RuntimeState::Locked, kAbandon},
                      IllegalCase{"LockedEnd", RuntimeState::Locked, kEnd},
                      IllegalCase{"PlanningPlan", RuntimeState::Planning, kPlan},
                      IllegalCase{"PlanningComplete", RuntimeState::Planning, kComplete},
                      IllegalCase{"PlanningAbandon", RuntimeState::Planning, kAbandon},
                      IllegalCase{"PlanningEnd", RuntimeState::Planning, kEnd},
                      IllegalCase{"ActivePlan", RuntimeState::Active, kPlan},
                      IllegalCase{"ActiveCancel", RuntimeState::Active, kCancel},
                      IllegalCase{"ActiveStart", RuntimeState::Active, kStart},
                      IllegalCase{"ActiveEnd", RuntimeState::Active, kEnd},
                      IllegalCase{"ReviewPlan", RuntimeState::Review, kPlan},
                      IllegalCase{"ReviewCancel", RuntimeState::Review, kCancel},
                      IllegalCase{"ReviewStart", RuntimeState::Review, kStart},
                      IllegalCase{"ReviewComplete", RuntimeState::Review, kComplete},
                      IllegalCase{"ReviewAbandon", RuntimeState::Review, kAbandon}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(ControllerTest, ValidationErrorsAre400KindAndStayInPlanning) {
  ASSERT_FALSE(controller_->enterPlanning());
  const auto expectInvalid = [&](CommitmentRequest request, const std::string& words) {
    const ActionResult result = controller_->startCommitment(request);
    ASSERT_TRUE(result) << words;
    EXPECT_EQ(result->kind, ErrorKind::Validation);
    EXPECT_THAT(result->message, HasSubstr(words));
    EXPECT_EQ(runtime(), RuntimeState::Planning);
  };
  CommitmentRequest empty = validRequest();
  empty.nextAction = "   ";
  expectInvalid(empty, "next_action");
  expectInvalid(validRequest(0), "greater than zero");
  expectInvalid(validRequest(-5), "greater than zero");
  expectInvalid(validRequest(12 * 60 + 1), "12 hours");
  CommitmentRequest noTimebox = validRequest();
  noTimebox.timeboxMinutes.reset();
  expectInvalid(noTimebox, "timebox");
  CommitmentRequest longText = validRequest();
  longText.successCondition = std::string(501, 'x');
  expectInvalid(longText, "success_condition");
  // 500 characters of a 2-byte letter is still within the limit.
  CommitmentRequest wide = validRequest();
  wide.nextAction.clear();
  for (int i = 0; i < 500; ++i) wide.nextAction += "ñ";
  EXPECT_FALSE(controller_->startCommitment(wide));
}

TEST_F(ControllerTest, TwelveHoursExactlyIsAllowedAndSecondsWinOverMinutes) {
  ASSERT_FALSE(controller_->enterPlanning());
  CommitmentRequest request = validRequest(99);
  request.timeboxSecs = 12 * 3600;
  ASSERT_FALSE(controller_->startCommitment(request));
  EXPECT_EQ(controller_->state().commitment->timeboxSecs, 12 * 3600);
}

TEST_F(ControllerTest, AllowedAppsDefaultFromSettingsAndAreNormalized) {
  settings_.defaultAllowedApps = {"Emacs", " emacs ", "XTerm"};
  makeController();
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().defaultAllowedApps, ElementsAre("emacs", "xterm"));
  EXPECT_EQ(toJson(controller_->state())->getArray("default_allowed_apps")->size(), 2u);
  CommitmentRequest request = validRequest();
  request.allowedApps.reset();
  ASSERT_FALSE(controller_->startCommitment(request));
  EXPECT_THAT(controller_->state().commitment->allowedApps, ElementsAre("emacs", "xterm"));
}

TEST_F(ControllerTest, TimeboxExpiresOnTheMonotonicDeadline) {
  toActive(1);
  EXPECT_EQ(controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + 60'000);
  clock_.setUtcMs(clock_.nowUtcMs() + 3'600'000);  // a wall-clock jump does not expire it
  controller_->tick();
  EXPECT_EQ(runtime(), RuntimeState::Active);
  clock_.advance(59'999);
  controller_->tick();
  EXPECT_EQ(runtime(), RuntimeState::Active);
  EXPECT_EQ(controller_->state().remainingSecs, 1);
  clock_.advance(1);
  controller_->tick();
  EXPECT_EQ(runtime(), RuntimeState::Review);
  EXPECT_EQ(controller_->state().outcome, Outcome::Expired);
  EXPECT_EQ(seen_.back().runtime, RuntimeState::Review);
}

TEST_F(ControllerTest, EveryChangeIsPersistedAndRestoredActiveSessionResumes) {
  toActive(30);
  controller_->recordWindow(window("Code - Insiders", "index.js"));
  const State before = controller_->state();
  ASSERT_TRUE(snapshots_.json);
  EXPECT_EQ(snapshots_.last().runtime, RuntimeState::Active);

  clock_.advance(10 * 60'000);  // the daemon was down for ten minutes
  makeController();
  const std::string what = controller_->restore();
  EXPECT_THAT(what, HasSubstr("resumed"));
  const State after = controller_->state();
  ASSERT_EQ(after.runtime, RuntimeState::Active);
  EXPECT_EQ(after.commitment->id, before.commitment->id);
  EXPECT_EQ(after.remainingSecs, 20 * 60);
  EXPECT_EQ(controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + 20 * 60'000);
  clock_.advance(20 * 60'000);
  controller_->tick();
  EXPECT_EQ(controller_->state().outcome, Outcome::Expired);
}

TEST_F(ControllerTest, DeadlinePassedWhileDownExpiresIntoReviewOnRestore) {
  toActive(5);
  const std::int64_t deadline = controller_->state().commitment->deadlineMs;
  clock_.advance(60 * 60'000);
  makeController();
  EXPECT_THAT(controller_->restore(), HasSubstr("expired"));
  const State state = controller_->state();
  EXPECT_EQ(state.runtime, RuntimeState::Review);
  EXPECT_EQ(state.outcome, Outcome::Expired);
  EXPECT_EQ(state.endedAtMs, deadline);
  EXPECT_EQ(snapshots_.last().runtime, RuntimeState::Review);
  ASSERT_FALSE(controller_->end());
  EXPECT_EQ(audit_.records.at(0).endedAtMs, deadline);
}

TEST_F(ControllerTest, ARestoredSessionWhoseStartLiesAheadStillExpiresWithinItsTimebox) {
  // Issue 19 item 6 (review L6): the wall clock went back a year (or the
  // snapshot says the session starts next year): it still ends in 30 min.
  toActive(30);
  Snapshot snapshot = snapshots_.last();
  snapshot.commitment->startedAtMs += 365LL * 24 * 3600'000;
  snapshot.commitment->deadlineMs += 365LL * 24 * 3600'000;
  snapshots_.json = snapshotToJson(snapshot);
  makeController();
  EXPECT_THAT(controller_->restore(), HasSubstr("resumed"));
  EXPECT_LE(controller_->state().remainingSecs, 30 * 60);
  EXPECT_LE(controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + 30 * 60'000);
  clock_.advance(30 * 60'000);
  controller_->tick();
  EXPECT_EQ(controller_->state().outcome, Outcome::Expired);
}

TEST_F(ControllerTest, RestoreWithoutSnapshotStartsLocked) {
  EXPECT_THAT(controller_->restore(), HasSubstr("no snapshot"));
  EXPECT_EQ(runtime(), RuntimeState::Locked);
}

TEST_F(ControllerTest, RestoreOfAnUnreadableSnapshotThrows) {
  snapshots_.json = "{not json";
  EXPECT_THROW(controller_->restore(), std::exception);
}

TEST_F(ControllerTest, ReviewSurvivesRestartAndCarryForwardSurvivesEnd) {
  toActive();
  ASSERT_FALSE(controller_->complete());
  makeController();
  controller_->restore();
  EXPECT_EQ(controller_->state().outcome, Outcome::Completed);
}

TEST_F(ControllerTest, AFailedSnapshotWriteRefusesTheActionAndUndoesIt) {
  snapshots_.failSaves = true;  // issue 9 item 1; every action: crash_safety_test.cpp
  const ActionResult result = controller_->enterPlanning();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_EQ(runtime(), RuntimeState::Locked);
}

TEST_F(ControllerTest, AFailedSnapshotWriteOfAnObservationIsLoggedAndTheSessionGoesOn) {
  toActive();
  snapshots_.failSaves = true;
  controller_->recordWindow(window("Code - Insiders", "index.js"));
  EXPECT_EQ(runtime(), RuntimeState::Active);
  EXPECT_EQ(controller_->state().evidence.current->app, "code - insiders");
}

TEST_F(ControllerTest, AFailedAuditAppendKeepsTheSessionInReview) {
  toActive();
  ASSERT_FALSE(controller_->complete());
  audit_.failAppends = true;
  const ActionResult result = controller_->end();
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  EXPECT_EQ(runtime(), RuntimeState::Review);
  audit_.failAppends = false;
  EXPECT_FALSE(controller_->end());
  EXPECT_EQ(audit_.records.size(), 1u);
}

TEST_F(ControllerTest, ListenerRunsWithoutTheMutexHeld) {
  bool reentered = false;
  controller_->setChangeListener([&](const State&) {
    reentered = true;
    (void)controller_->state();  // would deadlock if the mutex were held
  });
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_TRUE(reentered);
}

// ---- Evidence ---------------------------------------------------------------------------

TEST_F(ControllerTest, ObservationsAreSanitizedAndShownWithHealth) {
  controller_->recordWindow(
      Observation{0, "  Firefox  ", std::string("Bad\xff\x01title"), "http", ""});
  const State state = controller_->state();
  ASSERT_TRUE(state.evidence.current);
  EXPECT_EQ(state.evidence.current->app, "firefox");
  EXPECT_EQ(state.evidence.current->title, "Bad\xEF\xBF\xBDtitle");
  EXPECT_EQ(state.evidence.current->atMs, clock_.nowUtcMs());
  EXPECT_EQ(state.evidence.source, "http");
  EXPECT_EQ(state.evidence.health, Health::Ok);
}

TEST_F(ControllerTest, HealthGoesStaleAfterThreeHeartbeatsAndTickAnnouncesIt) {
  // A watcher that posts (HTTP, ActivityWatch) is fresh only while it keeps posting.
  settings_.heartbeatSecs = 10;
  makeController();
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
  controller_->recordWindow(Observation{0, "xterm", "bash", "aw-watcher-window", ""});
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  EXPECT_EQ(controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + 30'000);
  clock_.advance(29'999);
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  clock_.advance(1);
  const std::size_t before = seen_.size();
  controller_->tick();
  EXPECT_EQ(controller_->state().evidence.health, Health::Stale);
  ASSERT_EQ(seen_.size(), before + 1);
  EXPECT_EQ(seen_.back().evidence.health, Health::Stale);
  controller_->tick();  // nothing new: no event
  EXPECT_EQ(seen_.size(), before + 1);
}

TEST_F(ControllerTest, ARunningSourceGoesStaleAfterThreeHeartbeatsDuringASession) {
  settings_.heartbeatSecs = 10;
  makeController();
  controller_->setSourceRunning("x11", true);
  EXPECT_EQ(controller_->state().evidence.health, Health::Stale);  // running, nothing seen yet
  controller_->recordWindow(window("qterminal", "bash"));
  toActive();
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::OnTask);
  clock_.advance(29'999);
  controller_->tick();
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  clock_.advance(1);
  controller_->tick();
  EXPECT_EQ(controller_->state().evidence.health, Health::Stale);
  EXPECT_EQ(controller_->state().drift.status,
            drift::DriftStatus::Unknown);  // no judgment without evidence
}

TEST_F(ControllerTest, ARunningSourceNeedsNoHeartbeatOutsideASession) {
  // Issue 8 item 2: no heartbeat and no health check wakes a locked daemon. A
  // running source reports every change at once, so its silence means no change.
  settings_.heartbeatSecs = 10;
  makeController();
  controller_->setSourceRunning("x11", true);
  controller_->recordWindow(window("qterminal", "bash"));
  EXPECT_FALSE(controller_->nextWakeMonotonicMs());  // nothing to do until something happens
  clock_.advance(3'600'000);
  controller_->tick();
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  // Start takes the window in front as just observed: judged at once, and
  // fresh for three heartbeats, by which time the source's heartbeat runs.
  toActive();
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::OnTask);
  ASSERT_TRUE(controller_->nextWakeMonotonicMs());
  EXPECT_LE(*controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + 30'000);
  // A stopped source is no evidence, in a session or not.
  ASSERT_FALSE(controller_->abandon());
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  controller_->setSourceRunning("x11", false);
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
}

TEST_F(ControllerTest, NoSourceAndNoObservationIsUnavailable) {
  controller_->setSourceRunning("x11", true);
  controller_->setSourceRunning("x11", false);
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
}

TEST_F(ControllerTest, TheCurrentWindowOfAStoppedSourceIsUnavailableUntilItRunsAgain) {
  controller_->setSourceRunning("sway", true);
  controller_->recordWindow(Observation{0, "foot", "first-window", "sway", ""});
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
  const std::size_t before = seen_.size();
  controller_->setSourceRunning("sway", false);  // sway exited: nobody watches that window
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
  ASSERT_EQ(seen_.size(), before + 1);
  EXPECT_EQ(seen_.back().evidence.health, Health::Unavailable);
  EXPECT_EQ(seen_.back().evidence.source, "sway");  // the page still says where it came from
  controller_->setSourceRunning("sway", true);      // a new sway: running, nothing seen yet
  EXPECT_NE(controller_->state().evidence.health, Health::Unavailable);
  controller_->recordWindow(Observation{0, "foot", "first-window", "sway", ""});
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
}

TEST_F(ControllerTest, AnotherSourcesObservationIsEvidenceWhileOneSourceIsStopped) {
  controller_->setSourceRunning("x11", true);
  controller_->recordWindow(window("xterm", "bash"));
  controller_->setSourceRunning("x11", false);
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
  controller_->recordWindow(Observation{0, "firefox", "Docs", "http", ""});
  EXPECT_EQ(controller_->state().evidence.health, Health::Ok);
}

TEST_F(ControllerTest, AStoppedSourceSuspendsDriftWhileActive) {
  controller_->setSourceRunning("sway", true);
  controller_->recordWindow(Observation{0, "qterminal", "bash", "sway", ""});
  toActive();
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::OnTask);
  controller_->setSourceRunning("sway", false);
  EXPECT_EQ(controller_->state().evidence.health, Health::Unavailable);
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::Unknown);
}

TEST_F(ControllerTest, AHeartbeatOfTheSameWindowWhileLockedIsNotAnEvent) {
  controller_->recordWindow(window("xterm", "bash"));
  const std::size_t before = seen_.size();
  clock_.advance(10'000);
  controller_->recordWindow(window("xterm", "bash"));
  EXPECT_EQ(seen_.size(), before);
  controller_->recordWindow(window("xterm", "vim"));
  EXPECT_EQ(seen_.size(), before + 1);
}

TEST_F(ControllerTest, StatsCountTimePerAppAndSwitchesWhileActive) {
  settings_.idleAfterSecs = 120;
  makeController();
  controller_->recordWindow(window("Code - Insiders", "index.js"));
  toActive();
  clock_.advance(30'000);
  controller_->recordWindow(window("Firefox", "YouTube"));
  clock_.advance(10'000);
  controller_->recordWindow(window("Code - Insiders", "index.js"));
  clock_.advance(500'000);  // longer than idle_after: only 120 s credited
  controller_->recordWindow(window("Code - Insiders", "index.js"));
  clock_.advance(5'000);
  ASSERT_FALSE(controller_->complete());
  const SessionStats stats = controller_->state().stats;
  EXPECT_EQ(stats.switches, 2);
  EXPECT_THAT(stats.topBucketsSecs(5),
              ElementsAre(Pair("code - insiders", 30 + 120 + 5), Pair("firefox", 10)));
  ASSERT_FALSE(controller_->end());
  EXPECT_THAT(audit_.records[0].topBuckets,
              ElementsAre(Pair("code - insiders", 155), Pair("firefox", 10)));
  EXPECT_EQ(audit_.records[0].switches, 2);
}

TEST_F(ControllerTest, AwayTimeIsNotCountedIntoBuckets) {
  toActive();
  controller_->recordWindow(window("xterm", "bash"));
  clock_.advance(20'000);
  controller_->setAway(true);
  clock_.advance(100'000);
  controller_->setAway(false);
  clock_.advance(5'000);
  ASSERT_FALSE(controller_->complete());
  const SessionStats stats = controller_->state().stats;
  EXPECT_THAT(stats.topBucketsSecs(5), ElementsAre(Pair("xterm", 25)));
  EXPECT_EQ(stats.awayMs, 100'000);
}

TEST_F(ControllerTest, DriftIsTheLocalMatchOnlyAndNeverJudgedOnMissingEvidence) {
  toActive();
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::Unknown);  // no evidence yet
  controller_->recordWindow(window("qterminal", "npm run develop"));
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::OnTask);
  controller_->recordWindow(window("Firefox", "Twitter"));
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::Unknown);
  controller_->recordWindow(window("qterminal", "npm run develop"));
  clock_.advance(60'000);  // evidence stale: the tick the daemon schedules notices it
  controller_->tick();
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::Unknown);
}

TEST_F(ControllerTest, HeartbeatsOfTheSameWindowPersistStatsAtABoundedRate) {
  int wakes = 0;
  controller_->setWakeHook([&wakes] { ++wakes; });
  toActive();
  controller_->recordWindow(window("code", "main.cpp"));
  clock_.advance(Controller::kWriteBehindMs);
  controller_->tick();  // the switch's write-behind
  const int afterSwitch = snapshots_.saves;
  clock_.advance(10'000);
  controller_->recordWindow(window("code", "main.cpp"));
  EXPECT_EQ(snapshots_.saves, afterSwitch);  // 10 s: no fsync per heartbeat
  EXPECT_EQ(wakes, 0);
  clock_.advance(20'000);
  controller_->recordWindow(window("code", "main.cpp"));
  // 30 s: a write is scheduled (write-behind), and the ticker told so,
  // though nothing visible changed and nothing was announced.
  EXPECT_EQ(wakes, 1);
  EXPECT_EQ(controller_->nextWakeMonotonicMs(), clock_.monotonicMs() + Controller::kWriteBehindMs);
  EXPECT_EQ(snapshots_.saves, afterSwitch);
  clock_.advance(Controller::kWriteBehindMs);
  controller_->tick();
  EXPECT_EQ(snapshots_.saves, afterSwitch + 1);
  // A crash now loses nothing of those 30 s: a restart sees them.
  makeController();
  controller_->restore();
  EXPECT_EQ(controller_->state().stats.bucketsMs.at("code"), 31'000);
}

TEST_F(ControllerTest, AHeartbeatThatChangesNothingVisibleAnnouncesNothing) {
  toActive();
  controller_->recordWindow(window("qterminal", "npm run develop"));
  const std::size_t announced = seen_.size();
  const std::uint64_t version = controller_->state().version;
  for (int i = 0; i < 5; ++i) {
    clock_.advance(1'000);
    controller_->recordWindow(window("qterminal", "npm run develop"));
  }
  EXPECT_EQ(seen_.size(), announced);
  EXPECT_EQ(controller_->state().version, version);
  // The stats still moved; the next announced State carries them.
  EXPECT_EQ(controller_->state().stats.bucketsMs.at("qterminal"), 5'000);
  controller_->recordWindow(window("code - insiders", "main.cpp"));
  ASSERT_EQ(seen_.size(), announced + 1);
  EXPECT_EQ(seen_.back().stats.bucketsMs.at("qterminal"), 5'000);
}

TEST_F(ControllerTest, AWindowChangeIsAnnouncedBeforeItsCoalescedWriteBehind) {
  toActive();
  const int afterStart = snapshots_.saves;  // the transition was durable at once
  std::vector<int> savesWhenAnnounced;
  controller_->setChangeListener([this, &savesWhenAnnounced](const State&) {
    savesWhenAnnounced.push_back(snapshots_.saves);
  });
  controller_->recordWindow(window("qterminal", "npm run develop"));
  clock_.advance(300);
  controller_->recordWindow(window("code - insiders", "main.cpp"));
  clock_.advance(300);
  controller_->recordWindow(window("qterminal", "git status"));
  EXPECT_THAT(savesWhenAnnounced, ElementsAre(afterStart, afterStart, afterStart));
  // One write for all three, due kWriteBehindMs after the first.
  EXPECT_EQ(controller_->nextWakeMonotonicMs(),
            clock_.monotonicMs() - 600 + Controller::kWriteBehindMs);
  clock_.advance(399);
  controller_->tick();
  EXPECT_EQ(snapshots_.saves, afterStart);
  clock_.advance(1);
  controller_->tick();
  EXPECT_EQ(snapshots_.saves, afterStart + 1);
  EXPECT_EQ(snapshots_.last().stats.switches, controller_->state().stats.switches);
  controller_->tick();
  EXPECT_EQ(snapshots_.saves, afterStart + 1);  // nothing pending any more
}

TEST_F(ControllerTest, FlushWritesAPendingWriteBehindAndATransitionCarriesIt) {
  toActive();
  const int afterStart = snapshots_.saves;
  controller_->flush();
  EXPECT_EQ(snapshots_.saves, afterStart);  // nothing pending: no write
  controller_->recordWindow(window("qterminal", "npm run develop"));
  controller_->flush();
  EXPECT_EQ(snapshots_.saves, afterStart + 1);
  controller_->recordWindow(window("code - insiders", "main.cpp"));
  ASSERT_FALSE(controller_->extend(5));  // durable before it returns, window change included
  EXPECT_EQ(snapshots_.saves, afterStart + 2);
  EXPECT_EQ(snapshots_.last().commitment->extendedSecs, 300);
  controller_->flush();
  EXPECT_EQ(snapshots_.saves, afterStart + 2);
}

// Issue 17 item 4: a clean stop credits the window in front and the open
// drifting time up to the stop, and writes them; a restart does not credit
// the time the daemon was down.
TEST_F(ControllerTest, FlushForShutdownCreditsTheSessionUpToTheStopAndWritesIt) {
  settings_.blockedApps = {"steam"};
  makeController();
  toActive();
  controller_->recordWindow(window("steam", "Store"));
  ASSERT_EQ(controller_->state().drift.status, drift::DriftStatus::Drifting);
  clock_.advance(20'000);
  const int before = snapshots_.saves;
  controller_->flushForShutdown();
  ASSERT_EQ(snapshots_.saves, before + 1);
  EXPECT_EQ(snapshots_.last().stats.bucketsMs.at("steam"), 20'000);
  EXPECT_EQ(snapshots_.last().stats.driftEpisodes, 1);
  EXPECT_EQ(snapshots_.last().stats.driftMs, 20'000);

  clock_.advance(60'000);  // the daemon is down
  makeController();
  controller_->restore();
  ASSERT_EQ(runtime(), RuntimeState::Active);
  clock_.advance(5'000);
  controller_->recordWindow(window("steam", "Store"));
  EXPECT_EQ(controller_->state().stats.bucketsMs.at("steam"), 20'000);
  EXPECT_EQ(controller_->state().stats.driftMs, 20'000);
}

TEST_F(ControllerTest, FlushForShutdownOutsideASessionWritesOnlyWhatIsPending) {
  const int before = snapshots_.saves;
  controller_->flushForShutdown();
  EXPECT_EQ(snapshots_.saves, before);
}

TEST_F(ControllerTest, CommitmentTextIsSanitizedAndTrimmedBeforeValidation) {
  ASSERT_FALSE(controller_->enterPlanning());
  CommitmentRequest request = validRequest();
  request.nextAction = std::string("  Write\n the\x1b[31m report\0 \xff ", 28);
  request.successCondition = "   ";
  request.allowedApps = std::vector<std::string>{"", "  ", "Code"};
  ASSERT_FALSE(controller_->startCommitment(request));
  const Commitment commitment = *controller_->state().commitment;
  EXPECT_EQ(commitment.nextAction, "Write the[31m report \xEF\xBF\xBD");
  EXPECT_EQ(commitment.successCondition, "");
  EXPECT_THAT(commitment.allowedApps, ElementsAre("code"));
}

TEST_F(ControllerTest, AControlCharacterOnlyNextActionIsEmpty) {
  ASSERT_FALSE(controller_->enterPlanning());
  CommitmentRequest request = validRequest();
  request.nextAction = "\n\t\x1b";
  const ActionResult result = controller_->startCommitment(request);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Validation);
}

TEST_F(ControllerTest, ImplausibleWatcherTimestampsFallBackToReceiptTime) {
  controller_->recordWindow(Observation{clock_.nowUtcMs() + 3'600'000, "a", "t", "http", ""});
  EXPECT_EQ(controller_->state().evidence.current->atMs, clock_.nowUtcMs());
  controller_->recordWindow(Observation{clock_.nowUtcMs() - 1'000, "b", "t", "http", ""});
  EXPECT_EQ(controller_->state().evidence.current->atMs, clock_.nowUtcMs() - 1'000);
}

TEST_F(ControllerTest, StateJsonCarriesTheDocumentedShape) {
  toActive();
  controller_->recordWindow(window("qterminal", "npm"));
  const auto json = toJson(controller_->state());
  EXPECT_EQ(json->getValue<std::string>("runtime"), "active");
  const auto commitment = json->getObject("commitment");
  ASSERT_TRUE(commitment);
  EXPECT_EQ(commitment->getValue<std::int64_t>("remaining_secs"), 25 * 60);
  EXPECT_EQ(json->getObject("evidence")->getValue<std::string>("health"), "ok");
  EXPECT_EQ(json->getObject("evidence")->getObject("current")->getValue<std::string>("app"),
            "qterminal");
  EXPECT_EQ(json->getObject("drift")->getValue<std::string>("status"), "ontask");
  EXPECT_FALSE(json->has("outcome"));
  EXPECT_EQ(json->getObject("ai")->getValue<bool>("available"), false);
  ASSERT_FALSE(controller_->complete());
  const auto review = toJson(controller_->state());
  EXPECT_EQ(review->getValue<std::string>("outcome"), "completed");
  EXPECT_FALSE(review->has("drift"));
  EXPECT_EQ(review->getObject("reflection")->getValue<std::string>("status"), "absent");
}

// ---- Planning helps choose allowed apps (issue 6 item 8) ----------------------------------

TEST_F(ControllerTest, PlanningOffersRecentAppsThenAppsOfRecentSessions) {
  SessionSummary earlier;
  earlier.id = "s1";
  earlier.topBuckets = {{"inkscape", 600}, {"code", 300}};
  audit_.append(earlier);
  controller_->recordWindow(window("Code", "index.js"));
  clock_.advance(1000);
  controller_->recordWindow(window("Firefox", "Gatsby docs"));
  clock_.advance(1000);
  controller_->recordWindow(window("", ""));  // an unreadable window is no choice
  ASSERT_FALSE(controller_->enterPlanning());
  // Most recent first, then the older sessions' apps, each app once.
  EXPECT_THAT(controller_->state().appChoices, ElementsAre("firefox", "code", "inkscape"));
}

TEST_F(ControllerTest, APlanningRestoredAfterARestartStillOffersTheAppsOfRecentSessions) {
  SessionSummary earlier;
  earlier.id = "s1";
  earlier.topBuckets = {{"code", 600}, {"inkscape", 300}};
  audit_.append(earlier);
  ASSERT_FALSE(controller_->enterPlanning());
  executor_.runAll();
  makeController();  // the daemon restarted in planning (issue 17, re-walk)
  EXPECT_THAT(controller_->restore(), HasSubstr("planning"));
  EXPECT_THAT(controller_->state().appChoices, ElementsAre("code", "inkscape"));
}

TEST_F(ControllerTest, AppsSeenLongAgoAreNoLongerOffered) {
  controller_->recordWindow(window("Zoom", "Meeting"));
  clock_.advance(Controller::kRecentAppsMs + 1);
  controller_->recordWindow(window("Code", "index.js"));
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().appChoices, ElementsAre("code"));
}

// Issue 17 item 4 ("app names posted over HTTP appear in Seen recently"):
// while a built-in window source runs, "Seen recently" offers what it saw,
// not names a client posted to POST /evidence/window; those still count in
// the session's stats like any evidence.
TEST_F(ControllerTest, SeenRecentlyOffersWhatTheRunningWindowSourceSawNotPostedNames) {
  controller_->setSourceRunning("x11", true);
  controller_->recordWindow(window("Code", "index.js"));
  clock_.advance(1000);
  controller_->recordWindow(Observation{0, "made-up-by-a-test", "Title", "http", ""});
  clock_.advance(1000);
  controller_->recordWindow(Observation{0, "xterm", "bash", "activitywatch", ""});
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().appChoices, ElementsAre("code"));

  ASSERT_FALSE(controller_->startCommitment(validRequest()));
  controller_->recordWindow(Observation{0, "made-up-by-a-test", "Title", "http", ""});
  clock_.advance(5000);
  controller_->recordWindow(window("Code", "index.js"));
  EXPECT_EQ(controller_->state().stats.bucketsMs.at("made-up-by-a-test"), 5000);
}

TEST_F(ControllerTest, WithNoBuiltInSourceTheOutsideWatchersNamesAreOffered) {
  // evidence.source = none: POST /evidence/window (a compositor script) is the window source.
  controller_->recordWindow(Observation{0, "foot", "bash", "http", ""});
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().appChoices, ElementsAre("foot"));
}

TEST_F(ControllerTest, TheLastAllowedListIsRememberedAcrossEndAndRestart) {
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_TRUE(controller_->state().lastAllowedApps.empty());
  ASSERT_FALSE(controller_->startCommitment(validRequest()));
  ASSERT_FALSE(controller_->complete());
  ASSERT_FALSE(controller_->end());
  makeController();  // a restart reads the snapshot
  controller_->restore();
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().lastAllowedApps, ElementsAre("code - insiders", "qterminal"));
}

TEST_F(ControllerTest, StateSaysWhyAiIsUnavailableAndWhatToDo) {
  EXPECT_FALSE(controller_->state().ai.available);
  EXPECT_THAT(controller_->state().ai.detail, HasSubstr("ai.backend = none"));
  controller_->setBackend(nullptr, "claude not found on PATH: install Claude Code");
  EXPECT_EQ(controller_->state().ai.detail, "claude not found on PATH: install Claude Code");
}

}  // namespace
}  // namespace antidrift
