// drift::ActiveSession and drift::admitWindow: the one door the Controller and
// the replay share — a window admitted as evidence, observed, judged, the
// decision stepped into the stats and the timeline with its AI calls handed
// to the owner's port, credited at the end.
#include "antidrift/drift/active_session.h"

#include <gtest/gtest.h>

namespace antidrift::drift {
namespace {

constexpr std::int64_t kStart = 1'700'000'000'000;

Settings blockingSteam() {
  Settings settings;
  settings.blockedApps = {"steam"};
  return settings;
}

Commitment gatsby() {
  Commitment commitment;
  commitment.nextAction = "Add page transitions to the chango.dev Gatsby site";
  commitment.successCondition = "Transitions work between blog pages";
  commitment.allowedApps = {"code - insiders"};
  commitment.startedAtMs = kStart;
  commitment.deadlineMs = kStart + 3'600'000;
  return commitment;
}

TEST(AdmitWindow, NormalizesTheAppAndKeepsTheSiteTimeAndSource) {
  const Rules rules(Settings{});
  const Observation obs = admitWindow(
      rules, Observation{kStart, "Firefox", "Gatsby docs\x07", "x11", "gatsbyjs.com", false});
  EXPECT_EQ(obs.app, "firefox");
  EXPECT_EQ(obs.title, "Gatsby docs");  // the control character is dropped
  EXPECT_EQ(obs.domain, "gatsbyjs.com");
  EXPECT_EQ(obs.atMs, kStart);
  EXPECT_EQ(obs.source, "x11");
  EXPECT_FALSE(obs.privateWindow);
}

TEST(AdmitWindow, APrivateWindowLosesItsTitleAndSiteButTheHardRulesSawTheTitle) {
  Settings settings;
  settings.blockedTitles = {{"gambling", "casino"}};  // name → pattern
  const Rules rules(settings);
  const Observation obs = admitWindow(
      rules, Observation{kStart, "Firefox", "Online casino", "x11", "casino.example", true});
  EXPECT_TRUE(obs.privateWindow);
  EXPECT_EQ(obs.title, std::string(kPrivateWindowTitle));
  EXPECT_EQ(obs.domain, "");
  EXPECT_FALSE(obs.blockedTitle.empty());
}

// Issue 19 item 7, review L5: the title patterns run on entry, once, so the
// Controller runs them before its lock; the engine trusts the entry's result.
TEST(AdmitWindow, TheTitleRulesRunOnEntryAndTheEngineRunsNoPatternAgain) {
  Settings settings;
  settings.blockedTitles = {{"gambling", "casino"}};
  const Rules rules(settings);
  const Observation blocked =
      admitWindow(rules, Observation{kStart, "Firefox", "Online casino - Mozilla Firefox", "x11"});
  EXPECT_TRUE(blocked.titleRulesChecked);
  EXPECT_EQ(blocked.blockedTitle,
            "\"casino\" in the title is blocked (drift.blocked_titles.gambling)");
  const Observation plain =
      admitWindow(rules, Observation{kStart, "Firefox", "Gatsby docs - Mozilla Firefox", "x11"});
  EXPECT_TRUE(plain.titleRulesChecked);
  EXPECT_EQ(plain.blockedTitle, "");

  // A window whose entry found nothing is not matched again: the same title,
  // said to be checked, passes; unchecked (a caller that skipped the entry
  // step), the engine still runs the pattern.
  Observation checked = plain;
  checked.title = "Online casino - Mozilla Firefox";
  EXPECT_EQ(rules.blockedReason(checked), std::nullopt);
  checked.titleRulesChecked = false;
  EXPECT_EQ(rules.blockedReason(checked), blocked.blockedTitle);
  EXPECT_EQ(rules.blockedReason(blocked), blocked.blockedTitle);
}

/// A browser page no local tier knows: only the judge can tell.
Observation unknownPage(const ActiveSession& session) {
  return admitWindow(session.engine.rules(),
                     Observation{kStart, "Firefox", "Some unknown page - Mozilla Firefox", "x11"});
}

/// The judge's "off task" for `reason`.
ai::Verdict offTask(const char* reason) {
  ai::Verdict verdict;
  verdict.onTask = false;
  verdict.reason = reason;
  return verdict;
}

/// A port that keeps what it is asked and answers nothing (the Controller's
/// shape: the answers come later).
struct KeptRequests final : AdvisorPort {
  std::vector<JudgeRequest> judges;
  std::vector<NudgeRequest> nudges;
  void askJudge(JudgeRequest request) override { judges.push_back(std::move(request)); }
  void askNudge(NudgeRequest request) override { nudges.push_back(std::move(request)); }
};

TEST(ActiveSession, ADecisionIsRecordedInTheStatsAndTheTimelineAndCreditedAtTheEnd) {
  const Settings settings = blockingSteam();
  ActiveSession session(settings);
  const Commitment commitment = gatsby();
  const Observation steam =
      admitWindow(session.engine.rules(), Observation{kStart, "Steam", "Library", "x11"});
  session.observe(steam);
  Decision decision =
      session.evaluate(&steam, "", false, commitment, kStart, 0, Engine::Advisors::None);
  EXPECT_TRUE(decision.episodeStarted);
  KeptRequests port;
  EXPECT_EQ(session.step(decision, kStart, steam.app, false, port), 0);
  EXPECT_EQ(session.stats.stats().driftEpisodes, 1);
  EXPECT_TRUE(port.judges.empty());  // a blocked app needs no judge

  const std::int64_t driftMs = session.creditUntil(kStart + 60'000);
  EXPECT_EQ(driftMs, 60'000);
  EXPECT_EQ(session.stats.stats().driftMs, 60'000);
  EXPECT_EQ(session.stats.stats().bucketsMs.at("steam"), 60'000);
  ASSERT_EQ(session.timeline.spans().size(), 1u);
  EXPECT_EQ(session.timeline.spans()[0].status, SpanStatus::Drifting);
  EXPECT_EQ(session.timeline.spans()[0].endMs, kStart + 60'000);
}

TEST(ActiveSession, AwayWinsInTheTimelineAndClearStartsAfresh) {
  ActiveSession session(blockingSteam());
  const Commitment commitment = gatsby();
  const Observation code = admitWindow(session.engine.rules(),
                                       Observation{kStart, "Code - Insiders", "index.js", "x11"});
  session.observe(code);
  KeptRequests port;
  Decision first =
      session.evaluate(&code, "", false, commitment, kStart, 0, Engine::Advisors::None);
  session.step(first, kStart, code.app, false, port);
  session.setAway(true, kStart + 10'000);
  Decision away =
      session.evaluate(&code, "", true, commitment, kStart + 10'000, 0, Engine::Advisors::None);
  session.step(away, kStart + 10'000, code.app, true, port);
  session.creditUntil(kStart + 20'000);
  ASSERT_EQ(session.timeline.spans().size(), 2u);
  EXPECT_EQ(session.timeline.spans()[0].status, SpanStatus::OnTask);
  EXPECT_EQ(session.timeline.spans()[1].status, SpanStatus::Away);

  session.clear(blockingSteam(), false, kStart + 20'000);
  EXPECT_TRUE(session.timeline.spans().empty());
  EXPECT_TRUE(session.stats.stats().bucketsMs.empty());
  EXPECT_EQ(session.engine.view().status, DriftStatus::Inactive);
}

TEST(ActiveSession, EveryStepCreditsTheOpenDriftSoTheStatsRunWithTheTimeline) {
  ActiveSession session(blockingSteam());
  const Commitment commitment = gatsby();
  const Observation steam =
      admitWindow(session.engine.rules(), Observation{kStart, "Steam", "Library", "x11"});
  KeptRequests port;
  session.observe(steam);
  Decision first =
      session.evaluate(&steam, "", false, commitment, kStart, 0, Engine::Advisors::None);
  session.step(first, kStart, steam.app, false, port);
  // Still drifting 30 s on: the step credits those 30 s at once, not only at the end.
  Decision later = session.evaluate(&steam, "", false, commitment, kStart + 30'000, 30'000,
                                    Engine::Advisors::None);
  EXPECT_EQ(session.step(later, kStart + 30'000, steam.app, false, port), 30'000);
  EXPECT_EQ(session.stats.stats().driftMs, 30'000);
  // The end credits only what is left: the total is the drift's whole length.
  EXPECT_EQ(session.creditUntil(kStart + 45'000), 15'000);
  EXPECT_EQ(session.stats.stats().driftMs, 45'000);
}

TEST(ActiveSession, TheJudgeCallADecisionAsksForGoesToThePortAndItsAnswerBackThroughTheDoor) {
  Settings settings;
  settings.judgeDwellSecs = 0;
  ActiveSession session(settings);
  const Commitment commitment = gatsby();
  const Observation page = unknownPage(session);
  KeptRequests port;
  session.observe(page);
  Decision decision =
      session.evaluate(&page, "", false, commitment, kStart, 0, Engine::Advisors::JudgeAndNudge);
  session.step(decision, kStart, page.app, false, port);
  ASSERT_EQ(port.judges.size(), 1u);
  Decision applied = session.applyVerdict(
      port.judges[0].key, offTask("a page about something else"), "", kStart + 5'000);
  session.step(applied, kStart + 5'000, page.app, false, port);
  EXPECT_EQ(session.engine.view().status, DriftStatus::Drifting);
  EXPECT_EQ(session.stats.stats().driftEpisodes, 1);
  ASSERT_FALSE(session.timeline.spans().empty());
  EXPECT_EQ(session.timeline.spans().back().status, SpanStatus::Drifting);
}

/// A port that answers at once, as the replay does: the judge's verdict
/// re-enters the door from inside the call.
struct AnswersAtOnce final : AdvisorPort {
  ActiveSession* session = nullptr;
  std::int64_t atMs = 0;
  std::string app;
  int judged = 0;
  void askJudge(JudgeRequest request) override {
    ++judged;
    Decision applied = session->applyVerdict(request.key, offTask("not the task"), "", atMs);
    session->step(applied, atMs, app, false, *this);
  }
  void askNudge(NudgeRequest) override {}
};

TEST(ActiveSession, APortThatAnswersAtOnceReentersTheDoorAndTheDriftStartsAtThatInstant) {
  Settings settings;
  settings.judgeDwellSecs = 0;
  ActiveSession session(settings);
  const Commitment commitment = gatsby();
  const Observation page = unknownPage(session);
  AnswersAtOnce port;
  port.session = &session;
  port.app = page.app;
  session.observe(page);
  Decision decision =
      session.evaluate(&page, "", false, commitment, kStart, 0, Engine::Advisors::JudgeAndNudge);
  port.atMs = kStart;
  session.step(decision, kStart, page.app, false, port);
  EXPECT_EQ(port.judged, 1);
  EXPECT_EQ(session.engine.view().status, DriftStatus::Drifting);
  EXPECT_EQ(session.creditUntil(port.atMs + 20'000), 20'000);
}

TEST(ActiveSession, ANudgeAnswerThatChangesNothingTracksNothing) {
  ActiveSession session(blockingSteam());
  // No heads-up was asked for: an answer (or a failure) changes nothing.
  EXPECT_EQ(session.answerNudge(std::nullopt, kStart, "code - insiders", false), std::nullopt);
  EXPECT_TRUE(session.timeline.spans().empty());
}

// A person must look at AntiDrift to press a banner button: the banner stays,
// but those seconds are neutral — no drift time, no drifting span, and going
// back to the same distraction is the same visit.
TEST(ActiveSession, LookingAtTheOwnPageDuringADriftKeepsTheBannerAndAddsNoDriftTime) {
  Settings settings = blockingSteam();
  settings.ownPageTag = "0a1b2c3d";
  ActiveSession session(settings);
  const Commitment commitment = gatsby();
  KeptRequests port;
  auto at = [&](std::int64_t offsetMs, const char* app, const char* title) {
    Observation obs =
        admitWindow(session.engine.rules(), Observation{kStart + offsetMs, app, title, "x11"});
    session.observe(obs);
    Decision decision = session.evaluate(&obs, "", false, commitment, kStart + offsetMs, offsetMs,
                                         Engine::Advisors::None);
    session.step(decision, kStart + offsetMs, obs.app, false, port);
  };
  at(0, "Steam", "Library");
  ASSERT_EQ(session.engine.view().status, DriftStatus::Drifting);
  at(10'000, "Firefox", "AntiDrift 0a1b2c3d — Mozilla Firefox");
  EXPECT_EQ(session.engine.view().status, DriftStatus::Drifting);  // the banner stays
  EXPECT_EQ(session.stats.stats().driftMs, 10'000);
  at(25'000, "Firefox", "AntiDrift 0a1b2c3d — Mozilla Firefox");  // still looking
  EXPECT_EQ(session.stats.stats().driftMs, 10'000);
  at(30'000, "Steam", "Library");  // back to the distraction: the drift goes on
  EXPECT_EQ(session.stats.stats().driftEpisodes, 1);
  EXPECT_EQ(session.creditUntil(kStart + 40'000), 10'000);
  EXPECT_EQ(session.stats.stats().driftMs, 20'000);

  const std::vector<TimelineSpan>& spans = session.timeline.spans();
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].status, SpanStatus::Drifting);
  EXPECT_EQ(spans[1].status, SpanStatus::Neutral);
  EXPECT_EQ(spans[1].endMs - spans[1].startMs, 20'000);
  EXPECT_EQ(spans[2].status, SpanStatus::Drifting);
  ASSERT_EQ(session.focus.state().sites.size(), 1u);
  EXPECT_EQ(session.focus.state().sites[0].visits, 1);
  EXPECT_EQ(session.focus.state().sites[0].driftMs, 20'000);
}

TEST(ActiveSession, BackToTaskPressedOnTheOwnPageEndsTheDriftAtTheLookNotAtThePress) {
  Settings settings = blockingSteam();
  settings.ownPageTag = "0a1b2c3d";
  ActiveSession session(settings);
  const Commitment commitment = gatsby();
  KeptRequests port;
  Observation steam =
      admitWindow(session.engine.rules(), Observation{kStart, "Steam", "Library", "x11"});
  Decision first =
      session.evaluate(&steam, "", false, commitment, kStart, 0, Engine::Advisors::None);
  session.step(first, kStart, steam.app, false, port);
  Observation page = admitWindow(
      session.engine.rules(),
      Observation{kStart + 10'000, "Firefox", "AntiDrift 0a1b2c3d — Mozilla Firefox", "x11"});
  Decision look = session.evaluate(&page, "", false, commitment, kStart + 10'000, 10'000,
                                   Engine::Advisors::None);
  session.step(look, kStart + 10'000, page.app, false, port);
  Decision back = session.engine.refocus(kStart + 40'000);
  session.step(back, kStart + 40'000, page.app, false, port);
  EXPECT_NE(session.engine.view().status, DriftStatus::Drifting);
  session.creditUntil(kStart + 60'000);
  EXPECT_EQ(session.stats.stats().driftMs, 10'000);
}

}  // namespace
}  // namespace antidrift::drift
