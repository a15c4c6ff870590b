// A review that teaches (issue 17 item 5), through the Controller: where the
// drift went per site (aggregated over separate drifts to one site), the
// longest on-task stretch, both in the State, the audit record and the
// history view; the Reviewer hears them with the person's answer and note,
// fenced as data; without the AI the carry-forward still uses the answer and
// note, and follows a later answer.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "antidrift/session/history_view.h"
#include "antidrift/wire/json.h"
#include "mocks/scripted_backend.h"
#include "unit/ai/fenced_text.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using test::fencedBody;
using test::ScriptedBackend;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* kOffTask = R"({"on_task": false, "reason": "cat videos are not the report"})";
const char* kReflection =
    R"({"recap": "Two trips to Catflix.", "carry_forward": "Close it first."})";
constexpr std::int64_t kMin = 60'000;

class ReviewTeachesTest : public test::ControllerFixture {
 protected:
  ReviewTeachesTest() {
    settings_.judgeDwellSecs = 0;
    settings_.blockedApps = {"steam"};
    backend_ = std::make_shared<ScriptedBackend>();
    backend_->answer("judge", kOffTask);
    backend_->answer("reviewer", kReflection);
  }

  void start(bool withAi) {
    executor_.runAll();
    makeControllerWithBackend(withAi ? backend_ : nullptr, withAi ? "scripted" : "none");
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();
    ASSERT_FALSE(controller_->startCommitment(
        commitmentRequest("Draft the report", "Three paragraphs", 30, {{"code"}})));
  }

  void see(const std::string& app, const std::string& title) {
    controller_->recordWindow(Observation{0, app, title, "x11", ""});
    executor_.runAll();
  }

  /// code 2 min → Catflix 1 min → code 1 min → another Catflix page 2 min → Complete.
  void driftTwiceToOneSite() {
    see("code", "report.md");
    clock_.advance(2 * kMin);
    see("firefox", "Cats - Catflix — Mozilla Firefox");
    clock_.advance(1 * kMin);
    see("code", "report.md");
    clock_.advance(1 * kMin);
    see("firefox", "Dogs - Catflix — Mozilla Firefox");
    clock_.advance(2 * kMin);
    ASSERT_FALSE(controller_->complete());
    executor_.runAll();
  }

  std::shared_ptr<ScriptedBackend> backend_;
};

TEST_F(ReviewTeachesTest, TheReviewSaysWhereTheDriftWentAndTheLongestStretch) {
  start(true);
  const std::int64_t startedAt = clock_.nowUtcMs();
  driftTwiceToOneSite();
  const State state = controller_->state();
  ASSERT_TRUE(state.focus);
  EXPECT_THAT(state.focus->driftBySite, ElementsAre(SiteDrift{"catflix", 3 * kMin, 2}));
  EXPECT_EQ(state.focus->longest, (OnTaskStretch{2 * kMin, startedAt, startedAt + 2 * kMin}));
  const auto json = toJson(state);
  ASSERT_TRUE(json->has("drift_by_site"));
  EXPECT_EQ(json->getArray("drift_by_site")->getObject(0)->getValue<std::int64_t>("drift_secs"),
            180);
  EXPECT_EQ(json->getObject("longest_on_task")->getValue<std::int64_t>("secs"), 120);

  // The record keeps both; the history view and the export show them.
  ASSERT_FALSE(controller_->end());
  ASSERT_EQ(audit_.records.size(), 1u);
  const SessionSummary& record = audit_.records.back();
  ASSERT_TRUE(record.driftBySite);
  EXPECT_THAT(*record.driftBySite, ElementsAre(SiteDrift{"catflix", 3 * kMin, 2}));
  ASSERT_TRUE(record.longestStretch);
  EXPECT_EQ(record.longestStretch->onTaskMs, 2 * kMin);
  const SessionSummary reread = summaryFromJsonLine(toJsonLine(record));
  EXPECT_EQ(computeHash(reread), reread.hash);
  EXPECT_THAT(*reread.driftBySite, ElementsAre(SiteDrift{"catflix", 3 * kMin, 2}));
  const auto view = sessionViewJson(reread);
  EXPECT_EQ(view->getArray("drift_by_site")->getObject(0)->getValue<std::string>("where"),
            "catflix");
  EXPECT_EQ(view->getArray("drift_by_site")->getObject(0)->getValue<std::int64_t>("visits"), 2);
  EXPECT_THAT(exportHistory({reread}, ExportFormat::Markdown),
              HasSubstr("catflix 3 min over 2 visits"));
}

