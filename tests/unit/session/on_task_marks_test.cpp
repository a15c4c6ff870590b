// "This is on task" with a choice (issue 17 item 4): this page, or all of the
// site the engine derived for this session; what was marked listed in the
// commitment, each with an undo. Driven through the Controller with a scripted
// judge, a ManualExecutor and a FakeClock.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/session/controller.h"
#include "mocks/scripted_backend.h"
#include "unit/session/controller_fixture.h"

namespace antidrift {
namespace {

using test::ScriptedBackend;
using ::testing::IsEmpty;

const char* kOffTask = R"({"on_task": false, "reason": "this is not the Gatsby site"})";

class OnTaskMarksTest : public test::ControllerFixture {
 protected:
  OnTaskMarksTest() {
    settings_.judgeDwellSecs = 0;
    backend_ = std::make_shared<ScriptedBackend>();
    backend_->answer("judge", kOffTask);
  }

  void start() {
    executor_.runAll();
    makeControllerWithBackend(backend_, "scripted");
    ASSERT_FALSE(controller_->enterPlanning());
    executor_.runAll();
    ASSERT_FALSE(controller_->startCommitment(
        commitmentRequest("Add page transitions to the Gatsby site", "Transitions work", 50,
                          std::vector<std::string>{"code"})));
  }

  /// A browser window, with URL evidence when `domain` is not empty; the judge answers.
  void see(const std::string& title, const std::string& domain = "") {
    controller_->recordWindow(Observation{0, "Firefox", title, "x11", domain});
    executor_.runAll();
  }

  DriftView drift() const { return controller_->state().drift; }
  Commitment commitment() const { return *controller_->state().commitment; }

  std::shared_ptr<ScriptedBackend> backend_;
};

TEST_F(OnTaskMarksTest, AllOfTheSiteThisSessionCoversItsOtherPagesWithoutAJudge) {
  start();
  see("Cats compilation - Catflix — Mozilla Firefox");
  ASSERT_EQ(drift().status, drift::DriftStatus::Drifting);
  EXPECT_EQ(drift().site, "catflix");  // the title's site suffix, as the engine derived it
  ASSERT_FALSE(controller_->markOnTask(drift::OnTaskScope::Site));
  EXPECT_EQ(drift().status, drift::DriftStatus::OnTask);
  EXPECT_EQ(drift().reason, "you marked all of catflix on task this session");
  ASSERT_EQ(commitment().allowedSites.size(), 1u);
  EXPECT_EQ(commitment().allowedSites[0].app, "firefox");
  EXPECT_EQ(commitment().allowedSites[0].site, "catflix");
  EXPECT_FALSE(commitment().allowedSites[0].domain);
  EXPECT_THAT(commitment().allowedTitles, IsEmpty());  // a site mark, not a page mark
  EXPECT_EQ(controller_->state().stats.corrections, 1);

  const std::size_t judged = backend_->calls("judge");
  see("Gatsby page transitions tutorial - Catflix — Mozilla Firefox");
  EXPECT_EQ(drift().status, drift::DriftStatus::OnTask);
  EXPECT_EQ(drift().reason, "you marked all of catflix on task this session");
  EXPECT_EQ(backend_->calls("judge"), judged);
  see("Front page - Pawsboard — Mozilla Firefox");  // another site is judged on its own
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);
  EXPECT_EQ(backend_->calls("judge"), judged + 1);
}

TEST_F(OnTaskMarksTest, UrlEvidenceNamesTheSiteByItsDomain) {
  start();
  see("Cats compilation - Catflix — Mozilla Firefox", "catflix.com");
  EXPECT_EQ(drift().site, "catflix.com");
  ASSERT_FALSE(controller_->markOnTask(drift::OnTaskScope::Site));
  ASSERT_EQ(commitment().allowedSites.size(), 1u);
  EXPECT_TRUE(commitment().allowedSites[0].domain);
  see("Some other video — Mozilla Firefox", "catflix.com");  // no suffix, same domain
  EXPECT_EQ(drift().status, drift::DriftStatus::OnTask);
}

TEST_F(OnTaskMarksTest, ASiteTheTitleOnlyMentionsIsNeverOffered) {
  start();
  // A sentence, not a site suffix: the engine derives no site from it.
  see("why do i keep watching cat videos all day long again");
  ASSERT_EQ(drift().status, drift::DriftStatus::Drifting);
  EXPECT_EQ(drift().site, "");
  const ActionResult refused = controller_->markOnTask(drift::OnTaskScope::Site);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, ErrorKind::IllegalTransition);
  EXPECT_THAT(commitment().allowedSites, IsEmpty());
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);  // nothing changed
}

