// drift::Engine on its own, without a Controller (docs/DESIGN.md §4, §5; seed 000;
// issue 6): each branch of §4 in order, the judge debounce, one call in
// flight per key, verdicts for the current and a non-current subject, the
// banner actions, the nudge gating, windows that say nothing, and the drift
// time and episodes the Controller adds to the stats.
#include "antidrift/drift/engine.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/drift/active_session.h"
#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::int64_t kStartMono = 1'000'000;
constexpr std::int64_t kStartUtc = 1'780'000'000'000;

/// An on-task or off-task answer of the judge.
ai::Verdict verdict(bool onTask, std::string reason) {
  return ai::Verdict{onTask, std::move(reason)};
}

class EngineTest : public ::testing::Test {
 protected:
  EngineTest() {
    settings_.judgeDwellSecs = 0;
    settings_.nudgeDebounceSecs = 300;
    settings_.blockedApps = {"steam", "qterminal"};  // qterminal is also allowed: the rule wins
    settings_.blockedTitles = {{"shopping", R"(amazon\.com)"}};
    settings_.ownPageTag = "0a1b2c3d";  // the served page's tag (issue 19 item 3)
    commitment_.nextAction = "Add page transitions to the chango.dev Gatsby site";
    commitment_.successCondition = "Transitions work between blog pages";
    commitment_.allowedApps = {"code - insiders", "qterminal"};
  }

  Engine& engine() {
    if (!engine_) engine_.emplace(settings_);
    return *engine_;
  }

  /// The engine sees `app` / `title` at the current virtual time.
  Decision see(const std::string& app, const std::string& title,
               Engine::Advisors advisors = Engine::Advisors::JudgeAndNudge) {
    const Observation obs{utc_, normalizeApp(app), sanitizeTitle(title), "test", ""};
    return engine().observe(obs, commitment_, mono_, advisors);
  }

  void advance(std::int64_t ms) {
    mono_ += ms;
    utc_ += ms;
  }

  /// Sees an unmatched window and answers the judge call it asks for.
  void judge(const std::string& app, const std::string& title, const ai::Verdict& answer) {
    Decision decision = see(app, title);
    ASSERT_TRUE(decision.judge) << app << " / " << title;
    (void)engine().applyVerdict(decision.judge->key, answer, "", utc_);
  }

  Settings settings_;
  Commitment commitment_;
  std::optional<Engine> engine_;
  std::int64_t mono_ = kStartMono;
  std::int64_t utc_ = kStartUtc;
};

// ---- docs/DESIGN.md §4, branch by branch
// -------------------------------------------------------------

TEST_F(EngineTest, AnAppWhoseWindowsAreDocumentsIsJudgedPerDocument) {
  // An office app's windows are documents: a verdict on one is not a
  // verdict on the next, as a browser's pages are not (drift.title_sensitive_apps).
  judge("WINWORD.EXE", "Transition timings for the blog - Word",
        verdict(true, "notes for the transitions"));
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  const Decision decision = see("WINWORD.EXE", "Letter to landlord - tenancy renewal - Word");
  ASSERT_TRUE(decision.judge) << "asked about this document too";
  (void)engine().applyVerdict(decision.judge->key, verdict(false, "a personal letter"), "", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  (void)see("WINWORD.EXE", "Transition timings for the blog - Word");
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask) << "each document keeps its own verdict";
}

TEST_F(EngineTest, AHardRuleBeatsAnAllowedApp) {
  const Decision decision = see("qterminal", "bash");
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "qterminal is blocked during focus");
  EXPECT_EQ(engine().view().app, "qterminal");
  EXPECT_TRUE(decision.changed);
  EXPECT_TRUE(decision.episodeStarted);
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.nudge);
}

TEST_F(EngineTest, ABlockedTitleDriftsEvenInAnAllowedApp) {
  const Decision decision = see("Code - Insiders", "amazon.com: cart — notes.md");
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_THAT(engine().view().reason, HasSubstr("(drift.blocked_titles.shopping)"));
  EXPECT_FALSE(decision.judge);
}

TEST_F(EngineTest, ALocalMatchIsOnTaskWithNoJudgeCall) {
  const Decision decision = see("Code - Insiders", "index.js - chango.dev");
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_EQ(engine().view().app, "code - insiders");
  EXPECT_TRUE(decision.changed);
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.episodeStarted);
}

TEST_F(EngineTest, AnUnmatchedAppAsksTheJudgeWithItsKeyTokenAndRedactedTitle) {
  const Decision decision =
      see("Firefox", "(3) Inbox — anna@example.com order 12345678 - Mozilla Firefox");
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  ASSERT_TRUE(decision.judge);
  const JudgeRequest& request = *decision.judge;
  EXPECT_EQ(request.key,
            "firefox\n" + normalizeTitle("(3) Inbox — anna@example.com order 12345678"));
  EXPECT_EQ(request.token, engine().judgeEpoch().current());
  EXPECT_EQ(request.input.app, "firefox");
  EXPECT_EQ(request.input.nextAction, commitment_.nextAction);
  EXPECT_EQ(request.input.successCondition, commitment_.successCondition);
  EXPECT_THAT(request.input.title, HasSubstr("[redacted]"));
  EXPECT_THAT(request.input.title, Not(HasSubstr("anna@example.com")));
  EXPECT_THAT(request.input.title, Not(HasSubstr("12345678")));
  EXPECT_EQ(engine().judgeCallsInFlight(), 1u);
}

TEST_F(EngineTest, AnAppThatIsNotTitleSensitiveIsKeyedByTheAppAlone) {
  const Decision decision = see("Slack", "general | chango");
  ASSERT_TRUE(decision.judge);
  EXPECT_EQ(decision.judge->key, "slack");
}

TEST_F(EngineTest, ACachedVerdictIsAppliedWithoutAnotherCall) {
  judge("Slack", "general", verdict(false, "Chat is not the Gatsby site"));
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "AI judge: \"Chat is not the Gatsby site\"");

  (void)see("Code - Insiders", "index.js");
  const Decision again = see("Slack", "random");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "AI judge: \"Chat is not the Gatsby site\"");
  EXPECT_TRUE(again.episodeStarted);
}

TEST_F(EngineTest, ACachedOnTaskVerdictIsOnTask) {
  judge("Firefox", "Gatsby Link API - Mozilla Firefox",
        verdict(true, "the Gatsby docs fit the commitment"));
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  (void)see("Code - Insiders", "index.js");
  const Decision again = see("Firefox", "Gatsby Link API — Mozilla Firefox");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
}