// The re-walk of issue 17 item 4: a daemon restart in the middle of a stay
// in one window continues it — no new visit, no new drift episode, no new
// judge call; leaving and coming back is a new visit as ever.
TEST_F(ReviewTeachesTest, ARestartMidStayContinuesTheVisitAndTheDriftEpisode) {
  start(true);
  see("code", "report.md");
  clock_.advance(kMin);
  see("firefox", "Cats - Catflix — Mozilla Firefox");
  ASSERT_EQ(controller_->state().drift.status, drift::DriftStatus::Drifting);
  const std::string reason = controller_->state().drift.reason;
  clock_.advance(kMin);
  controller_->flushForShutdown();  // SIGTERM
  clock_.advance(30'000);           // the daemon is down
  makeControllerWithBackend(backend_, "scripted");
  controller_->restore();
  see("firefox", "Cats - Catflix — Mozilla Firefox");  // the source's first report
  EXPECT_EQ(controller_->state().drift.status, drift::DriftStatus::Drifting);
  EXPECT_EQ(controller_->state().drift.reason, reason);
  clock_.advance(kMin);
  see("firefox", "Cats - Catflix — Mozilla Firefox");
  EXPECT_EQ(controller_->state().stats.driftEpisodes, 1);
  EXPECT_EQ(backend_->calls("judge"), 1u);

  see("code", "report.md");  // leaving and coming back is a new visit, as ever
  clock_.advance(kMin);
  see("firefox", "Cats - Catflix — Mozilla Firefox");
  clock_.advance(kMin);
  ASSERT_FALSE(controller_->complete());
  EXPECT_EQ(controller_->state().stats.driftEpisodes, 2);
  ASSERT_TRUE(controller_->state().focus);
  EXPECT_THAT(controller_->state().focus->driftBySite,
              ElementsAre(SiteDrift{"catflix", 3 * kMin, 2}));
}

// Issue 17 item 4 of the number walk: right after a restart mid-drift the
// State said drift_secs 11 beside a bucket with drifting_secs 31 — the open
// drift reached the timeline at each report of the window but drift_secs only
// when the episode closed. Both now cover the same time, on every read.
TEST_F(ReviewTeachesTest, TheLiveDriftAndTheBucketsDriftingTimeAgreeAcrossARestart) {
  start(true);
  see("code", "report.md");
  clock_.advance(kMin);
  see("firefox", "Cats - Catflix — Mozilla Firefox");
  ASSERT_EQ(controller_->state().drift.status, drift::DriftStatus::Drifting);
  const auto figures = [this] {
    const auto stats = toJson(controller_->state())->getObject("stats");
    std::int64_t drifting = 0;
    const auto buckets = stats->getArray("buckets");
    for (std::size_t index = 0; index < buckets->size(); ++index) {
      drifting +=
          buckets->getObject(static_cast<unsigned>(index))->getValue<std::int64_t>("drifting_secs");
    }
    return std::make_pair(stats->getValue<std::int64_t>("drift_secs"), drifting);
  };
  clock_.advance(20'000);
  see("firefox", "Cats - Catflix — Mozilla Firefox");  // a report of the same window
  EXPECT_EQ(figures(), std::make_pair(std::int64_t{20}, std::int64_t{20}));
  clock_.advance(10'000);
  controller_->flushForShutdown();  // SIGTERM
  clock_.advance(30'000);           // the daemon is down
  makeControllerWithBackend(backend_, "scripted");
  controller_->restore();
  see("firefox", "Cats - Catflix — Mozilla Firefox");  // the source's first report
  EXPECT_EQ(figures(), std::make_pair(std::int64_t{30}, std::int64_t{30}));
  clock_.advance(20'000);
  see("firefox", "Cats - Catflix — Mozilla Firefox");
  EXPECT_EQ(figures(), std::make_pair(std::int64_t{50}, std::int64_t{50}));
  EXPECT_EQ(figures(), figures());  // a second read says the same
  ASSERT_FALSE(controller_->complete());
  EXPECT_EQ(figures(), std::make_pair(std::int64_t{50}, std::int64_t{50}));
  EXPECT_EQ(controller_->state().stats.driftEpisodes, 1);
}

TEST_F(ReviewTeachesTest, TheReviewerHearsWhereTheDriftWentAndTheAnswerAndNoteAsData) {
  start(true);
  driftTwiceToOneSite();
  ASSERT_FALSE(controller_->answerReview(ReviewAnswer{"partly", "the intro took longer"}));
  executor_.runAll();
  const std::vector<std::string> prompts = backend_->prompts("reviewer");
  ASSERT_EQ(prompts.size(), 2u);  // at the end, then again with the answer
  const std::string finished = fencedBody(prompts.back(), "finished");
  EXPECT_THAT(finished, HasSubstr("Where the drift went: catflix 3 min over 2 visits"));
  EXPECT_THAT(finished, HasSubstr("Longest on-task stretch: 2 min"));
  EXPECT_THAT(finished, HasSubstr("(the person's answer): partly"));
  EXPECT_THAT(finished, HasSubstr("The person's note: the intro took longer"));
  EXPECT_THAT(fencedBody(prompts.front(), "finished"), HasSubstr("not answered"));
}

TEST_F(ReviewTeachesTest, WithoutTheAiTheCarryForwardUsesTheAnswerNoteAndDrift) {
  start(false);
  see("code", "report.md");
  clock_.advance(2 * kMin);
  see("steam", "Library");  // a hard rule: drifting without any AI
  clock_.advance(3 * kMin);
  ASSERT_FALSE(controller_->complete());
  EXPECT_EQ(controller_->state().reflection.status, ReflectionStatus::Absent);
  EXPECT_EQ(controller_->state().lastCarryForward,
            "Most drift went to steam 3 min over 1 visit: keep it closed next time.");
  // A later answer updates it.
  ASSERT_FALSE(controller_->answerReview(ReviewAnswer{"partly", "the intro took longer"}));
  EXPECT_EQ(
      controller_->state().lastCarryForward,
      "You partly met the success condition — your note: the intro took longer. Most drift went to "
      "steam 3 min over 1 visit: keep it closed next time.");
  ASSERT_FALSE(controller_->end());
  ASSERT_FALSE(controller_->enterPlanning());
  EXPECT_THAT(controller_->state().lastCarryForward, HasSubstr("the intro took longer"));
}

TEST_F(ReviewTeachesTest, ASessionRestoredFromAnOlderSnapshotHasUnknownFiguresNotZero) {
  start(true);
  see("code", "report.md");
  clock_.advance(kMin);
  executor_.runAll();
  controller_->flush();
  // The snapshot as an older daemon wrote it: no "focus".
  Snapshot older = *snapshots_.load();
  older.focus.complete = false;
  snapshots_.save(older);
  makeControllerWithBackend(backend_, "scripted");
  controller_->restore();
  ASSERT_FALSE(controller_->complete());
  executor_.runAll();
  EXPECT_FALSE(controller_->state().focus);
  EXPECT_FALSE(toJson(controller_->state())->has("drift_by_site"));
  ASSERT_FALSE(controller_->end());
  EXPECT_FALSE(audit_.records.back().driftBySite);
  EXPECT_FALSE(audit_.records.back().longestStretch);
  const auto view = sessionViewJson(audit_.records.back());
  EXPECT_TRUE(view->isNull("drift_by_site"));
  EXPECT_TRUE(view->isNull("longest_on_task"));
}

}  // namespace
}  // namespace antidrift