TEST_F(OnTaskMarksTest, APageMarkSaysSoNotThatTheBrowserIsAllowed) {
  start();
  see("Gatsby transitions - Stack Overflow — Mozilla Firefox");
  ASSERT_FALSE(controller_->markOnTask());
  see("Something else — Mozilla Firefox");
  see("Gatsby transitions - Stack Overflow — Mozilla Firefox");
  EXPECT_EQ(drift().status, drift::DriftStatus::OnTask);
  EXPECT_EQ(drift().reason, "you marked this page on task");
}

TEST_F(OnTaskMarksTest, UndoingAPageJudgesItAfresh) {
  start();
  see("Cats compilation - Catflix — Mozilla Firefox");
  ASSERT_FALSE(controller_->markOnTask());
  ASSERT_EQ(commitment().allowedTitles.size(), 1u);
  const std::string key = commitment().allowedTitles[0].title;
  const std::size_t judged = backend_->calls("judge");
  ASSERT_FALSE(controller_->undoOnTask("firefox", key, false));
  executor_.runAll();
  EXPECT_THAT(commitment().allowedTitles, IsEmpty());
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);  // the window in front, judged again
  EXPECT_EQ(backend_->calls("judge"), judged + 1);
  // The remembered "you said this is on task" is gone; the judge's new answer is remembered.
  bool found = false;
  for (const drift::RememberedEntry& entry : controller_->verdicts()) {
    if (entry.key != "firefox\n" + key) continue;
    found = true;
    EXPECT_FALSE(entry.verdict.onTask);
    EXPECT_EQ(entry.verdict.source, drift::VerdictSource::Judge);
  }
  EXPECT_TRUE(found);
}

TEST_F(OnTaskMarksTest, UndoingASiteAndUnknownMarks) {
  start();
  see("Cats compilation - Catflix — Mozilla Firefox");
  ASSERT_FALSE(controller_->markOnTask(drift::OnTaskScope::Site));
  const ActionResult unknown = controller_->undoOnTask("firefox", "pawsboard", true);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->kind, ErrorKind::NotFound);
  ASSERT_EQ(commitment().allowedSites.size(), 1u);
  ASSERT_FALSE(controller_->undoOnTask("firefox", "catflix", true));
  executor_.runAll();
  EXPECT_THAT(commitment().allowedSites, IsEmpty());
  see("Dogs compilation - Catflix — Mozilla Firefox");
  EXPECT_EQ(drift().status, drift::DriftStatus::Drifting);
}

TEST_F(OnTaskMarksTest, SiteMarksSurviveARestartAndUndoIsRefusedOutsideActive) {
  start();
  see("Cats compilation - Catflix — Mozilla Firefox");
  ASSERT_FALSE(controller_->markOnTask(drift::OnTaskScope::Site));
  executor_.runAll();
  makeControllerWithBackend(backend_, "scripted");
  controller_->restore();
  ASSERT_EQ(commitment().allowedSites.size(), 1u);
  see("Dogs compilation - Catflix — Mozilla Firefox");
  EXPECT_EQ(drift().status, drift::DriftStatus::OnTask);
  ASSERT_FALSE(controller_->complete());
  const ActionResult refused = controller_->undoOnTask("firefox", "catflix", true);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->kind, ErrorKind::IllegalTransition);
}

}  // namespace
}  // namespace antidrift