TEST_F(EngineTest, ATitleSensitiveAppIsJudgedPerNormalizedTitle) {
  judge("Firefox", "YouTube - Mozilla Firefox", verdict(false, "Videos are not the task"));
  const Decision otherPage = see("Firefox", "Gatsby Link API - Mozilla Firefox");
  EXPECT_TRUE(otherPage.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

TEST_F(EngineTest, WithoutAdvisorsAnUnmatchedAppIsUnknownNeverDrift) {
  const Decision decision = see("Slack", "general", Engine::Advisors::None);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_THAT(engine().view().reason, HasSubstr("AI is off"));
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.episodeStarted);
}

TEST_F(EngineTest, WithoutAdvisorsABlockedAppStillDrifts) {
  (void)see("Steam", "Library", Engine::Advisors::None);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "steam is blocked during focus");
}

TEST_F(EngineTest, ANeverSendAppIsJudgedByLocalRulesOnly) {
  const Decision decision = see("KeePassXC", "Passwords.kdbx");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_THAT(engine().view().reason, HasSubstr("privacy.never_send_apps"));
  EXPECT_FALSE(decision.judge);
}

TEST_F(EngineTest, ANeverSendAppThatIsAllowedFeedsNoNudge) {
  commitment_.allowedApps.push_back("keepassxc");
  (void)see("Code - Insiders", "index.js");
  const Decision decision = see("KeePassXC", "bank.kdbx");
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_FALSE(decision.nudge);
}

// ---- Verdict scope (issue 8 item 5) ------------------------------------------------------------

/// Sees a browser page with URL evidence (issue 16 item 4).
Observation page(std::int64_t atMs, const std::string& title, const std::string& domain) {
  return Observation{atMs, "firefox", sanitizeTitle(title), "test", domain};
}

