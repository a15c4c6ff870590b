// drift::ActiveSession and drift::admitWindow (issue 15 item 2): the steps
// the Controller and the replay share — a window admitted as evidence,
// observed, judged, recorded in the stats and the timeline, credited at the end.
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
  session.record(decision);
  session.track(kStart, steam.app, false);
  EXPECT_EQ(session.stats.stats().driftEpisodes, 1);

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
  session.record(session.evaluate(&code, "", false, commitment, kStart, 0, Engine::Advisors::None));
  session.track(kStart, code.app, false);
  session.setAway(true, kStart + 10'000);
  session.track(kStart + 10'000, code.app, true);
  session.creditUntil(kStart + 20'000);
  ASSERT_EQ(session.timeline.spans().size(), 2u);
  EXPECT_EQ(session.timeline.spans()[0].status, SpanStatus::OnTask);
  EXPECT_EQ(session.timeline.spans()[1].status, SpanStatus::Away);

  session.clear(blockingSteam(), false, kStart + 20'000);
  EXPECT_TRUE(session.timeline.spans().empty());
  EXPECT_TRUE(session.stats.stats().bucketsMs.empty());
  EXPECT_EQ(session.engine.view().status, DriftStatus::Inactive);
}

}  // namespace
}  // namespace antidrift::drift
