// The planning coach, tasks and profile flows of seed 003 / docs/DESIGN.md §6, driven
// through the Controller with a ManualExecutor so every ordering is chosen by
// the test.
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/TemporaryFile.h>

#include "antidrift/session/controller.h"
#include "antidrift/wire/json.h"
#include "mocks/mock_backend.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using test::MockBackend;
using ::testing::_;
using ::testing::HasSubstr;
using ::testing::NiceMock;
using ::testing::Not;
using ::testing::Return;
using ::testing::StrictMock;
using ::testing::Throw;

const char* kProposal =
    R"({"next_action": "Draft the summary", "success_condition": "Three paragraphs", "timebox_minutes": 25})";

class CoachFlowTest : public test::ControllerFixture {
 protected:
  void make(std::shared_ptr<Backend> backend) {
    const std::string name = backend ? "mock" : "none";
    makeControllerWithBackend(std::move(backend), name);
  }
  void plan() {
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();  // tasks and profile fetches
  }
  CoachView coach() const { return controller_->state().coach; }
};

TEST_F(CoachFlowTest, ProposalGoesPendingThenReady) {
  auto backend = std::make_shared<StrictMock<MockBackend>>();
  EXPECT_CALL(*backend, complete(HasSubstr("sharpen the report"), 30'000))
      .WillOnce(Return(std::string("Sure! ```json\n") + kProposal + "\n```"));
  make(backend);
  plan();
  EXPECT_EQ(coach().status, AsyncStatus::Idle);
  ASSERT_FALSE(controller_->requestCoach("sharpen the report"));
  EXPECT_EQ(coach().status, AsyncStatus::Pending);
  EXPECT_EQ(seen_.back().coach.status, AsyncStatus::Pending);
  ASSERT_EQ(executor_.runAll(), 1u);
  const CoachView view = coach();
  EXPECT_EQ(view.status, AsyncStatus::Ready);
  ASSERT_TRUE(view.proposal);
  EXPECT_EQ(view.proposal->nextAction, "Draft the summary");
  EXPECT_EQ(view.proposal->timeboxSecs, 25 * 60);
  EXPECT_EQ(seen_.back().coach.status, AsyncStatus::Ready);
  const auto json = toJson(controller_->state());
  EXPECT_EQ(json->getObject("coach")->getObject("proposal")->getValue<int>("timebox_secs"), 1500);
}

// Issue 18 item 4: the coach's call is counted while planning (State ai.cost)
// and goes with the session it planned (stats.ai_cost).
TEST_F(CoachFlowTest, TheCoachsCostIsShownInPlanningAndCountedWithTheSessionItPlans) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  const std::string answer = std::string("Sure! ```json\n") + kProposal + "\n```";
  ON_CALL(*backend, complete(_, _)).WillByDefault(Return(answer));
  make(backend);
  plan();
  EXPECT_EQ(controller_->state().ai.cost.calls, 0);
  ASSERT_FALSE(controller_->requestCoach("sharpen the report"));
  ASSERT_EQ(executor_.runAll(), 1u);
  const AiCost planning = controller_->state().ai.cost;
  EXPECT_EQ(planning.calls, 1);
  EXPECT_TRUE(planning.estimated);  // MockBackend keeps the ABI's estimating answer()
  EXPECT_EQ(planning.outputTokens, static_cast<std::int64_t>((answer.size() + 3) / 4));
  EXPECT_GT(planning.inputTokens, 0);
  EXPECT_FALSE(controller_->startCommitment(commitmentRequest("Draft", "Done", 25)));
  const State active = controller_->state();
  EXPECT_EQ(active.stats.aiCost, planning);
  EXPECT_EQ(active.ai.cost, planning);
  EXPECT_EQ(toJson(active)->getObject("stats")->getObject("ai_cost")->getValue<int>("calls"), 1);
}

TEST_F(CoachFlowTest, BackendErrorBecomesAShortErrorStatus) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(_, _)).WillByDefault(Throw(BackendError("claude not found")));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("x"));
  executor_.runAll();
  EXPECT_EQ(coach().status, AsyncStatus::Error);
  EXPECT_THAT(coach().error, HasSubstr("claude not found"));
  EXPECT_EQ(controller_->state().runtime, RuntimeState::Planning);
}

TEST_F(CoachFlowTest, GarbageIsAnErrorAndManualPlanningStillWorks) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(_, _)).WillByDefault(Return(std::string("I cannot help with that")));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("x"));
  executor_.runAll();
  EXPECT_EQ(coach().status, AsyncStatus::Error);
  CommitmentRequest manual;
  manual.nextAction = "Write it myself";
  manual.timeboxMinutes = 10;
  EXPECT_FALSE(controller_->startCommitment(manual));
}

TEST_F(CoachFlowTest, NoBackendIsCoachUnavailableAndSucceeds) {
  make(nullptr);
  plan();
  EXPECT_FALSE(controller_->requestCoach("x"));
  EXPECT_EQ(coach().status, AsyncStatus::Error);
  EXPECT_EQ(coach().error, "coach unavailable");
  EXPECT_EQ(executor_.pending(), 0u);
}

TEST_F(CoachFlowTest, OutsidePlanningIsNotPlanningAndStartsNothing) {
  auto backend = std::make_shared<StrictMock<MockBackend>>();
  make(backend);
  const ActionResult result = controller_->requestCoach("x");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::NotPlanning);
  EXPECT_EQ(executor_.pending(), 0u);
  EXPECT_TRUE(seen_.empty());
}