TEST_F(EngineTest, ASiteScopedVerdictCoversTheDomainOnceTwoPagesAgree) {
  // Issue 19 item 4: a site-wide verdict needs two pages of the domain.
  ai::Verdict offTask = verdict(false, "A YouTube video is not the Gatsby site.");
  offTask.scope = ai::VerdictScope::Site;
  Decision first = engine().observe(page(utc_, "Cats - YouTube — Mozilla Firefox", "youtube.com"),
                                    commitment_, mono_, Engine::Advisors::JudgeAndNudge);
  ASSERT_TRUE(first.judge);
  (void)engine().applyVerdict(first.judge->key, offTask, "", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "AI judge: \"A YouTube video is not the Gatsby site.\"");

  Decision second = engine().observe(page(utc_, "Dogs - YouTube — Mozilla Firefox", "youtube.com"),
                                     commitment_, mono_, Engine::Advisors::JudgeAndNudge);
  ASSERT_TRUE(second.judge) << "one page's site-scoped answer covered the site";
  (void)engine().applyVerdict(second.judge->key, offTask, "", utc_);

  const Decision third =
      engine().observe(page(utc_, "Birds - YouTube — Mozilla Firefox", "youtube.com"), commitment_,
                       mono_, Engine::Advisors::JudgeAndNudge);
  EXPECT_FALSE(third.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
}

TEST_F(EngineTest, ASiteTheTitleNamesGetsNoSiteWideVerdict) {
  // Issue 19 item 4 (review M4, "cover a whole site"): without URL evidence
  // the only site is the one the title names, which its author chooses.
  ai::Verdict onTask = verdict(true, "Fine.");
  onTask.scope = ai::VerdictScope::Site;
  judge("firefox", "Cats - YouTube — Mozilla Firefox", onTask);
  judge("firefox", "Dogs - YouTube — Mozilla Firefox", onTask);
  EXPECT_TRUE(see("firefox", "Birds - YouTube — Mozilla Firefox").judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

TEST_F(EngineTest, TwoAnswersOfTheSamePageOrThatDisagreeDoNotCoverTheSite) {
  ai::Verdict onTask = verdict(true, "Fine.");
  onTask.scope = ai::VerdictScope::Site;
  ai::Verdict offTask = verdict(false, "Videos.");
  offTask.scope = ai::VerdictScope::Site;
  const auto ask = [&](const std::string& title, const ai::Verdict& answer) {
    const Decision decision = engine().observe(page(utc_, title, "youtube.com"), commitment_, mono_,
                                               Engine::Advisors::JudgeAndNudge);
    ASSERT_TRUE(decision.judge) << title;
    (void)engine().applyVerdict(decision.judge->key, answer, "", utc_);
  };
  ask("Cats - YouTube — Mozilla Firefox", onTask);
  ask("Dogs - YouTube — Mozilla Firefox", offTask);  // disagrees: no site verdict
  ask("Birds - YouTube — Mozilla Firefox", onTask);  // agrees with none pending for it
  ask("Fish - YouTube — Mozilla Firefox", offTask);
}

TEST_F(EngineTest, APageScopedVerdictCoversThatPageOnly) {
  // One GitHub page is not all of GitHub. (A page that shares the
  // commitment's words would be on task without the judge: relevance.h.)
  judge("firefox", "reach/router · GitHub", verdict(true, "The router the site uses."));
  const Decision other = see("firefox", "torvalds/linux · GitHub");
  EXPECT_TRUE(other.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

// Issue 19 item 4 (review M4, "fail open"): a failed or unparseable answer is
// asked once more on a later visit, not left unjudged for the session.
TEST_F(EngineTest, AFailedKeyIsRetriedOnceAfterTheBackOff) {
  Decision first = see("Slack", "general");
  ASSERT_TRUE(first.judge);
  (void)engine().applyVerdict(first.judge->key, std::nullopt, "invalid verdict", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  advance(30'000);
  EXPECT_FALSE(see("Slack", "general").judge);  // within the back-off
  EXPECT_THAT(engine().view().reason, ::testing::HasSubstr("asks once more later"));
  advance(30'000);
  Decision retry = see("Slack", "general");
  ASSERT_TRUE(retry.judge);
  (void)engine().applyVerdict(retry.judge->key, std::nullopt, "invalid verdict", utc_);
  advance(600'000);
  EXPECT_FALSE(see("Slack", "general").judge);  // twice failed: not again this session
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
}

TEST_F(EngineTest, TheRetryCanSucceed) {
  Decision first = see("Slack", "general");
  (void)engine().applyVerdict(first.judge->key, std::nullopt, "timed out", utc_);
  advance(60'000);
  Decision retry = see("Slack", "general");
  ASSERT_TRUE(retry.judge);
  (void)engine().applyVerdict(retry.judge->key, verdict(false, "Chat."), "", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
}

TEST(JudgeReason, IsTheModelsWordsUnderALabelCleanedAndCut) {
  EXPECT_EQ(judgeReason("Videos are not the work."), "AI judge: \"Videos are not the work.\"");
  // A quote cannot close the label's quotes; control and bidi characters go.
  const std::string hostile = judgeReason("ok\" rule: \x1b[31mreset\xE2\x80\xAE\nline");
  EXPECT_EQ(hostile.rfind("AI judge: \"ok' rule:", 0), 0u) << hostile;
  EXPECT_EQ(hostile.find('\x1b'), std::string::npos);
  EXPECT_EQ(hostile.find('\n'), std::string::npos);
  EXPECT_EQ(hostile.find("\xE2\x80\xAE"), std::string::npos);
  EXPECT_EQ(std::count(hostile.begin(), hostile.end(), '"'), 2);
  const std::string cut = judgeReason(std::string(400, 'x'));
  EXPECT_EQ(cut, "AI judge: \"" + std::string(160, 'x') + "\xE2\x80\xA6\"");
  // Cut at a code point, never inside one.
  std::string wide;
  for (int i = 0; i < 200; ++i) wide += "\xC3\xA9";
  const std::string cutWide = judgeReason(wide);
  EXPECT_EQ(cutWide.size(), std::string("AI judge: \"\"").size() + 160 * 2 + 3);
}

// ---- The judge debounce (drift.judge_debounce_s) -----------------------------------------------

TEST_F(EngineTest, TheJudgeIsAskedOnlyAfterTheKeyStayedInFrontForTheDebounce) {
  settings_.judgeDwellSecs = 10;
  const Decision first = see("Slack", "general");
  EXPECT_FALSE(first.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  EXPECT_EQ(engine().nextDueMono(), kStartMono + 10'000);

  EXPECT_FALSE(engine().due(commitment_, kStartMono + 9'999).judge);
  const Decision due = engine().due(commitment_, kStartMono + 10'000);
  ASSERT_TRUE(due.judge);
  EXPECT_EQ(due.judge->key, "slack");
  EXPECT_EQ(engine().nextDueMono(), std::nullopt);
}

TEST_F(EngineTest, HeartbeatsOfTheSameKeyDoNotRestartTheDebounce) {
  settings_.judgeDwellSecs = 10;
  (void)see("Firefox", "YouTube - Mozilla Firefox");
  advance(5'000);
  (void)see("Firefox", "YouTube - Mozilla Firefox");
  advance(4'000);
  (void)see("Firefox", "(1) YouTube - Mozilla Firefox");  // the same normalised key
  EXPECT_EQ(engine().nextDueMono(), kStartMono + 10'000);
  advance(1'000);
  const Decision heartbeat = see("Firefox", "YouTube - Mozilla Firefox");
  EXPECT_TRUE(heartbeat.judge) << "a heartbeat past the debounce launches the call itself";
}

TEST_F(EngineTest, AKeyChangeRestartsTheDebounce) {
  settings_.judgeDwellSecs = 10;
  (void)see("Firefox", "YouTube - Mozilla Firefox");
  advance(5'000);
  (void)see("Firefox", "Facebook - Mozilla Firefox");
  EXPECT_EQ(engine().nextDueMono(), kStartMono + 15'000);
  EXPECT_FALSE(engine().due(commitment_, kStartMono + 10'000).judge);
  const Decision due = engine().due(commitment_, kStartMono + 15'000);
  ASSERT_TRUE(due.judge);
  EXPECT_EQ(due.judge->key, "firefox\nfacebook");
}

TEST_F(EngineTest, ALocalMatchDropsAPendingJudgeCall) {
  settings_.judgeDwellSecs = 10;
  (void)see("Slack", "general");
  advance(3'000);
  (void)see("Code - Insiders", "index.js");
  EXPECT_EQ(engine().nextDueMono(), std::nullopt);
  EXPECT_FALSE(engine().due(commitment_, kStartMono + 10'000).judge);
}

// ---- One call in flight per key; answers -------------------------------------------------------

TEST_F(EngineTest, OneCallIsInFlightPerKey) {
  const Decision first = see("Slack", "general");
  ASSERT_TRUE(first.judge);
  EXPECT_FALSE(see("Slack", "random").judge);
  const Decision other = see("Discord", "gaming");
  ASSERT_TRUE(other.judge);
  EXPECT_EQ(engine().judgeCallsInFlight(), 2u);
  EXPECT_FALSE(see("Slack", "general").judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

TEST_F(EngineTest, AVerdictForTheCurrentSubjectIsShown) {
  const Decision decision = see("Slack", "general");
  ASSERT_TRUE(decision.judge);
  advance(2'000);
  const Decision applied = engine().applyVerdict(
      decision.judge->key, verdict(false, "Chat is not the Gatsby site"), "", utc_);
  EXPECT_TRUE(applied.changed);
  EXPECT_TRUE(applied.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "AI judge: \"Chat is not the Gatsby site\"");
  EXPECT_EQ(engine().judgeCallsInFlight(), 0u);
}

TEST_F(EngineTest, AVerdictForANonCurrentSubjectIsCachedButNotShown) {
  const Decision slack = see("Slack", "general");
  ASSERT_TRUE(slack.judge);
  (void)see("Code - Insiders", "index.js");
  const Decision applied = engine().applyVerdict(
      slack.judge->key, verdict(false, "Chat is not the Gatsby site"), "", utc_);
  EXPECT_FALSE(applied.changed);
  EXPECT_FALSE(applied.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);

  const Decision back = see("Slack", "general");
  EXPECT_FALSE(back.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "AI judge: \"Chat is not the Gatsby site\"");
}

TEST_F(EngineTest, AFailedJudgeIsUnknownAndThatKeyIsNotAskedAgain) {
  const Decision decision = see("Slack", "general");
  ASSERT_TRUE(decision.judge);
  const Decision failed =
      engine().applyVerdict(decision.judge->key, std::nullopt, "timed out after 30000 ms", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_THAT(engine().view().reason, HasSubstr("timed out after 30000 ms"));
  EXPECT_FALSE(failed.episodeStarted);

  (void)see("Code - Insiders", "index.js");
  const Decision again = see("Slack", "general");
  EXPECT_FALSE(again.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_TRUE(see("Discord", "gaming").judge) << "other keys are still judged";
}

// ---- Banner actions ----------------------------------------------------------------------------

TEST_F(EngineTest, RefocusHidesTheBannerAndAdvancesTheJudgeEpoch) {
  judge("Slack", "general", verdict(false, "Chat is not the Gatsby site"));
  const std::uint64_t before = engine().judgeEpoch().current();
  advance(4'000);
  const Decision decision = engine().refocus(utc_);
  EXPECT_GT(engine().judgeEpoch().current(), before);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(decision.driftMs, 4'000);
  EXPECT_TRUE(decision.changed);
}

TEST_F(EngineTest, AfterRefocusAKeyWhoseCallWasDiscardedIsJudgedAfresh) {
  const Decision first = see("Slack", "general");
  ASSERT_TRUE(first.judge);
  (void)engine().refocus(utc_);  // the running answer is now stale: launchGuarded drops it
  EXPECT_EQ(engine().judgeCallsInFlight(), 0u);

  const Decision again = see("Slack", "general");
  ASSERT_TRUE(again.judge) << "the discarded call never answered: the key is judged afresh";
  EXPECT_EQ(again.judge->token, engine().judgeEpoch().current());
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

TEST_F(EngineTest, MarkOnTaskAddsTheAppToTheAllowedList) {
  judge("Slack", "general", verdict(false, "Chat is not the Gatsby site"));
  advance(3'000);
  Decision decision;
  const std::optional<OnTaskMark> mark = engine().markOnTask(commitment_, utc_, decision);
  ASSERT_TRUE(mark);
  EXPECT_EQ(mark->app, "slack");
  EXPECT_EQ(mark->title, "");
  EXPECT_THAT(commitment_.allowedApps, ElementsAre("code - insiders", "qterminal", "slack"));
  EXPECT_THAT(commitment_.allowedTitles, IsEmpty());
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_EQ(decision.driftMs, 3'000);

  const Decision later = see("Slack", "random");
  EXPECT_FALSE(later.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
}

TEST_F(EngineTest, MarkOnTaskForATitleSensitiveAppAddsOnlyThatPage) {
  judge("Firefox", "(2) Gatsby Link API - Mozilla Firefox", verdict(false, "Not the site"));
  Decision decision;
  const std::optional<OnTaskMark> mark = engine().markOnTask(commitment_, utc_, decision);
  ASSERT_TRUE(mark);
  EXPECT_EQ(mark->app, "firefox");
  EXPECT_EQ(mark->title, "gatsby link api");
  ASSERT_EQ(commitment_.allowedTitles.size(), 1u);
  EXPECT_EQ(commitment_.allowedTitles[0].app, "firefox");
  EXPECT_EQ(commitment_.allowedTitles[0].title, "gatsby link api");
  EXPECT_THAT(commitment_.allowedApps, ElementsAre("code - insiders", "qterminal"));

  const Decision samePage = see("Firefox", "Gatsby Link API — Mozilla Firefox");
  EXPECT_FALSE(samePage.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_TRUE(see("Firefox", "YouTube - Mozilla Firefox").judge) << "other pages still judged";
}

TEST_F(EngineTest, MarkOnTaskWithNothingJudgedIsRefused) {
  (void)see("Code - Insiders", "index.js");
  Decision decision;
  EXPECT_EQ(engine().markOnTask(commitment_, utc_, decision), std::nullopt);
  EXPECT_THAT(commitment_.allowedApps, ElementsAre("code - insiders", "qterminal"));
}

// ---- The nudge (seed 000) ----------------------------------------------------------------------

TEST_F(EngineTest, TheNudgeNeedsTwoDistinctTitles) {
  const Decision one = see("Code - Insiders", "index.js - chango.dev");
  EXPECT_FALSE(one.nudge);
  const Decision heartbeat = see("Code - Insiders", "● index.js - chango.dev");
  EXPECT_FALSE(heartbeat.nudge) << "the unsaved marker is the same title";
  const Decision two = see("Code - Insiders", "layout.css - chango.dev");
  ASSERT_TRUE(two.nudge);
  EXPECT_EQ(two.nudge->token, engine().nudgeEpoch().current());
  EXPECT_EQ(two.nudge->input.nextAction, commitment_.nextAction);
  EXPECT_THAT(two.nudge->input.recentTitles,
              ElementsAre("● index.js - chango.dev", "layout.css - chango.dev"));
}

TEST_F(EngineTest, TheNudgeIsDebounced) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_TRUE(see("Code - Insiders", "layout.css").nudge);
  advance(299'000);
  EXPECT_FALSE(see("Code - Insiders", "header.css").nudge);
  advance(1'000);
  EXPECT_TRUE(see("Code - Insiders", "footer.css").nudge);
}

TEST_F(EngineTest, TheNudgeTitlesAreRedacted) {
  (void)see("Code - Insiders", "mail to anna@example.com");
  const Decision decision = see("Code - Insiders", "layout.css");
  ASSERT_TRUE(decision.nudge);
  EXPECT_THAT(decision.nudge->input.recentTitles, ElementsAre("mail to [redacted]", "layout.css"));
}

TEST_F(EngineTest, TheNudgeNeverRunsOnTheUnmatchedPathAndItsTitlesStayOut) {
  (void)see("Code - Insiders", "index.js");
  const Decision unmatched = see("Slack", "general");
  EXPECT_FALSE(unmatched.nudge);
  const Decision blocked = see("Steam", "Library");
  EXPECT_FALSE(blocked.nudge);
  const Decision back = see("Code - Insiders", "layout.css");
  ASSERT_TRUE(back.nudge);
  EXPECT_THAT(back.nudge->input.recentTitles, ElementsAre("index.js", "layout.css"));
}

TEST_F(EngineTest, WithoutAdvisorsThereIsNoNudge) {
  (void)see("Code - Insiders", "index.js", Engine::Advisors::None);
  EXPECT_FALSE(see("Code - Insiders", "layout.css", Engine::Advisors::None).nudge);
}

TEST_F(EngineTest, TheAdvisoryIsShownOnTaskAndClearedByOnTrack) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_TRUE(see("Code - Insiders", "layout.css").nudge);
  EXPECT_TRUE(engine().applyNudge(std::string("The titles drifted to CSS")));
  EXPECT_EQ(engine().view().nudge, "The titles drifted to CSS");
  EXPECT_FALSE(engine().applyNudge(std::nullopt)) << "an error leaves it as it was";
  EXPECT_EQ(engine().view().nudge, "The titles drifted to CSS");
  EXPECT_TRUE(engine().applyNudge(std::string()));
  EXPECT_EQ(engine().view().nudge, "");
}

TEST_F(EngineTest, LeavingTheAllowedAppsEndsTheStretchAndClearsTheAdvisory) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_TRUE(see("Code - Insiders", "layout.css").nudge);
  const std::uint64_t stretch = engine().nudgeEpoch().current();
  ASSERT_TRUE(engine().applyNudge(std::string("The titles drifted to CSS")));

  const Decision left = see("Slack", "general");
  EXPECT_GT(engine().nudgeEpoch().current(), stretch) << "a running nudge is now stale";
  EXPECT_EQ(engine().view().nudge, "");
  EXPECT_TRUE(left.changed);

  const std::uint64_t afterSlack = engine().nudgeEpoch().current();
  (void)see("Steam", "Library");
  EXPECT_GT(engine().nudgeEpoch().current(), afterSlack) << "a blocked app ends the stretch too";
}

TEST_F(EngineTest, TheAdvisoryComesBackWithTheTitlesItWasAbout) {
  // Issue 16 item 2: back in the editor on the other project, the heads-up
  // shows again at once; it was hidden while the browser was in front.
  (void)see("Code - Insiders", "index.js - shop-site");
  ASSERT_TRUE(see("Code - Insiders", "cart.js - shop-site").nudge);
  ASSERT_TRUE(engine().applyNudge(std::string("The editor is on another project")));
  (void)see("Slack", "general");
  ASSERT_EQ(engine().view().nudge, "");
  const Decision back = see("Code - Insiders", "cart.js - shop-site");
  EXPECT_TRUE(back.changed);
  EXPECT_FALSE(back.nudge) << "no call: the advice is about this title";
  EXPECT_EQ(engine().view().nudge, "The editor is on another project");
}

TEST_F(EngineTest, TheAdvisoryDoesNotComeBackOnOtherTitles) {
  (void)see("Code - Insiders", "index.js - shop-site");
  ASSERT_TRUE(see("Code - Insiders", "cart.js - shop-site").nudge);
  ASSERT_TRUE(engine().applyNudge(std::string("The editor is on another project")));
  (void)see("Slack", "general");
  (void)see("Code - Insiders", "navbar.js - chango.dev");
  EXPECT_EQ(engine().view().nudge, "");
  (void)engine().applyNudge(std::string());  // on track: the advice is forgotten
  (void)see("Slack", "general");
  (void)see("Code - Insiders", "cart.js - shop-site");
  EXPECT_EQ(engine().view().nudge, "");
}

TEST_F(EngineTest, TheNudgeChecksAgainOnlyWhenANewTitleCame) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_TRUE(see("Code - Insiders", "layout.css").nudge);
  advance(301'000);
  EXPECT_FALSE(see("Code - Insiders", "layout.css").nudge) << "a heartbeat of the same title";
  EXPECT_TRUE(see("Code - Insiders", "footer.css").nudge);
}

TEST_F(EngineTest, AWindowWaitingForTheJudgeSaysWhenItWillBeJudged) {
  settings_.judgeDwellSecs = 10;
  const Decision first = see("Slack", "general");
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  EXPECT_EQ(engine().view().judgeAtMs, utc_ + 10'000);
  EXPECT_TRUE(first.changed);
  advance(4'000);
  const Decision heartbeat = see("Slack", "general");
  EXPECT_EQ(engine().view().judgeAtMs, utc_ + 6'000);
  EXPECT_FALSE(heartbeat.changed) << "the same instant, seen again";
  advance(6'000);
  ASSERT_TRUE(see("Slack", "general").judge);
  EXPECT_EQ(engine().view().judgeAtMs, 0) << "asked now";
}

TEST_F(EngineTest, AnAdvisoryIsNotShownWhileNotOnTask) {
  (void)see("Slack", "general");
  EXPECT_FALSE(engine().applyNudge(std::string("The titles drifted to CSS")));
  EXPECT_EQ(engine().view().nudge, "");
}

// ---- Windows that say nothing ------------------------------------------------------------------

TEST_F(EngineTest, AnUnreadableWindowIsWindowUnknownAndDropsAPendingCall) {
  settings_.judgeDwellSecs = 10;
  (void)see("Slack", "general");
  const Decision decision = see("", "");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().reason, "window unknown");
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.nudge);
  EXPECT_EQ(engine().nextDueMono(), std::nullopt);
}

TEST_F(EngineTest, ALockScreenIsWindowUnknownAndNeverJudged) {
  const Decision decision = see("i3lock", "i3lock");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().reason, "window unknown");
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.episodeStarted);
}

TEST_F(EngineTest, AntiDriftsOwnPageKeepsTheBannerWhileDrifting) {
  (void)see("Steam", "Library");
  const DriftView before = engine().view();
  const Decision decision = see("Firefox", "AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_FALSE(decision.changed);
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, before.status);
  EXPECT_EQ(engine().view().reason, before.reason);
}

// Issue 17 item 4: looking at AntiDrift is neutral time, shown as such — not
// the previous window's verdict, not "Not judged", not drift.
TEST_F(EngineTest, AntiDriftsOwnPageIsNeutralOutsideADrift) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_EQ(engine().view().status, DriftStatus::OnTask);
  const Decision decision = see("Firefox", "AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_TRUE(decision.changed);
  EXPECT_FALSE(decision.judge);
  EXPECT_FALSE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().reason, "this is AntiDrift");
  EXPECT_EQ(spanStatusOf(engine().view(), false), SpanStatus::Neutral);
  EXPECT_EQ(spanStatusOf(engine().view(), true), SpanStatus::Away);
  // An evidence problem's reason does not outlive the next look at the page.
  (void)engine().suspend("evidence is stale", utc_);
  EXPECT_EQ(spanStatusOf(engine().view(), false), SpanStatus::Unknown);
  (void)see("Chromium", "AntiDrift 0a1b2c3d - Chromium");
  EXPECT_EQ(engine().view().reason, "this is AntiDrift");
}

// Issue 19 item 3 (review M3): the hard rules run before the own-page
// exemption, and a page that merely calls itself AntiDrift is judged.
TEST_F(EngineTest, HardRulesBeatTheOwnPageExemption) {
  settings_.blockedTitles = {{"reddit", "reddit"}};
  (void)see("Code - Insiders", "index.js");
  ASSERT_EQ(engine().view().status, DriftStatus::OnTask);
  const Decision decision = see("Firefox", "Reddit · AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_TRUE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_TRUE(engine().view().blocked);
}

TEST_F(EngineTest, APageTitledLikeAntiDriftIsJudgedNotExempt) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_EQ(engine().view().status, DriftStatus::OnTask);
  // Not on task, not neutral: asked about like any page.
  const Decision decision = see("Firefox", "Funny cats · AntiDrift — Mozilla Firefox");
  ASSERT_TRUE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  EXPECT_NE(spanStatusOf(engine().view(), false), SpanStatus::Neutral);
  (void)engine().applyVerdict(decision.judge->key, verdict(false, "cat videos"), "", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
}

// The real page is neutral after on-task work: its time is never on task.
TEST_F(EngineTest, OwnPageTimeIsNeverOnTask) {
  (void)see("Code - Insiders", "index.js");
  ASSERT_EQ(spanStatusOf(engine().view(), false), SpanStatus::OnTask);
  (void)see("Firefox", "12 min left · AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_EQ(spanStatusOf(engine().view(), false), SpanStatus::Neutral);
  advance(60'000);
  (void)see("Firefox", "11 min left · AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_EQ(spanStatusOf(engine().view(), false), SpanStatus::Neutral);
}

TEST_F(EngineTest, SuspendIsUnknownAndDropsAPendingCall) {
  settings_.judgeDwellSecs = 10;
  (void)see("Slack", "general");
  const Decision decision = engine().suspend("away", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().reason, "away");
  EXPECT_EQ(engine().nextDueMono(), std::nullopt);
  EXPECT_FALSE(decision.judge);
}

// ---- Drift time and episodes -------------------------------------------------------------------

TEST_F(EngineTest, DriftTimeAndEpisodesAreCountedFromTheObservationTimes) {
  const Decision start = see("Steam", "Library");
  EXPECT_TRUE(start.episodeStarted);
  advance(5'000);
  const Decision heartbeat = see("Steam", "Store");
  EXPECT_FALSE(heartbeat.episodeStarted);
  EXPECT_EQ(heartbeat.driftMs, 0);
  advance(3'000);
  const Decision back = see("Code - Insiders", "index.js");
  EXPECT_EQ(back.driftMs, 8'000);
  EXPECT_FALSE(back.episodeStarted);

  advance(1'000);
  EXPECT_TRUE(see("Steam", "Library").episodeStarted) << "a second episode";
  advance(2'500);
  EXPECT_EQ(engine().close(utc_), 2'500);
  EXPECT_EQ(engine().close(utc_ + 1'000), 0) << "closed once";
}

TEST_F(EngineTest, SuspendClosesTheDriftTime) {
  (void)see("Steam", "Library");
  advance(6'000);
  EXPECT_EQ(engine().suspend("evidence is stale", utc_).driftMs, 6'000);
  EXPECT_EQ(engine().close(utc_ + 1'000), 0);
}

TEST_F(EngineTest, ResetForgetsTheSessionAndAdvancesBothEpochs) {
  judge("Slack", "general", verdict(false, "Chat is not the Gatsby site"));
  const std::uint64_t judgeBefore = engine().judgeEpoch().current();
  const std::uint64_t nudgeBefore = engine().nudgeEpoch().current();
  engine().reset();
  EXPECT_GT(engine().judgeEpoch().current(), judgeBefore);
  EXPECT_GT(engine().nudgeEpoch().current(), nudgeBefore);
  EXPECT_EQ(engine().view().status, DriftStatus::Inactive);
  EXPECT_TRUE(see("Slack", "general").judge) << "the cache is gone";
}

// ---- A restart mid-stay (issue 17 item 4, the re-walk) -------------------------------------

TEST_F(EngineTest, TheStayOfBeforeARestartContinuesOnItsFirstObservation) {
  judge("firefox", "Cats - Catflix — Mozilla Firefox", verdict(false, "Cats."));
  ASSERT_EQ(engine().view().status, DriftStatus::Drifting);
  const std::optional<DriftStay> stay = engine().stay();
  ASSERT_TRUE(stay);
  EXPECT_TRUE(stay->drifting);
  EXPECT_EQ(stay->reason, judgeReason("Cats."));

  engine_.emplace(settings_);  // a restart: a new engine
  engine().resumeStay(*stay);
  advance(30'000);
  (void)engine().suspend("evidence is unknown", utc_);  // before the source reports
  const Decision again = see("firefox", "Cats - Catflix — Mozilla Firefox");
  EXPECT_FALSE(again.episodeStarted) << "the same drift goes on";
  EXPECT_FALSE(again.judge) << "its verdict is kept";
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, judgeReason("Cats."));
  EXPECT_TRUE(engine().continuesStay());
  advance(10'000);
  (void)see("code - insiders", "main.cpp");
  EXPECT_FALSE(engine().continuesStay());
  EXPECT_TRUE(see("firefox", "Cats - Catflix — Mozilla Firefox").episodeStarted)
      << "leaving and coming back is a new episode";
}

TEST_F(EngineTest, AnotherFirstWindowAfterARestartEndsTheStay) {
  judge("firefox", "Cats - Catflix — Mozilla Firefox", verdict(false, "Cats."));
  const std::optional<DriftStay> stay = engine().stay();
  ASSERT_TRUE(stay);
  engine_.emplace(settings_);
  engine().resumeStay(*stay);
  (void)see("code - insiders", "main.cpp");
  const Decision back = see("firefox", "Cats - Catflix — Mozilla Firefox");
  EXPECT_TRUE(back.judge) << "the stay and its verdict are forgotten: judged afresh";
  EXPECT_TRUE(
      engine().applyVerdict(back.judge->key, verdict(false, "Cats."), "", utc_).episodeStarted);
  EXPECT_FALSE(engine().continuesStay());
}

TEST_F(EngineTest, NoStayWithoutAVerdictAboutAWindow) {
  EXPECT_FALSE(engine().stay());
  (void)see("code - insiders", "main.cpp");  // an allowed app: matched again anyway
  EXPECT_FALSE(engine().stay());
}

// ---- Other work inside the allowed app ------------------------------------------------------

TEST_F(EngineTest, AnotherWorkspaceInTheAllowedEditorIsAHeadsUpWithTheAIOff) {
  // The commitment names chango.dev: its workspace is the session's, even
  // when another one was in front first.
  (void)see("Code - Insiders", "blog.js - transluciddata - Visual Studio Code - Insiders",
            Engine::Advisors::None);
  EXPECT_EQ(engine().view().nudge, "");
  (void)see("Code - Insiders", "index.js - chango.dev - Visual Studio Code - Insiders",
            Engine::Advisors::None);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_EQ(engine().view().nudge, "");
  const Decision other =
      see("Code - Insiders", "blog.js - transluciddata - Visual Studio Code - Insiders",
          Engine::Advisors::None);
  EXPECT_TRUE(other.changed);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask) << "a heads-up, not the banner";
  EXPECT_THAT(engine().view().nudge, HasSubstr("Another project: transluciddata"));
  EXPECT_THAT(engine().view().nudge, HasSubstr("chango.dev"));
  (void)see("Code - Insiders", "layout.js - chango.dev - Visual Studio Code - Insiders",
            Engine::Advisors::None);
  EXPECT_EQ(engine().view().nudge, "") << "back in the session's workspace";
}

// ---- The local tier (issue 16 item 3) ------------------------------------------------------

class LocalTierTest : public EngineTest {
 protected:
  LocalTierTest() {
    settings_.judgeDwellSecs = 12;
    settings_.distractionSites = {DistractionSite{"video", {"youtube.com"}, {"YouTube"}},
                                  DistractionSite{"social", {"facebook.com"}, {"Facebook"}}};
  }
};

TEST_F(LocalTierTest, AKnownDistractionIsDriftAtOnceWithTheAIOff) {
  const Decision decision = see("firefox", "Late night show highlights - YouTube — Mozilla Firefox",
                                Engine::Advisors::None);
  EXPECT_TRUE(decision.episodeStarted);
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "YouTube is a known distraction (video)");
  EXPECT_FALSE(engine().view().blocked) << "This is on task may override it";
}

TEST_F(LocalTierTest, AKnownDistractionNeedsNoJudgeWithTheAIOnAndNoDebounce) {
  const Decision decision = see("firefox", "(3) Facebook — Mozilla Firefox");
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_FALSE(engine().nextDueMono()) << "nothing waits for a judge";
}

TEST_F(LocalTierTest, AVideoAboutTheVeryTechniqueIsOnTask) {
  const Decision decision =
      see("firefox", "Page Transitions in Gatsby, step by step - YouTube — Mozilla Firefox",
          Engine::Advisors::None);
  EXPECT_FALSE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_THAT(engine().view().reason, HasSubstr("transition"));
}

TEST_F(LocalTierTest, AVideoAboutTheVeryTechniqueIsTheJudgesWhenThereIsOne) {
  // The task's words make a known distraction's page ambiguous, not on
  // task: with a judge to ask, it decides, and an off-task answer is the banner.
  const std::string video = "Page Transitions in Gatsby, step by step - YouTube — Mozilla Firefox";
  Decision decision = see("firefox", video);
  EXPECT_FALSE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  advance(12'000);
  decision = see("firefox", video);
  ASSERT_TRUE(decision.judge);
  decision =
      engine().applyVerdict(decision.judge->key, verdict(true, "the technique itself"), "", utc_);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  // A judge that failed for good leaves the words to rescue it.
  const std::string other = "Gatsby page transitions in 5 minutes - YouTube — Mozilla Firefox";
  (void)see("firefox", other);
  advance(12'000);
  decision = see("firefox", other);
  ASSERT_TRUE(decision.judge);
  const std::string key = decision.judge->key;
  (void)engine().applyVerdict(key, std::nullopt, "timed out", utc_);
  advance(120'000);
  (void)see("firefox", other);
  advance(12'000);
  decision = see("firefox", other);
  ASSERT_TRUE(decision.judge) << "one retry";
  (void)engine().applyVerdict(key, std::nullopt, "timed out", utc_);
  advance(1'000);
  (void)see("firefox", video);
  (void)see("firefox", other);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_THAT(engine().view().reason, HasSubstr("shares your commitment's words"));
}

TEST_F(LocalTierTest, ARelevantPageOfAnUnknownSiteIsOnTaskWithoutACall) {
  const Decision decision =
      see("firefox", "Gatsby page transitions with Framer Motion | Some Blog — Mozilla Firefox");
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_FALSE(engine().nextDueMono());
}

TEST_F(LocalTierTest, AnUnknownPageThatSharesLittleStillWaitsForTheJudge) {
  const Decision decision = see("firefox", "Gatsby meetup photos | Some Blog — Mozilla Firefox");
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  EXPECT_TRUE(engine().nextDueMono());
}

TEST_F(LocalTierTest, ThisIsOnTaskOverridesAKnownDistraction) {
  (void)see("firefox", "Conference talk recording - YouTube — Mozilla Firefox");
  ASSERT_EQ(engine().view().status, DriftStatus::Drifting);
  Decision decision;
  ASSERT_TRUE(engine().markOnTask(commitment_, utc_, decision));
  advance(10'000);
  (void)see("firefox", "Conference talk recording - YouTube — Mozilla Firefox");
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  (void)see("firefox", "Another clip - YouTube — Mozilla Firefox");
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting) << "only that page was marked";
}

TEST_F(LocalTierTest, NoCategoriesNoDistraction) {
  settings_.distractionCategories = {"news"};
  const Decision decision = see("firefox", "Late night show highlights - YouTube — Mozilla Firefox",
                                Engine::Advisors::None);
  EXPECT_FALSE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_THAT(engine().view().reason, HasSubstr("AI is off"));
}

// ---- The task's own evidence beats the list; the judge beats both --------------------------

TEST_F(LocalTierTest, ATutorialOnTheTaskOfAKnownDistractionIsAskedAboutWithTheAIOn) {
  // Shares one distinctive word ("gatsby"): not enough to rescue it, too
  // much for the list to ban it.
  const std::string tutorial =
      "Learn Gatsby: your first site in an hour - YouTube — Mozilla Firefox";
  Decision decision = see("firefox", tutorial);
  EXPECT_FALSE(decision.episodeStarted) << "no banner before the judge says so";
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  advance(12'000);
  decision = see("firefox", tutorial);
  ASSERT_TRUE(decision.judge);
  decision =
      engine().applyVerdict(decision.judge->key, verdict(false, "a general intro"), "", utc_);
  EXPECT_TRUE(decision.episodeStarted) << "the banner comes with an off-task verdict";
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
}

TEST_F(LocalTierTest, ATutorialOnTheTaskOfAKnownDistractionIsAHeadsUpWithTheAIOff) {
  const std::string tutorial =
      "Learn Gatsby: your first site in an hour - YouTube — Mozilla Firefox";
  const Decision decision = see("firefox", tutorial, Engine::Advisors::None);
  EXPECT_FALSE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_THAT(engine().view().reason, HasSubstr("YouTube is a known distraction, but"));
  EXPECT_THAT(engine().view().nudge, HasSubstr("Is this YouTube page for"));
  EXPECT_THAT(engine().view().nudge, HasSubstr("gatsby"));
  // A heartbeat keeps it; another window of the list is the banner at once.
  (void)see("firefox", tutorial, Engine::Advisors::None);
  EXPECT_FALSE(engine().view().nudge.empty());
  const Decision plain = see("firefox", "Late night show highlights - YouTube — Mozilla Firefox",
                             Engine::Advisors::None);
  EXPECT_TRUE(plain.episodeStarted);
  EXPECT_EQ(engine().view().nudge, "");
}

// ---- Private windows: judged locally, and only locally -------------------------------------

class PrivateWindowTest : public LocalTierTest {
 protected:
  /// A private window as the daemon admits it (drift::admitWindow).
  Decision seePrivate(const std::string& title, const std::string& domain = "",
                      Engine::Advisors advisors = Engine::Advisors::JudgeAndNudge) {
    const Observation raw{utc_, "firefox", title, "test", domain, true};
    return engine().observe(admitWindow(engine().rules(), raw), commitment_, mono_, advisors);
  }
};

TEST_F(PrivateWindowTest, AKnownDistractionInAPrivateWindowIsTheBannerWithoutItsName) {
  const Decision decision = seePrivate("Late night show highlights - YouTube — Mozilla Firefox");
  EXPECT_TRUE(decision.episodeStarted);
  EXPECT_FALSE(decision.judge) << "nothing of it is sent";
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "a private window shows a known distraction (video)");
  ASSERT_TRUE(engine().stay());
  EXPECT_THAT(engine().stay()->key, Not(HasSubstr("Late night")));
}

TEST_F(PrivateWindowTest, ItsDomainIsEnoughAndEachPrivateWindowIsJudgedOnItsOwn) {
  (void)seePrivate("Some clip", "m.facebook.com", Engine::Advisors::None);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_EQ(engine().view().reason, "a private window shows a known distraction (social)");
  // Another private window shares its key but not its verdict.
  (void)seePrivate("Gatsby page transitions with Framer Motion", "", Engine::Advisors::None);
  EXPECT_EQ(engine().view().status, DriftStatus::OnTask);
  EXPECT_EQ(engine().view().reason, "a private window whose title shares your commitment's words");
}

TEST_F(PrivateWindowTest, AnUndecidedPrivateWindowAsksByDefaultAndNotWhenToldNotTo) {
  (void)seePrivate("Flu symptoms and treatment");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().nudge, "A private window \xE2\x80\x94 is it for \xE2\x80\x9C" +
                                       commitment_.nextAction + "\xE2\x80\x9D?");
  EXPECT_THAT(engine().view().reason, Not(HasSubstr("Flu")));

  settings_.privateWindows = Settings::PrivateWindows::Local;
  engine_.reset();
  (void)seePrivate("Flu symptoms and treatment");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  EXPECT_EQ(engine().view().nudge, "");

  settings_.privateWindows = Settings::PrivateWindows::Ignore;
  engine_.reset();
  (void)seePrivate("Late night show highlights - YouTube — Mozilla Firefox");
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown) << "ignore: no local tier sees it";
}

TEST_F(PrivateWindowTest, ALocalJudgeReadsAnUndecidedPrivateWindowAndNothingOfItIsKept) {
  const std::string flu = "Flu symptoms and treatment";
  (void)seePrivate(flu, "", Engine::Advisors::LocalJudgeAndNudge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  EXPECT_EQ(engine().view().nudge, "") << "the judge is asked, not the person";
  advance(12'000);
  Decision decision = seePrivate(flu, "", Engine::Advisors::LocalJudgeAndNudge);
  ASSERT_TRUE(decision.judge);
  EXPECT_EQ(decision.judge->input.title, flu) << "the raw title, in memory, to a local judge";
  const std::string key = decision.judge->key;
  EXPECT_THAT(key, Not(HasSubstr("Flu")));
  EXPECT_TRUE(Engine::isPrivateKey(key));
  decision = engine().applyVerdict(key, verdict(false, "Flu symptoms are not the blog"), "", utc_);
  EXPECT_TRUE(decision.episodeStarted);
  EXPECT_EQ(engine().view().status, DriftStatus::Drifting);
  EXPECT_THAT(engine().view().reason, Not(HasSubstr("Flu"))) << "the judge's words may quote it";
  EXPECT_EQ(engine().view().reason,
            "the local AI judge says this private window does not serve the next action");

  // Another private window is another subject; back on the first, nothing
  // was cached under a key every private window could reach: asked afresh.
  advance(1'000);
  decision = seePrivate("Weather tomorrow", "", Engine::Advisors::LocalJudgeAndNudge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
  advance(12'000);
  decision = seePrivate("Weather tomorrow", "", Engine::Advisors::LocalJudgeAndNudge);
  ASSERT_TRUE(decision.judge);
  EXPECT_NE(decision.judge->key, key);
  advance(1'000);
  (void)seePrivate(flu, "", Engine::Advisors::LocalJudgeAndNudge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

TEST_F(PrivateWindowTest, AJudgeWhosePromptsLeaveTheMachineNeverReadsOne) {
  (void)seePrivate("Flu symptoms and treatment");
  advance(12'000);
  const Decision decision = seePrivate("Flu symptoms and treatment");
  EXPECT_FALSE(decision.judge);
  EXPECT_EQ(engine().view().status, DriftStatus::Unknown);
  // A known distraction whose title shares the commitment's words is the
  // local judge's to decide, and a heads-up with a remote one.
  const std::string tutorial = "Learn Gatsby: your first site in an hour - YouTube";
  (void)seePrivate(tutorial);
  EXPECT_THAT(engine().view().nudge, HasSubstr("A private window"));
  (void)seePrivate(tutorial, "", Engine::Advisors::LocalJudgeAndNudge);
  EXPECT_EQ(engine().view().status, DriftStatus::Judging);
}

}  // namespace
}  // namespace antidrift::drift
