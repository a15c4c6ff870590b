// Issue 15 item 2: the Controller's mutable state is one value, so the
// rollback of an action whose snapshot write fails is one assignment
// (docs/DESIGN.md §9). Proven from the outside: for every action that writes
// a snapshot, from a state where that action changes as much as it can (a
// window in front, the person away and back, a judge verdict, a reflection,
// an answer), a failed write leaves the whole State JSON byte-identical, and
// the timeline, the next wake time and the snapshot on disk as they were.
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <Poco/JSON/Stringifier.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "antidrift/session/state.h"
#include "antidrift/wire/json.h"
#include "mocks/scripted_backend.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using test::ScriptedBackend;

const char* kOffTask = R"({"on_task": false, "reason": "YouTube is not the Gatsby site"})";
const char* kReflection =
    R"({"recap": "You drifted to YouTube once but finished.", "carry_forward": "Close the browser first."})";

std::string jsonOf(const State& state) {
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(toJson(state), out);
  return out.str();
}

/// Everything a client or the ticker can read of the Controller, as text.
struct Seen {
  std::string state;
  std::vector<TimelineSpan> timeline;
  std::optional<std::int64_t> wake;
  std::string onDisk;
  int saves;

  bool operator==(const Seen& other) const {
    return state == other.state && timeline == other.timeline && wake == other.wake &&
           onDisk == other.onDisk && saves == other.saves;
  }
};

class RollbackTest : public test::ControllerFixture {
 protected:
  RollbackTest() {
    settings_.judgeDwellSecs = 0;
    backend_ = std::make_shared<ScriptedBackend>();
    backend_->answer("judge", kOffTask);
    backend_->answer("reviewer", kReflection);
    backend_->answer("nudge", R"({"on_track": true, "message": ""})");
    makeControllerWithBackend(backend_, "scripted");
  }

  Seen seen() const {
    return Seen{jsonOf(controller_->state()), controller_->timeline(),
                controller_->nextWakeMonotonicMs(), snapshots_.json.value_or(""), snapshots_.saves};
  }

  void see(const std::string& app, const std::string& title) {
    controller_->recordWindow(Observation{0, app, title, "x11", ""});
  }

  std::shared_ptr<ScriptedBackend> backend_;
};

class EveryActionRollsBack;

/// One action whose snapshot write fails, from the state `setUp` reaches.
struct RollbackCase {
  const char* name;
  void (EveryActionRollsBack::*setUp)();
  std::function<ActionResult(Controller&)> act;
};

/// gtest prints a case by its name.
void PrintTo(const RollbackCase& rollbackCase, std::ostream* out) {
  *out << rollbackCase.name;
}

CommitmentRequest request(const std::string& nextAction) {
  CommitmentRequest request;
  request.nextAction = nextAction;
  request.successCondition = "Transitions work";
  request.timeboxMinutes = 50;
  request.allowedApps = std::vector<std::string>{"Code - Insiders", "qterminal"};
  return request;
}

class EveryActionRollsBack : public RollbackTest,
                             public ::testing::WithParamInterface<RollbackCase> {
 public:
  // The set-ups, public so that the cases below can name them.
  void locked() {
    // A window in front and a source running: Start has evidence to count.
    controller_->setSourceRunning("x11", true);
    see("Code - Insiders", "index.js — chango.dev");
  }
  void planning() {
    locked();
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();
  }
  void active() {
    planning();
    ASSERT_FALSE(controller_->startCommitment(request("Add page transitions to chango.dev")));
    clock_.advance(60'000);
    see("Code - Insiders", "gatsby-browser.js — chango.dev");
    clock_.advance(30'000);
    controller_->setAway(true);
    clock_.advance(30'000);
    controller_->setAway(false);
    see("Firefox", "Cats - YouTube — Mozilla Firefox");
    executor_.runAll();  // the judge: off task, drifting
    clock_.advance(45'000);
    see("Firefox", "Cats - YouTube — Mozilla Firefox");
  }
  void review() {
    active();
    ASSERT_FALSE(controller_->complete());
    executor_.runAll();  // the reflection is ready
  }
};

TEST_P(EveryActionRollsBack, AFailedWriteLeavesTheStateJsonByteIdentical) {
  (this->*GetParam().setUp)();
  executor_.runAll();
  const Seen before = seen();
  const std::size_t auditBefore = audit_.records.size();
  snapshots_.failSaves = true;

  const ActionResult result = GetParam().act(*controller_);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, ErrorKind::Storage);
  executor_.runAll();  // whatever the undone action launched comes back: discarded

  const Seen after = seen();
  EXPECT_EQ(after.state, before.state);
  EXPECT_TRUE(after == before);

  // The same action with space again succeeds and changes what is shown,
  // so the comparison above could have failed.
  snapshots_.failSaves = false;
  ASSERT_FALSE(GetParam().act(*controller_));
  EXPECT_NE(seen().state, before.state);
  EXPECT_LE(audit_.records.size(), auditBefore + 1);  // End appends once, even after a retry
}

using T = EveryActionRollsBack;

INSTANTIATE_TEST_SUITE_P(
    EveryAction, EveryActionRollsBack,
    ::testing::Values(
        RollbackCase{"EnterPlanning", &T::locked, [](Controller& c) { return c.enterPlanning(); }},
        RollbackCase{"CancelPlanning", &T::planning,
                     [](Controller& c) { return c.cancelPlanning(); }},
        RollbackCase{"Start", &T::planning,
                     [](Controller& c) { return c.startCommitment(request("Write the test")); }},
        RollbackCase{"Complete", &T::active, [](Controller& c) { return c.complete(); }},
        RollbackCase{"Abandon", &T::active, [](Controller& c) { return c.abandon(); }},
        RollbackCase{"Extend", &T::active, [](Controller& c) { return c.extend(15); }},
        RollbackCase{"Refocus", &T::active, [](Controller& c) { return c.refocus(); }},
        RollbackCase{"MarkOnTask", &T::active, [](Controller& c) { return c.markOnTask(); }},
        RollbackCase{"AnswerReview", &T::review,
                     [](Controller& c) {
                       return c.answerReview(ReviewAnswer{"partly", "half of it"});
                     }},
        RollbackCase{"End", &T::review, [](Controller& c) { return c.end(); }}),
    [](const ::testing::TestParamInfo<RollbackCase>& info) { return info.param.name; });

}  // namespace
}  // namespace antidrift