TEST_F(CoachFlowTest, EmptyOrHugeIntentIsAValidationError) {
  make(nullptr);
  plan();
  EXPECT_EQ(controller_->requestCoach("  ")->kind, ErrorKind::Validation);
  EXPECT_EQ(controller_->requestCoach(std::string(2001, 'x'))->kind, ErrorKind::Validation);
  EXPECT_EQ(coach().status, AsyncStatus::Idle);
}

TEST_F(CoachFlowTest, OneCallAtATimeAndANewRequestAfterItWins) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(HasSubstr("first"), _))
      .WillByDefault(Return(std::string(
          R"({"next_action": "OLD", "success_condition": "old", "timebox_minutes": 5})")));
  ON_CALL(*backend, complete(HasSubstr("second"), _)).WillByDefault(Return(std::string(kProposal)));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("first"));
  const ActionResult busy = controller_->requestCoach("second");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->kind, ErrorKind::Busy);
  EXPECT_EQ(executor_.pending(), 1u);  // no second backend call was queued
  ASSERT_TRUE(executor_.runOne());
  EXPECT_EQ(coach().proposal->nextAction, "OLD");
  ASSERT_FALSE(controller_->requestCoach("second"));
  ASSERT_TRUE(executor_.runOne());
  EXPECT_EQ(coach().proposal->nextAction, "Draft the summary");
}

TEST_F(CoachFlowTest, AResultFromBeforeLeavingAndReEnteringPlanningIsDiscarded) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(_, _)).WillByDefault(Return(std::string(kProposal)));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("first"));
  ASSERT_FALSE(controller_->cancelPlanning());
  ASSERT_FALSE(controller_->enterPlanning());
  ASSERT_FALSE(controller_->requestCoach("second"));  // not busy: the old call is stale
  ASSERT_TRUE(executor_.runOne());                    // the stale answer arrives first
  EXPECT_EQ(coach().status, AsyncStatus::Pending);
  executor_.runAll();
  EXPECT_EQ(coach().status, AsyncStatus::Ready);
}

TEST_F(CoachFlowTest, LeavingPlanningDiscardsThePendingProposal) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(_, _)).WillByDefault(Return(std::string(kProposal)));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("x"));
  ASSERT_FALSE(controller_->cancelPlanning());
  const std::size_t events = seen_.size();
  executor_.runAll();
  EXPECT_EQ(seen_.size(), events);  // the stale result notified nobody
  EXPECT_FALSE(toJson(controller_->state())->has("coach"));
  plan();
  EXPECT_EQ(coach().status, AsyncStatus::Idle);
}

TEST_F(CoachFlowTest, CoachIsNeverPersisted) {
  auto backend = std::make_shared<NiceMock<MockBackend>>();
  ON_CALL(*backend, complete(_, _)).WillByDefault(Return(std::string(kProposal)));
  make(backend);
  plan();
  ASSERT_FALSE(controller_->requestCoach("x"));
  executor_.runAll();
  ASSERT_TRUE(snapshots_.json);
  EXPECT_THAT(*snapshots_.json, Not(HasSubstr("Draft the summary")));
}

class GroundingTest : public CoachFlowTest {
 protected:
  GroundingTest() {
    std::ofstream(todo_.path()) << "(A) Call the bank +money @phone due:2026-12-01\n"
                                << "x 2026-11-01 done already\n"
                                << "Write the report +work\n";
    std::ofstream(profile_.path()) << "I work best in 25-minute blocks.\n";
    settings_.todoTxtPath = todo_.path();
    settings_.profilePath = profile_.path();
  }
  Poco::TemporaryFile todo_;
  Poco::TemporaryFile profile_;
};

TEST_F(GroundingTest, EnteringPlanningLoadsTasksAndProfile) {
  make(nullptr);
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_EQ(controller_->state().tasks.status, GroundingStatus::Pending);
  EXPECT_EQ(controller_->state().profile.status, GroundingStatus::Pending);
  EXPECT_EQ(executor_.runAll(), 2u);
  const State state = controller_->state();
  EXPECT_EQ(state.tasks.status, GroundingStatus::Ready);
  ASSERT_EQ(state.tasks.items.size(), 2u);
  EXPECT_EQ(state.tasks.items[0].priority, 'A');
  EXPECT_EQ(state.profile.status, GroundingStatus::Ready);
  EXPECT_EQ(state.profile.bytes, 33u);
  const auto json = toJson(state);
  EXPECT_EQ(json->getObject("knowledge")->getObject("profile")->getValue<int>("bytes"), 33);
  EXPECT_THAT(Poco::JSON::Object::Ptr(json)->getObject("knowledge")->has("text"), false);
}

TEST_F(GroundingTest, ProfileAndCarryForwardReachTheCoachPrompt) {
  auto backend = std::make_shared<StrictMock<MockBackend>>();
  EXPECT_CALL(*backend, complete(::testing::AllOf(HasSubstr("25-minute blocks"),
                                                  HasSubstr("Start with the hardest paragraph")),
                                 _))
      .WillOnce(Return(std::string(kProposal)));
  Snapshot earlier;
  earlier.lastCarryForward = "Start with the hardest paragraph";
  snapshots_.save(earlier);
  make(backend);
  controller_->restore();
  plan();
  ASSERT_FALSE(controller_->requestCoach("x"));
  executor_.runAll();
  EXPECT_EQ(coach().status, AsyncStatus::Ready);
}

TEST_F(GroundingTest, MissingFilesAreAQuietNone) {
  settings_.todoTxtPath = "/nonexistent/todo.txt";
  settings_.profilePath = "";
  make(nullptr);
  plan();
  EXPECT_EQ(controller_->state().tasks.status, GroundingStatus::None);
  EXPECT_EQ(controller_->state().profile.status, GroundingStatus::None);
}

}  // namespace
}  // namespace antidrift
