// The DriftBench scorer (issue 16 items 1 and 6): small hand-made traces and
// label files whose answers are worked out by hand in the comments, and a real
// replay (AI off, one blocked-title rule) of a hand-made day scored end to end.
#include "antidrift/replay/label_score.h"

#include <sstream>

#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/replay/replay.h"

namespace antidrift::replay {
namespace {

Labels labelsOf(const std::string& jsonl) {
  std::istringstream in(jsonl);
  return parseLabels(in, "labels.jsonl");
}

TraceEvent event(std::int64_t atS, std::int64_t endS, const std::string& app,
                 const std::string& title, bool allowed = false, std::int64_t bannerStarts = 0) {
  return TraceEvent{atS * 1000, endS * 1000, app, title, allowed, bannerStarts};
}

TraceSlice slice(std::size_t index, std::int64_t startS, std::int64_t endS, bool banner,
                 bool headsUp = false, bool active = true) {
  return TraceSlice{index, startS * 1000, endS * 1000, active, banner, headsUp};
}

const char* kLabels =
    R"({"app": "code", "title": "app.js - site", "label": "on"}
{"app": "code", "title": "main.py - other", "label": "off", "why": "another project"}
{"app": "firefox", "title": "Facebook", "label": "off"}
{"app": "firefox", "title": "New Tab", "label": "neutral"}
# a comment, then a blank line

{"app": "firefox", "title": "Transitions docs", "label": "on"}
)";

TEST(LabelsFile, ReadsEveryLabelAndSkipsCommentsAndBlankLines) {
  const Labels labels = labelsOf(kLabels);
  EXPECT_EQ(labels.size(), 5u);
  EXPECT_EQ(labels.find("code", "app.js - site"), Label::On);
  EXPECT_EQ(labels.find("code", "main.py - other"), Label::Off);
  EXPECT_EQ(labels.find("firefox", "New Tab"), Label::Neutral);
  EXPECT_EQ(labels.find("firefox", "Twitter"), std::nullopt);
  EXPECT_EQ(labels.find("Code", "app.js - site"), std::nullopt) << "app and title exactly";
}

TEST(LabelsFile, NamesTheLineOfABadLabel) {
  try {
    labelsOf(
        "{\"app\": \"a\", \"title\": \"t\", \"label\": \"on\"}\n"
        "{\"app\": \"a\", \"title\": \"u\", \"label\": \"maybe\"}\n");
    FAIL() << "no error";
  } catch (const ReplayError& error) {
    EXPECT_NE(std::string(error.what()).find("labels.jsonl line 2"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(labelsOf("{\"app\": \"a\", \"label\": \"on\"}\n"), ReplayError);
  EXPECT_THROW(labelsOf("not json\n"), ReplayError);
  EXPECT_THROW(labelsOf("# nothing\n\n"), ReplayError);
  EXPECT_THROW(loadLabels("/nonexistent/labels.jsonl"), ReplayError);
}

// A day by hand (seconds):
//   0–100   code "app.js - site" (on, allowed)         banner 80–100 (a false banner, 1 start)
//   100–160 firefox "Facebook" (off)                    banner from 110: told 50 of 60
//   160–170 firefox "New Tab" (neutral)                 banner up
//   170–230 code "main.py - other" (off, allowed)       heads-up 200–230: told 30 of 60
//   230–250 firefox "Twitter" (absent: neutral)         nothing
//   250–290 firefox "Facebook" (off)                    away 250–260, nothing after: 30 active
//   290–300 code "app.js - site" (on)                   nothing
// on: 100 + 10 = 110 s, banner 20 s → false_time 20/110; 1 start in 110 s = 32.727…/h
// off: 60 + 60 + 30 = 150 s; banner 50, heads-up 30 → recall 80/150, banner 50/150, 30/150
// neutral: 10 + 20 = 30 s (Twitter's 20 unlabelled)
// visits: events 1–5 are one run (neutral ones do not break it), off 150 s ≥ 30: 1 visit,
//   caught at 110, 10 s after its start at 100.
ReplayReport handMadeDay() {
  ReplayReport report;
  report.windowChanges = 6;
  report.judgeCalls = 2;
  report.nudgeCalls = 3;
  Trace& trace = report.trace;
  trace.events = {event(0, 100, "code", "app.js - site", true, 1),
                  event(100, 160, "firefox", "Facebook"),
                  event(160, 170, "firefox", "New Tab"),
                  event(170, 230, "code", "main.py - other", true),
                  event(230, 250, "firefox", "Twitter"),
                  event(250, 290, "firefox", "Facebook"),
                  event(290, 300, "code", "app.js - site", true)};
  trace.slices = {slice(0, 0, 80, false),
                  slice(0, 80, 100, true),
                  slice(1, 100, 110, false),
                  slice(1, 110, 160, true),
                  slice(2, 160, 170, true),
                  slice(3, 170, 200, false),
                  slice(3, 200, 230, false, true),
                  slice(4, 230, 250, false),
                  slice(5, 250, 260, false, false, false),
                  slice(5, 260, 290, false),
                  slice(6, 290, 300, false)};
  return report;
}

TEST(LabelScore, HandMadeDayGivesTheFiguresWorkedOutByHand) {
  const LabelScore score = scoreLabels(handMadeDay(), labelsOf(kLabels));
  EXPECT_EQ(score.labels, 5u);
  EXPECT_EQ(score.onMs, 110'000);
  EXPECT_EQ(score.offMs, 150'000);
  EXPECT_EQ(score.neutralMs, 30'000);
  EXPECT_EQ(score.offBannerMs, 50'000);
  EXPECT_EQ(score.offHeadsUpMs, 30'000);
  EXPECT_DOUBLE_EQ(score.recallTime, 80.0 / 150.0);
  EXPECT_DOUBLE_EQ(score.recallBanner, 50.0 / 150.0);
  EXPECT_DOUBLE_EQ(score.recallHeadsUp, 30.0 / 150.0);
  EXPECT_EQ(score.onBannerMs, 20'000);
  EXPECT_DOUBLE_EQ(score.falseTime, 20.0 / 110.0);
  EXPECT_EQ(score.falseBanners, 1);
  EXPECT_DOUBLE_EQ(score.falseBannersPerOnHour, 3600.0 / 110.0);
  EXPECT_EQ(score.unlabelledWindows, 1);
  EXPECT_EQ(score.unlabelledEvents, 1);
  EXPECT_EQ(score.unlabelledMs, 20'000);
  EXPECT_EQ(score.visits, 1);
  EXPECT_EQ(score.visitsCaught, 1);
  EXPECT_EQ(score.timeToTellP50Ms, 10'000);
  EXPECT_EQ(score.timeToTellP90Ms, 10'000);
  EXPECT_DOUBLE_EQ(score.judgeCallsPer100Changes, 200.0 / 6.0);
  EXPECT_DOUBLE_EQ(score.nudgeCallsPer100Changes, 300.0 / 6.0);

  ASSERT_EQ(score.events.size(), 7u);
  EXPECT_EQ(score.events[3].activeMs, 60'000);
  EXPECT_EQ(score.events[3].headsUpMs, 30'000);
  EXPECT_EQ(score.events[3].bannerMs, 0);
  EXPECT_EQ(score.events[5].activeMs, 30'000) << "away time is not active";
  EXPECT_FALSE(score.events[4].labelled);
  EXPECT_EQ(score.events[4].label, Label::Neutral);

  // Missed: Facebook 10 + 30 = 40 s over two events, main.py 30 s. False: app.js 20 s.
  ASSERT_EQ(score.costliestMissed.size(), 2u);
  EXPECT_EQ(score.costliestMissed[0].title, "Facebook");
  EXPECT_EQ(score.costliestMissed[0].costMs, 40'000);
  EXPECT_EQ(score.costliestMissed[0].events, 2);
  EXPECT_EQ(score.costliestMissed[1].title, "main.py - other");
  EXPECT_EQ(score.costliestMissed[1].costMs, 30'000);
  ASSERT_EQ(score.costliestFalse.size(), 1u);
  EXPECT_EQ(score.costliestFalse[0].title, "app.js - site");
  EXPECT_EQ(score.costliestFalse[0].costMs, 20'000);
}

TEST(LabelScore, AHeadsUpOutsideAnAllowedAppTellsNobody) {
  ReplayReport report;
  report.trace.events = {event(0, 60, "firefox", "Facebook", false)};
  report.trace.slices = {slice(0, 0, 60, false, true)};
  const LabelScore score = scoreLabels(report, labelsOf(kLabels));
  EXPECT_EQ(score.offMs, 60'000);
  EXPECT_EQ(score.offHeadsUpMs, 0);
  EXPECT_DOUBLE_EQ(score.recallTime, 0.0);
  EXPECT_EQ(score.visits, 1);
  EXPECT_EQ(score.visitsCaught, 0);
  EXPECT_EQ(score.timeToTellP50Ms, std::nullopt);
}

// Visits: an on window breaks a run; a run needs 30 s of off time.
//   0–20 Facebook (off, told at 5), 20–40 app.js (on), 40–75 main.py (off, told at 60),
//   75–90 New Tab (neutral), 90–100 Facebook (off, never told), 100–110 app.js (on),
//   110–190 Facebook (off, told at 150).
// Runs: [0,20) 20 s — not a visit; [40,100) 35 + 10 = 45 s — caught after 20 s;
//   [110,190) 80 s — caught after 40 s. Two visits, both caught: p50 = 20 s, p90 = 40 s.
TEST(LabelScore, VisitsAreRunsOfOffTimeOfAtLeastThirtySeconds) {
  ReplayReport report;
  report.trace.events = {event(0, 20, "firefox", "Facebook"),
                         event(20, 40, "code", "app.js - site", true),
                         event(40, 75, "code", "main.py - other", true),
                         event(75, 90, "firefox", "New Tab"),
                         event(90, 100, "firefox", "Facebook"),
                         event(100, 110, "code", "app.js - site", true),
                         event(110, 190, "firefox", "Facebook")};
  report.trace.slices = {slice(0, 0, 5, false),         slice(0, 5, 20, true),
                         slice(1, 20, 40, false),       slice(2, 40, 60, false),
                         slice(2, 60, 75, false, true), slice(3, 75, 90, false),
                         slice(4, 90, 100, false),      slice(5, 100, 110, false),
                         slice(6, 110, 150, false),     slice(6, 150, 190, true)};
  const LabelScore score = scoreLabels(report, labelsOf(kLabels));
  EXPECT_EQ(score.visits, 2);
  EXPECT_EQ(score.visitsCaught, 2);
  EXPECT_EQ(score.timeToTellP50Ms, 20'000);
  EXPECT_EQ(score.timeToTellP90Ms, 40'000);
  EXPECT_EQ(score.falseBanners, 0);
  EXPECT_DOUBLE_EQ(score.falseTime, 0.0);
}

TEST(LabelScore, JsonCarriesTheFiguresAndEveryEvent) {
  const LabelScore score = scoreLabels(handMadeDay(), labelsOf(kLabels));
  Poco::JSON::Parser parser;
  const auto root = parser.parse(labelScoreJson(score, true)).extract<Poco::JSON::Object::Ptr>();
  EXPECT_DOUBLE_EQ(root->getValue<double>("recall_time"), 80.0 / 150.0);
  EXPECT_DOUBLE_EQ(root->getValue<double>("recall_time_heads_up"), 30.0 / 150.0);
  EXPECT_EQ(root->getValue<std::int64_t>("visits_caught"), 1);
  EXPECT_EQ(root->getValue<std::int64_t>("time_to_tell_p90_ms"), 10'000);
  EXPECT_EQ(root->getValue<std::int64_t>("unlabelled_windows"), 1);
  const auto events = root->getArray("events");
  ASSERT_EQ(events->size(), 7u);
  const auto third = events->getObject(3);
  EXPECT_EQ(third->getValue<std::string>("title"), "main.py - other");
  EXPECT_EQ(third->getValue<std::string>("label"), "off");
  EXPECT_EQ(third->getValue<std::int64_t>("at_ms"), 170'000);
  EXPECT_EQ(third->getValue<std::int64_t>("end_ms"), 230'000);
  EXPECT_EQ(third->getValue<std::int64_t>("heads_up_ms"), 30'000);
  EXPECT_FALSE(
      parser.parse(labelScoreJson(score, false)).extract<Poco::JSON::Object::Ptr>()->has("events"));

  const std::string text = labelScoreText(score);
  EXPECT_NE(text.find("recall_time 0.533 (banner 0.333, heads-up 0.200)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"Facebook\""), std::string::npos) << text;
}

// The real replay, AI off, traced and scored: a blocked-title rule raises the
// banner on Facebook at once, the allowed editor is on task, and nothing else
// is said.
//   09:00:00 code "app.js - site" 60 s (on)    09:01:00 firefox "Facebook" 60 s (off, banner)
//   09:02:00 firefox "Transitions docs" 30 s (on; AI off: unknown, no banner)
// on 90 s, off 60 s, all told; no false banner; one visit caught at once.
TEST(LabelScore, ARealReplayIsTracedAndScored) {
  std::istringstream day(
      R"({"at": "2026-01-05T09:00:00Z", "app": "code", "title": "app.js - site", "duration_s": 60}
{"at": "2026-01-05T09:01:00Z", "app": "firefox", "title": "Facebook", "duration_s": 60}
{"at": "2026-01-05T09:02:00Z", "app": "firefox", "title": "Transitions docs", "duration_s": 30}
)");
  const Activity activity = parseObservationsJsonl(day, "day.jsonl");
  ReplayOptions options;
  options.settings.blockedTitles["social"] = "facebook";
  options.keepTrace = true;
  CommitmentRange range;
  range.fromMs = std::numeric_limits<std::int64_t>::min();
  range.toMs = std::numeric_limits<std::int64_t>::max();
  range.nextAction = "Add page transitions";
  range.allowedApps = {"code"};
  options.commitments = {range};
  const ReplayReport report = runReplay(activity, options);
  ASSERT_EQ(report.trace.events.size(), 3u);
  EXPECT_TRUE(report.trace.events[0].allowedApp);
  EXPECT_FALSE(report.trace.events[1].allowedApp);
  EXPECT_EQ(report.trace.events[1].bannerStarts, 1);

  const LabelScore score = scoreLabels(report, labelsOf(kLabels));
  EXPECT_EQ(score.onMs, 90'000);
  EXPECT_EQ(score.offMs, 60'000);
  EXPECT_DOUBLE_EQ(score.recallTime, 1.0);
  EXPECT_DOUBLE_EQ(score.falseTime, 0.0);
  EXPECT_EQ(score.falseBanners, 0);
  EXPECT_EQ(score.visits, 1);
  EXPECT_EQ(score.visitsCaught, 1);
  EXPECT_EQ(score.timeToTellP50Ms, 0);
  EXPECT_EQ(score.unlabelledWindows, 0);

  options.keepTrace = false;
  EXPECT_TRUE(runReplay(activity, options).trace.events.empty());
}

}  // namespace
}  // namespace antidrift::replay
