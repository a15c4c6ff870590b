// `antidriftd replay` (issue 8 items 1 and 5): small recorded days through
// runReplayCommand and the real fake plugin (fast enough for the sanitizer
// builds), the binary's own wiring, bad input, and — in the DriftReplay
// suite, left out of the sanitizer builds — the whole real export
// (../shared/data, read by path) with the judge-call ratio of item 5. Its
// tests skip, saying where they looked, when the export is absent; the
// SmallExport twins run the same command and comparisons on the repository's
// own export (tests/data/README.md).
#include <sys/wait.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include "antidrift/plugin/loader.h"
#include "antidrift/replay/replay.h"
#include "server/replay_command.h"
#include "support/aw_export.h"
#include "support/temp_dir.h"

namespace antidrift {
namespace {

using Poco::JSON::Object;
using test::TempDirectory;
using ::testing::HasSubstr;

const char* kNextAction = "Add page transitions to the chango.dev Gatsby site";
const char* kSuccessCondition =
    "Transitions work between blog pages with gatsby-plugin-transition-link";

/// What one run of the command printed and returned.
struct CommandRun {
  int code = 0;
  std::string out;
  std::string err;
};

class ReplayCommandTest : public ::testing::Test {
 protected:
  CommandRun runCommand(std::vector<std::string> args) {
    // Never the developer's own configuration file.
    if (std::find(args.begin(), args.end(), "--config") == args.end()) {
      const std::string empty = dir_.file("empty.properties");
      std::ofstream(empty) << "";
      args.push_back("--config");
      args.push_back(empty);
    }
    std::ostringstream out;
    std::ostringstream err;
    CommandRun run;
    run.code = runReplayCommand(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_.file(name);
    std::ofstream(path) << text;
    return path;
  }

  /// A day in JSONL: code (allowed), two YouTube videos, GitHub, code again.
  std::string day() {
    return write(
        "day.jsonl",
        "# a small recorded day\n"
        R"({"at": "2026-05-19T09:00:00Z", "app": "Code", "title": "index.js - site", "duration_s": 600})"
        "\n"
        R"({"at": "2026-05-19T09:10:00Z", "app": "Firefox", "title": "Cats - YouTube — Mozilla Firefox", "duration_s": 60})"
        "\n"
        R"({"at": "2026-05-19T09:11:00Z", "app": "Firefox", "title": "Dogs - YouTube — Mozilla Firefox", "duration_s": 5})"
        "\n"
        R"({"at": "2026-05-19T09:11:05Z", "app": "Firefox", "title": "gatsby · GitHub — Mozilla Firefox", "duration_s": 60})"
        "\n"
        R"({"at": "2026-05-19T09:12:05Z", "app": "Code", "title": "index.js - site", "duration_s": 300})"
        "\n");
  }

  std::string responses() {
    return write("responses.json",
                 R"({"responses": [
  {"role": "judge", "match": "YouTube", "text": "{\"on_task\": false, \"reason\": \"Videos are not the site.\", \"scope\": \"site\"}"},
  {"role": "judge", "text": "{\"on_task\": true, \"reason\": \"Fits.\"}"},
  {"role": "nudge", "text": "{\"on_track\": true, \"message\": \"\"}"}
]})");
  }

  /// The fake judge, with a 12 s dwell so the 5 s Dogs video is flicker that is never asked
  /// about: the figures below are worked out by hand for that dwell, not the default.
  std::vector<std::string> fake() {
    return {"--backend", "fake",
            "-D",        "ai.plugin_dir=" FAKE_PLUGIN_DIR,
            "-D",        "ai.fake.responses=" + responses(),
            "-D",        "drift.judge_dwell_s=12"};
  }

  static Object::Ptr parse(const std::string& json) {
    Poco::JSON::Parser parser;
    return parser.parse(json).extract<Object::Ptr>();
  }

