// The label oracle of DriftBench (issue 16 item 1, `replay --labels --oracle`): its judge and
// nudge answers on their own, then hand-made days replayed with it, the answers worked out by
// hand in the comments.
#include "antidrift/replay/oracle.h"

#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "antidrift/ai/nudge.h"
#include "antidrift/drift/engine.h"
#include "antidrift/replay/replay.h"

namespace antidrift::replay {
namespace {

Labels labelsOf(const std::string& jsonl) {
  std::istringstream in(jsonl);
  return parseLabels(in, "labels.jsonl");
}

const char* kLabels =
    R"({"app": "code", "title": "parser.c - proj", "label": "on"}
{"app": "code", "title": "notes.md - other", "label": "off"}
{"app": "code", "title": "todo.md - other", "label": "off"}
{"app": "firefox", "title": "Cat pictures", "label": "off"}
{"app": "firefox", "title": "New Tab", "label": "neutral"}
{"app": "firefox", "title": "Lexing tutorial", "label": "on"}
)";

OracleWindow window(const std::string& title, const std::string& app = "code") {
  return OracleWindow{app, title, ""};
}

TEST(OracleJudge, AnswersTheWindowsLabelScopedToThePage) {
  const Labels labels = labelsOf(kLabels);
  const ai::Verdict off = oracleVerdict(labels, "firefox", "Cat pictures");
  EXPECT_FALSE(off.onTask);
  EXPECT_EQ(off.reason, kOracleOffReason);
  EXPECT_EQ(off.scope, ai::VerdictScope::Page);
  const ai::Verdict on = oracleVerdict(labels, "firefox", "Lexing tutorial");
  EXPECT_TRUE(on.onTask);
  EXPECT_EQ(on.reason, "labelled on task");
  EXPECT_EQ(on.scope, ai::VerdictScope::Page);
}

TEST(OracleJudge, NeutralAndUnlabelledWindowsAreOnTask) {
  const Labels labels = labelsOf(kLabels);
  const ai::Verdict neutral = oracleVerdict(labels, "firefox", "New Tab");
  EXPECT_TRUE(neutral.onTask);
  EXPECT_EQ(neutral.reason, "labelled neutral");
  EXPECT_TRUE(oracleVerdict(labels, "firefox", "Dog pictures").onTask) << "absent: neutral";
  EXPECT_TRUE(oracleVerdict(labels, "Firefox", "Cat pictures").onTask)
      << "the labels' key is the app exactly as recorded";
}

TEST(OracleNudge, OffTrackWhenTheNewestAndMostOfTheNewestThreeAreOff) {
  const Labels labels = labelsOf(kLabels);
  const std::string on = "parser.c - proj";
  const std::string off1 = "notes.md - other";
  const std::string off2 = "todo.md - other";
  const std::string both =
      "Heads up: these windows are labelled off task: \"" + off1 + "\", \"" + off2 + "\"";
  EXPECT_EQ(oracleNudge(labels, {}), "");
  EXPECT_EQ(oracleNudge(labels, {window(on), window(off1)}), "") << "1 of 2";
  EXPECT_EQ(oracleNudge(labels, {window(off1), window(off2)}), both);
  EXPECT_EQ(oracleNudge(labels, {window(off1), window(on)}), "") << "the newest is on";
  EXPECT_EQ(oracleNudge(labels, {window(on), window(off1), window(off2)}), both);
  EXPECT_EQ(oracleNudge(labels, {window(off1), window(on), window(off2)}),
            "Heads up: these windows are labelled off task: \"" + off1 + "\", \"" + off2 + "\"");
  EXPECT_EQ(oracleNudge(labels, {window(off1), window(off2), window(on)}), "");
  // Only the newest three count: off, off, [on, off, on] → the newest is on.
  EXPECT_EQ(oracleNudge(labels, {window(off1), window(off2), window(on), window(off1), window(on)}),
            "");
  // Unlabelled titles are neutral: [unknown, unknown, off] is 1 of 3.
  EXPECT_EQ(oracleNudge(labels, {window("a"), window("b"), window(off2)}), "");
  EXPECT_EQ(oracleNudge(labels, {window(off1), window("b"), window(off2)}), both);
}

TEST(OracleNudge, NamesTheShownTitlesInOneCappedLine) {
  Labels labels;
  const std::string long1(150, 'x');
  const std::string long2(150, 'y');
  labels.set("code", long1, Label::Off);
  labels.set("code", long2, Label::Off);
  const std::string message =
      oracleNudge(labels, {OracleWindow{"code", long1, "first\nshown"}, window(long2)});
  EXPECT_EQ(message.rfind("Heads up: these windows are labelled off task: \"first shown\"", 0), 0u)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_EQ(message.substr(message.size() - 3), "…");
  EXPECT_LE(message.size(), ai::kMaxNudgeMessageChars + 3);
}

CommitmentRange everything(const std::string& nextAction, std::vector<std::string> allowed) {
  CommitmentRange range;
  range.fromMs = std::numeric_limits<std::int64_t>::min();
  range.toMs = std::numeric_limits<std::int64_t>::max();
  range.nextAction = nextAction;
  range.allowedApps = std::move(allowed);
  return range;
}

ReplayOptions oracleOptions(const Labels& labels) {
  ReplayOptions options;
  options.settings.heartbeatSecs = 10;
  options.settings.judgeDwellSecs = 12;
  options.settings.nudgeDebounceSecs = 300;
  options.commitments = {everything("Write the parser", {"code"})};
  options.oracle = &labels;
  options.keepTrace = true;
  return options;
}

WindowEvent at(std::int64_t startS, std::int64_t endS, const std::string& app,
               const std::string& title) {
  return WindowEvent{startS * 1000, (endS - startS) * 1000, app, title};
}

// A day by hand (seconds; heartbeats every 10 s, judge debounce 12 s):
//   0–60    code "parser.c - proj" (on, allowed)     on task
//   60–120  firefox "Cat pictures" (off)             judged at 72: off → banner 72–120
//   120–150 firefox "New Tab" (neutral)              judged at 132: on task, no banner
//   150–210 firefox "Lexing tutorial" (on)           judged at 162: on task
//   210–240 firefox "Cat pictures" (off)             cached: banner at once, 210–240
//   240–300 code "parser.c - proj" (on)              on task
// judge calls: 3 (one per distinct page); episodes: 2, both "labelled off task".
// off 60 + 30 = 90 s, told 48 + 30 = 78 s; on 180 s, no banner; neutral 30 s.
// visits: [60,120) (+ the neutral New Tab, then an on window ends it), caught 12 s in;
// [210,240), caught at once → p50 0 s, p90 12 s.
TEST(OracleReplay, TheJudgeAnswersFromTheLabelsOfTheRecordedWindow) {
  const Labels labels = labelsOf(kLabels);
  Activity activity;
  activity.windows = {
      at(0, 60, "code", "parser.c - proj"),    at(60, 120, "firefox", "Cat pictures"),
      at(120, 150, "firefox", "New Tab"),      at(150, 210, "firefox", "Lexing tutorial"),
      at(210, 240, "firefox", "Cat pictures"), at(240, 300, "code", "parser.c - proj")};
  const ReplayReport report = runReplay(activity, oracleOptions(labels));
  EXPECT_EQ(report.judgeCalls, 3);
  EXPECT_EQ(report.judgeFailures, 0);
  ASSERT_EQ(report.episodes.size(), 2u);
  EXPECT_EQ(report.episodes[0].atMs, 72'000);
  EXPECT_EQ(report.episodes[0].reason, drift::judgeReason(kOracleOffReason));  // issue 19 item 4
  EXPECT_EQ(report.episodes[1].atMs, 210'000);
  EXPECT_EQ(report.episodes[1].title, "Cat pictures");

  const LabelScore score = scoreLabels(report, labels);
  EXPECT_EQ(score.offMs, 90'000);
  EXPECT_EQ(score.offBannerMs, 78'000);
  EXPECT_DOUBLE_EQ(score.recallTime, 78.0 / 90.0);
  EXPECT_EQ(score.onMs, 180'000);
  EXPECT_EQ(score.onBannerMs, 0);
  EXPECT_EQ(score.neutralMs, 30'000);
  EXPECT_EQ(score.visits, 2);
  EXPECT_EQ(score.visitsCaught, 2);
  EXPECT_EQ(score.timeToTellP50Ms, 0);
  EXPECT_EQ(score.timeToTellP90Ms, 12'000);
  EXPECT_EQ(score.judgeCalls, 3);

  // Without labels for the day every window is neutral: judged, never a banner.
  const Labels none = labelsOf(R"({"app": "x", "title": "y", "label": "on"})");
  const ReplayReport unlabelled = runReplay(activity, oracleOptions(none));
  EXPECT_EQ(unlabelled.judgeCalls, 3);
  EXPECT_TRUE(unlabelled.episodes.empty());
}

// A day in the allowed editor by hand (heartbeats every 10 s, nudge debounce 300 s):
//   0–60    code "parser.c - proj" (on)     one distinct title: no nudge
//   60–120  code "notes.md - other" (off)   nudge at 60 on [parser, notes]: 1 of 2 off → none
//   120–520 code "todo.md - other" (off)    nudge at 360 on [parser, notes, todo]: the newest
//                                           and 2 of 3 off → heads-up from 360 to 520
// nudge calls 2, judge calls 0; off 460 s, told (heads-up, banner down) 160 s; the timeline:
// code on task [0, 360) without, [360, 520) with the heads-up.
TEST(OracleReplay, TheNudgeAnswersFromTheLabelsOfTheRecentWindows) {
  const Labels labels = labelsOf(kLabels);
  Activity activity;
  activity.windows = {at(0, 60, "code", "parser.c - proj"), at(60, 120, "code", "notes.md - other"),
                      at(120, 520, "code", "todo.md - other")};
  const ReplayReport report = runReplay(activity, oracleOptions(labels));
  EXPECT_EQ(report.nudgeCalls, 2);
  EXPECT_EQ(report.judgeCalls, 0);
  const std::vector<TimelineSpan> expected = {
      {0, 360'000, "code", SpanStatus::OnTask, false},
      {360'000, 520'000, "code", SpanStatus::OnTask, true},
  };
  EXPECT_EQ(report.timeline, expected);

  const LabelScore score = scoreLabels(report, labels);
  EXPECT_EQ(score.offMs, 460'000);
  EXPECT_EQ(score.offHeadsUpMs, 160'000);
  EXPECT_EQ(score.offBannerMs, 0);
  EXPECT_DOUBLE_EQ(score.recallHeadsUp, 160.0 / 460.0);
  EXPECT_EQ(score.nudgeCalls, 2);
}

}  // namespace
}  // namespace antidrift::replay