  TempDirectory dir_;
};

TEST_F(ReplayCommandTest, AJsonlDayIsReplayedWithTheFakeJudge) {
  std::vector<std::string> args = {day(),       "--next", "Build the site",
                                   "--allowed", "Code",   "--json"};
  for (const std::string& arg : fake()) args.push_back(arg);
  const CommandRun run = runCommand(args);
  ASSERT_EQ(run.code, 0) << run.err;
  const Object::Ptr report = parse(run.out);
  EXPECT_EQ(report->getValue<int>("window_events"), 5);
  EXPECT_EQ(report->getValue<int>("window_changes"), 4);
  EXPECT_EQ(report->getValue<int>("switches"), 2);  // code → firefox → code
  const Object::Ptr ai = report->getObject("ai");
  // Cats is judged (off task; the judge says "the whole site", but a site the
  // title names covers nothing: issue 19 item 4); Dogs is only 5 s in front,
  // so it is never judged nor flagged; the GitHub page is judged on its own.
  EXPECT_EQ(ai->getValue<int>("judge_calls"), 2);
  EXPECT_EQ(ai->getValue<int>("site_verdicts"), 1);
  EXPECT_EQ(ai->getValue<int>("drifted_visits"), 1);
  EXPECT_EQ(ai->getValue<int>("drift_episodes"), 1);
  // What the calls cost (issue 18 item 4): the fake reports no usage, so the
  // characters / 4 estimate; every prompt is well over 400 bytes.
  const Object::Ptr cost = ai->getObject("cost");
  ASSERT_FALSE(cost.isNull());
  EXPECT_EQ(cost->getValue<int>("calls"),
            ai->getValue<int>("judge_calls") + ai->getValue<int>("nudge_calls"));
  EXPECT_TRUE(cost->getValue<bool>("estimated"));
  EXPECT_GT(cost->getValue<int>("input_tokens"), 100 * cost->getValue<int>("calls"));
  EXPECT_GE(cost->getValue<int>("judge_p99_ms"), cost->getValue<int>("judge_p50_ms"));
  // The baseline judges each stable title on its own: Dogs is never flagged.
  const Object::Ptr baseline = report->getObject("judge_every_stable_title");
  ASSERT_FALSE(baseline.isNull());
  EXPECT_EQ(baseline->getValue<int>("drifted_visits"), 1);

  const Poco::JSON::Array::Ptr episodes = report->getArray("episodes");
  ASSERT_EQ(episodes->size(), 1u);
  EXPECT_EQ(episodes->getObject(0)->getValue<std::string>("reason"),
            "AI judge: \"Videos are not the site.\"");
  EXPECT_EQ(episodes->getObject(0)->getValue<std::int64_t>("duration_ms"), 48'000);
  const Poco::JSON::Array::Ptr apps = report->getArray("apps");
  ASSERT_EQ(apps->size(), 2u);
  EXPECT_EQ(apps->getObject(0)->getValue<std::string>("app"), "code");
  EXPECT_EQ(apps->getObject(0)->getValue<std::int64_t>("ms"), 900'000);
  EXPECT_EQ(apps->getObject(1)->getValue<std::int64_t>("ms"), 125'000);
  // On task: code (900 s) and the GitHub page once judged (48 s of its 60).
  EXPECT_EQ(report->getValue<std::int64_t>("on_task_ms"), 948'000);
  EXPECT_NEAR(report->getValue<double>("on_task_share"), 948.0 / 1025.0, 0.001);
  EXPECT_GT(report->getArray("timeline")->size(), 2u);
}

TEST_F(ReplayCommandTest, TheJsonReportHasEveryDocumentedField) {
  const CommandRun run = runCommand({day(), "--next", "Build the site", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const Object::Ptr report = parse(run.out);
  for (const char* key :
       {"from_ms", "to_ms", "sessions", "observations", "window_events", "window_changes",
        "switches", "away_ms", "tracked_ms", "active_ms", "on_task_ms", "on_task_share",
        "drifting_ms", "apps", "ai", "episodes", "timeline"}) {
    EXPECT_TRUE(report->has(key)) << key;
  }
  for (const char* key : {"judge_calls", "judge_failures", "site_verdicts", "nudge_calls",
                          "timer_30s_ticks", "drift_episodes", "drifted_visits", "drifting_ms"}) {
    EXPECT_TRUE(report->getObject("ai")->has(key)) << key;
  }
  EXPECT_FALSE(report->has("judge_every_stable_title"));  // AI off: no baseline
  EXPECT_EQ(report->getObject("ai")->getValue<int>("judge_calls"), 0);
  const Object::Ptr span = report->getArray("timeline")->getObject(0);
  for (const char* key : {"start_ms", "end_ms", "app", "status"}) EXPECT_TRUE(span->has(key));
}

TEST_F(ReplayCommandTest, TheTextReportNamesTheFigures) {
  std::vector<std::string> args = {day(), "--next", "Build the site", "--allowed", "Code"};
  for (const std::string& arg : fake()) args.push_back(arg);
  const CommandRun run = runCommand(args);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Time per app:"));
  EXPECT_THAT(run.out, HasSubstr("Switches: 2"));
  EXPECT_THAT(run.out, HasSubstr("Drift episodes: 1"));
  EXPECT_THAT(run.out, HasSubstr("Videos are not the site."));
  EXPECT_THAT(run.out, HasSubstr("AI calls: judge 2"));
  EXPECT_THAT(run.out, HasSubstr("Timeline ("));
}

// Issue 17 item 4 (the replay report, found again by the walk): the text is
// for the person — local time with UTC once, one drift line per site or app
// (not one per episode), no developer figures (those stay in --json), and a
// night without windows is not drawn as a span of the app before it.
TEST_F(ReplayCommandTest, TheTextReportIsForAPerson) {
  const std::string night = write(
      "night.jsonl",
      R"({"at": "2026-05-19T09:00:00Z", "app": "Code", "title": "index.js - site", "duration_s": 600})"
      "\n"
      R"({"at": "2026-05-19T09:10:00Z", "app": "Firefox", "title": "Cats - YouTube — Mozilla Firefox", "duration_s": 120})"
      "\n"
      R"({"at": "2026-05-19T09:12:00Z", "app": "Code", "title": "index.js - site", "duration_s": 120})"
      "\n"
      R"({"at": "2026-05-19T09:14:00Z", "app": "Firefox", "title": "Dogs - YouTube — Mozilla Firefox", "duration_s": 120})"
      "\n"
      R"({"at": "2026-05-19T09:16:00Z", "app": "Files", "title": "Downloads", "duration_s": 120})"
      "\n"
      R"({"at": "2026-05-20T05:00:00Z", "app": "Code", "title": "index.js - site", "duration_s": 600})"
      "\n");
  const char* const previous = std::getenv("TZ");
  const std::string saved = previous ? previous : "";
  ::setenv("TZ", "Europe/Berlin", 1);
  ::tzset();
  std::vector<std::string> args = {night, "--next", "Build the site", "--allowed", "Code"};
  for (const std::string& arg : fake()) args.push_back(arg);
  args.push_back("--baseline");
  const CommandRun run = runCommand(args);
  if (previous) {
    ::setenv("TZ", saved.c_str(), 1);
  } else {
    ::unsetenv("TZ");
  }
  ::tzset();
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("From 2026-05-19 11:00 to 2026-05-20 07:10 CEST (2026-05-19 "
                                 "09:00 to 2026-05-20 05:10 UTC), 1 session."));
  // Two YouTube episodes, one line, and no title of theirs.
  EXPECT_THAT(run.out, HasSubstr("Drift episodes: 2, by site or app:\n  youtube "));
  EXPECT_THAT(run.out,
              HasSubstr(" over 2 episodes  firefox — AI judge: \"Videos are not the site.\"\n\n"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("Cats")));
  for (const char* developerFigure :
       {"window events", "observations", "timer", "Judging every stable title", "1/"}) {
    EXPECT_THAT(run.out, ::testing::Not(HasSubstr(developerFigure))) << developerFigure;
  }
  // The night: Files until 11:18 local, then nothing recorded, then Code.
  EXPECT_THAT(run.out, HasSubstr("Timeline (local time):\n"));
  EXPECT_THAT(run.out, HasSubstr("  2026-05-19 11:16–11:18  ontask  files\n"
                                 "  2026-05-19 11:18–07:00  nothing recorded (19h 42m)\n"
                                 "  2026-05-20 07:00–07:10  ontask  code\n"));
}

// Issue 18 item 4: the text report says what the AI cost, for the person too.
TEST_F(ReplayCommandTest, TheTextReportSaysWhatTheAiCost) {
  std::vector<std::string> args = {day(), "--next", "Build the site", "--allowed", "Code"};
  for (const std::string& arg : fake()) args.push_back(arg);
  const CommandRun run = runCommand(args);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("tokens out (estimated: characters / 4)"));
  EXPECT_THAT(run.out, HasSubstr("; judge latency p50 "));
}

TEST_F(ReplayCommandTest, EachCommitmentRangeIsItsOwnSession) {
  const std::string commitments =
      write("commitments.txt",
            "# FROM | TO | next action | success condition | apps\n"
            "* | 2026-05-19T09:10:30Z | Build the site | It builds | Code\n"
            "\n"
            "2026-05-19T09:10:30Z | * | Watch the talk | Notes taken | Firefox\n");
  const CommandRun run = runCommand({day(), "--commitments", commitments, "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const Object::Ptr report = parse(run.out);
  EXPECT_EQ(report->getValue<int>("sessions"), 2);
  // First range: code on task (600 s), Cats not (AI off). Second: the three
  // Firefox pages on task (125 s), code is not.
  EXPECT_EQ(report->getValue<std::int64_t>("on_task_ms"), 600'000 + 65'000);
  EXPECT_EQ(report->getValue<int>("window_events"), 5);
}

TEST_F(ReplayCommandTest, AnActivityWatchExportWithAfkAndWebBucketsIsRead) {
  const std::string exported = write("export.json", R"({"buckets": {
    "aw-watcher-window_host": {"type": "currentwindow", "events": [
      {"timestamp": "2026-05-19T09:05:00+00:00", "duration": 300.0, "data": {"app": "Firefox", "title": "Cats - YouTube"}},
      {"timestamp": "2026-05-19T09:00:00.000000+00:00", "duration": 300.0, "data": {"app": "Code", "title": "index.js"}}]},
    "aw-watcher-afk_host": {"type": "afkstatus", "events": [
      {"timestamp": "2026-05-19T09:07:00+00:00", "duration": 120.0, "data": {"status": "afk"}},
      {"timestamp": "2026-05-19T09:00:00+00:00", "duration": 420.0, "data": {"status": "not-afk"}}]},
    "aw-watcher-web_host": {"type": "web.tab.current", "events": [
      {"timestamp": "2026-05-19T09:05:00+00:00", "duration": 300.0, "data": {"url": "https://youtube.com", "title": "Cats"}}]}
  }})");
  const CommandRun run =
      runCommand({exported, "--next", "Build the site", "--allowed", "Code", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const Object::Ptr report = parse(run.out);
  EXPECT_EQ(report->getValue<int>("window_events"), 2);
  EXPECT_EQ(report->getValue<std::int64_t>("away_ms"), 120'000);
  EXPECT_EQ(report->getValue<std::int64_t>("active_ms"), 480'000);  // 10 min less 2 away
  const Poco::JSON::Array::Ptr timeline = report->getArray("timeline");
  bool sawAway = false;
  for (std::size_t i = 0; i < timeline->size(); ++i) {
    sawAway =
        sawAway ||
        timeline->getObject(static_cast<unsigned>(i))->getValue<std::string>("status") == "away";
  }
  EXPECT_TRUE(sawAway);
}

TEST_F(ReplayCommandTest, BadInputIsAClearErrorAndANonZeroExit) {
  const CommandRun missing = runCommand({dir_.file("nope.json"), "--next", "x"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("cannot read"));
  EXPECT_THAT(missing.err, HasSubstr("nope.json"));

  const CommandRun malformed =
      runCommand({write("bad.jsonl", R"({"at": 1, "app": "code", "title": "x"})"
                                     "\n{\"at\": 2, \"app\": \n"),
                  "--next", "x"});
  EXPECT_EQ(malformed.code, 1);
  EXPECT_THAT(malformed.err, HasSubstr("bad.jsonl line 2 is not valid JSON"));

  const CommandRun wrongField =
      runCommand({write("field.jsonl", R"({"at": "yesterday", "app": "code"})"), "--next", "x"});
  EXPECT_EQ(wrongField.code, 1);
  EXPECT_THAT(wrongField.err, HasSubstr("\"at\" is not an ISO 8601 time"));

  const CommandRun notExport =
      runCommand({write("buckets.json", R"({"buckets": []})"), "--next", "x"});
  EXPECT_EQ(notExport.code, 1);
  EXPECT_THAT(notExport.err, HasSubstr("\"buckets\" must be an object"));

  const CommandRun empty = runCommand({write("empty.json", "  \n"), "--next", "x"});
  EXPECT_EQ(empty.code, 1);
  EXPECT_THAT(empty.err, HasSubstr("is empty"));

  const CommandRun badRange =
      runCommand({day(), "--commitments", write("c.txt", "* | * | only four | fields\n")});
  EXPECT_EQ(badRange.code, 1);
  EXPECT_THAT(badRange.err, HasSubstr("c.txt line 1: expected 5 fields"));

  const CommandRun overlap = runCommand(
      {day(), "--commitments", write("o.txt", "* | * | a | b | code\n* | * | c | d | code\n")});
  EXPECT_EQ(overlap.code, 1);
  EXPECT_THAT(overlap.err, HasSubstr("overlap"));
}

TEST_F(ReplayCommandTest, UsageErrorsExit64LikeEveryOtherCommand) {
  EXPECT_EQ(runCommand({day()}).code, 64);          // no commitment
  EXPECT_EQ(runCommand({"--next", "x"}).code, 64);  // no FILE
  EXPECT_EQ(runCommand({day(), "--next", "x", "--frobnicate"}).code, 64);
  EXPECT_EQ(runCommand({day(), "--next"}).code, 64);
  const CommandRun both = runCommand({day(), "--next", "x", "--commitments", "c.txt"});
  EXPECT_EQ(both.code, 64);
  EXPECT_THAT(both.err, HasSubstr("cannot be used together"));
}

TEST_F(ReplayCommandTest, AnUnloadableBackendOrBadConfigIsAnError) {
  const CommandRun noPlugin =
      runCommand({day(), "--next", "x", "--backend", "fake", "-D", "ai.plugin_dir=" + dir_.path()});
  EXPECT_EQ(noPlugin.code, 1);
  EXPECT_THAT(noPlugin.err, HasSubstr("did not load"));
  const CommandRun badConfig =
      runCommand({day(), "--next", "x", "-D", "drift.judge_debounce_s=-1"});
  EXPECT_EQ(badConfig.code, 78);
  EXPECT_THAT(badConfig.err, HasSubstr("drift.judge_debounce_s"));
}

TEST_F(ReplayCommandTest, TheDaemonBinaryRunsTheReplaySubcommand) {
  const std::string command = std::string(ANTIDRIFTD_PATH) + " replay " + day() +
                              " --next 'Build the site' --allowed Code --json --config " +
                              write("none.properties", "") + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  while (const std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  EXPECT_EQ(parse(out)->getValue<int>("window_events"), 5);

  FILE* bad = popen((std::string(ANTIDRIFTD_PATH) + " replay 2>&1").c_str(), "r");
  ASSERT_NE(bad, nullptr);
  while (fread(buffer, 1, sizeof buffer, bad) > 0) {
  }
  const int status = pclose(bad);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 64);
}

// ---- The whole real export (left out of the sanitizer builds) ---------------------------------

class DriftReplayCommandTest : public ReplayCommandTest {};

/// Replays the export at `path` with one commitment over all of it and the
/// given judge.
replay::ReplayReport replayExport(const std::string& path, const std::string& nextAction,
                                  const std::string& successCondition,
                                  const std::vector<std::string>& allowedApps,
                                  bool judgeEveryStableTitle, Backend* backend) {
  replay::ReplayOptions options;
  replay::CommitmentRange range;
  range.fromMs = std::numeric_limits<std::int64_t>::min();
  range.toMs = std::numeric_limits<std::int64_t>::max();
  range.nextAction = nextAction;
  range.successCondition = successCondition;
  range.allowedApps = allowedApps;
  options.commitments = {range};
  options.backend = backend;
  options.judgeEveryStableTitle = judgeEveryStableTitle;
  return replay::runReplay(replay::loadActivity(path), options);
}

/// Replays the real export with the README's commitment and the replay judge.
replay::ReplayReport replayExport(bool judgeEveryStableTitle, Backend* backend) {
  return replayExport(test::realExportPath(), kNextAction, kSuccessCondition,
                      {"Code - Insiders", "qterminal"}, judgeEveryStableTitle, backend);
}

TEST_F(DriftReplayCommandTest, JudgeCallsStayAtOrBelowATenthOfWindowChangesAndDriftsDoNotFall) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  plugin::PluginLoader loader;
  const plugin::LoadResult fake =
      loader.load("fake", FAKE_PLUGIN_DIR, {{"responses", FAKE_REPLAY_RESPONSES}});
  ASSERT_TRUE(fake.loaded()) << fake.error;
  ASSERT_EQ(Settings{}.judgeDwellSecs, 3);  // the default this figure is about

  const replay::ReplayReport report = replayExport(false, fake.backend.get());
  const replay::ReplayReport baseline = replayExport(true, fake.backend.get());
  std::cout << "window changes " << report.windowChanges << ", observations " << report.observations
            << "; judge calls " << report.judgeCalls << " (" << report.siteVerdicts
            << " site-scoped), drifted window events " << report.driftedVisits << ", drifting "
            << report.stats.driftMs / 1000 << " s, episodes " << report.stats.driftEpisodes
            << "; judging every stable title: judge calls " << baseline.judgeCalls
            << ", drifted window events " << baseline.driftedVisits << ", drifting "
            << baseline.stats.driftMs / 1000 << " s, episodes " << baseline.stats.driftEpisodes
            << "\n";

  EXPECT_GT(report.windowChanges, 3000);
  EXPECT_GT(report.siteVerdicts, 0);
  // At most 1/10 of the window changes (1/20 with the older 12 s debounce:
  // the 3 s dwell asks about a page still in front after a short look, so the
  // time to tell falls to the dwell for about twice the calls) …
  EXPECT_LE(report.judgeCalls * 10, report.windowChanges);
  // … while the drifts found do not fall against judging every stable title.
  // Since issue 19 item 4 a site the title names covers nothing, and the real
  // export has no URL evidence, so both judge alike (160 calls each, against
  // 163 and 195 before): the bound holds through the dwell alone.
  EXPECT_LE(report.judgeCalls, baseline.judgeCalls);
  EXPECT_GE(report.driftedVisits, baseline.driftedVisits);
  EXPECT_GE(report.stats.driftMs, baseline.stats.driftMs);
}

TEST_F(DriftReplayCommandTest, TheReadmeCommandPrintsTheReport) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  const CommandRun run = runCommand({test::realExportPath(), "--next", kNextAction, "--done",
                                     kSuccessCondition, "--allowed", "Code - Insiders,qterminal"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr(", 1 session.\n"));  // window events: --json only
  EXPECT_THAT(run.out, HasSubstr("firefox developer edition"));
  EXPECT_THAT(run.out, HasSubstr("code - insiders"));
  EXPECT_THAT(run.out, HasSubstr("AI calls: judge 0"));
}

// ---- The repository's own small export (tests/data/README.md) ---------------------------------

const char* kSmallNextAction = "Add a --json flag to the tallyho CLI";
const char* kSmallSuccessCondition = "tallyho --json prints the tally as JSON and the test passes";

TEST_F(ReplayCommandTest, SmallExportSiteVerdictsCallTheJudgeLessAndFindNoFewerDrifts) {
  plugin::PluginLoader loader;
  const plugin::LoadResult fake =
      loader.load("fake", FAKE_PLUGIN_DIR, {{"responses", FAKE_REPLAY_RESPONSES}});
  ASSERT_TRUE(fake.loaded()) << fake.error;
  const std::string path = test::smallExportPath();
  const replay::ReplayReport report = replayExport(path, kSmallNextAction, kSmallSuccessCondition,
                                                   {"Code", "kitty"}, false, fake.backend.get());
  const replay::ReplayReport baseline = replayExport(path, kSmallNextAction, kSmallSuccessCondition,
                                                     {"Code", "kitty"}, true, fake.backend.get());
  std::cout << "window changes " << report.windowChanges << "; judge calls " << report.judgeCalls
            << " (" << report.siteVerdicts << " site-scoped), drifted window events "
            << report.driftedVisits << ", drifting " << report.stats.driftMs / 1000
            << " s; judging every stable title: judge calls " << baseline.judgeCalls
            << ", drifted window events " << baseline.driftedVisits << "\n";
  EXPECT_GT(report.siteVerdicts, 0);  // YouTube and Facebook are judged for the whole site
  EXPECT_GT(report.driftedVisits, 0);
  EXPECT_LT(report.judgeCalls, report.windowChanges);
  EXPECT_LE(report.judgeCalls, baseline.judgeCalls);
  EXPECT_GE(report.driftedVisits, baseline.driftedVisits);
  EXPECT_GE(report.stats.driftMs, baseline.stats.driftMs);
}

TEST_F(ReplayCommandTest, SmallExportThroughTheCommandCountsWindowsAwayTimeAndApps) {
  const CommandRun run = runCommand({test::smallExportPath(), "--next", kSmallNextAction, "--done",
                                     kSmallSuccessCondition, "--allowed", "Code,kitty", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  const Object::Ptr report = parse(run.out);
  // Every window event of the file, the zero-duration flickers included.
  EXPECT_EQ(report->getValue<int>("window_events"), 61);
  // The AFK bucket's six minutes after the meeting.
  EXPECT_EQ(report->getValue<std::int64_t>("away_ms"), 360'000);
  const CommandRun text = runCommand({test::smallExportPath(), "--next", kSmallNextAction, "--done",
                                      kSmallSuccessCondition, "--allowed", "Code,kitty"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr(", 1 session.\n"));  // window events: --json only
  EXPECT_THAT(text.out, HasSubstr("firefox"));
  EXPECT_THAT(text.out, HasSubstr("code"));
  EXPECT_THAT(text.out, HasSubstr("AI calls: judge 0"));
}

}  // namespace
}  // namespace antidrift
