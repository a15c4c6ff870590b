// The history view of the wire module (core/include/antidrift/session/
// history_view.h; issue 7 items 4, 6): session views, the 14 days, exports.
#include "antidrift/session/history_view.h"
#include "antidrift/wire/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// 2026-06-01T10:00:00Z
constexpr std::int64_t kJuneFirst10h = 1'780'308'000'000;

SessionSummary session(std::int64_t endedAtMs, std::int64_t onTaskSecs, std::int64_t observedSecs) {
  SessionSummary summary;
  summary.id = "id";
  summary.startedAtMs = endedAtMs - observedSecs * 1000;
  summary.endedAtMs = endedAtMs;
  summary.nextAction = "Write";
  summary.timeboxSecs = 1500;
  summary.outcome = Outcome::Completed;
  summary.plannedSecs = 1800;
  summary.onTaskSecs = onTaskSecs;
  summary.timeline = {{summary.startedAtMs, endedAtMs, "code", SpanStatus::OnTask}};
  return summary;
}

TEST(HistoryView, OnTaskShareIsNullWithoutEvidenceOrForOldRecords) {
  SessionSummary summary = session(kJuneFirst10h, 60, 120);
  EXPECT_DOUBLE_EQ(*onTaskShare(summary), 0.5);
  summary.timeline.clear();
  EXPECT_FALSE(onTaskShare(summary));
  summary = session(kJuneFirst10h, 60, 120);
  summary.timeline.push_back({kJuneFirst10h, kJuneFirst10h + 60'000, "", SpanStatus::Away});
  EXPECT_DOUBLE_EQ(*onTaskShare(summary), 0.5);  // away time is not observed time
  summary.timeline.push_back(
      {kJuneFirst10h + 60'000, kJuneFirst10h + 180'000, "chromium", SpanStatus::Neutral});
  EXPECT_DOUBLE_EQ(*onTaskShare(summary), 0.5);  // nor is AntiDrift's own page (issue 17 item 4)
  summary.shape = SummaryShape::Basic;
  EXPECT_FALSE(onTaskShare(summary));
  const auto json = sessionViewJson(summary);
  EXPECT_TRUE(json->isNull("on_task_share"));
  EXPECT_EQ(json->getValue<std::int64_t>("planned_secs"), 1800);
  EXPECT_FALSE(json->has("hash"));
}

TEST(HistoryView, FourteenLocalDaysOldestFirst) {
  const std::vector<SessionSummary> sessions = {
      session(kJuneFirst10h, 600, 1200),                // today
      session(kJuneFirst10h - 3600'000, 300, 300),      // today, earlier
      session(kJuneFirst10h - 86'400'000, 100, 400),    // yesterday
      session(kJuneFirst10h - 20 * 86'400'000LL, 1, 1)  // outside the 14 days
  };
  const std::vector<HistoryDay> days = historyDays(sessions, kJuneFirst10h, 0);
  ASSERT_EQ(days.size(), 14u);
  EXPECT_EQ(days.front().date, "2026-05-19");
  EXPECT_EQ(days.back().date, "2026-06-01");
  EXPECT_EQ(days.back().sessions, 2);
  EXPECT_EQ(days.back().focusedSecs, 900);
  EXPECT_DOUBLE_EQ(*days.back().onTaskShare, 0.6);
  EXPECT_EQ(days[12].focusedSecs, 100);
  EXPECT_FALSE(days[0].onTaskShare);
  EXPECT_EQ(days[0].sessions, 0);
}

TEST(HistoryView, TheLocalOffsetDecidesTheDate) {
  // 23:30 UTC on May 31st is June 1st at UTC+2.
  const std::int64_t lateMay31 = kJuneFirst10h - 10 * 3600'000 - 30 * 60'000;
  const std::vector<SessionSummary> sessions = {session(lateMay31, 60, 60)};
  EXPECT_EQ(historyDays(sessions, kJuneFirst10h, 0)[12].sessions, 1);
  EXPECT_EQ(historyDays(sessions, kJuneFirst10h, 2 * 3600)[13].sessions, 1);
}

TEST(HistoryView, ExportFormats) {
  EXPECT_EQ(parseExportFormat("csv"), ExportFormat::Csv);
  EXPECT_FALSE(parseExportFormat("CSV"));
  // Issue 17 item 4: the file is named .md, so "md" names the format too.
  EXPECT_EQ(parseExportFormat("markdown"), ExportFormat::Markdown);
  EXPECT_EQ(parseExportFormat("md"), ExportFormat::Markdown);
  EXPECT_EQ(exportExtension(*parseExportFormat("md")), "md");
  EXPECT_EQ(exportContentType(ExportFormat::Jsonl), "application/x-ndjson");
  SessionSummary summary = session(kJuneFirst10h, 60, 120);
  summary.nextAction = "=HYPERLINK(\"x\") | pipe\nline";
  summary.recap = "Good, \"mostly\"";
  const std::string csv = exportHistory({summary}, ExportFormat::Csv);
  EXPECT_THAT(csv, StartsWith("id,started_at,"));
  EXPECT_THAT(csv, HasSubstr(",\"'=HYPERLINK(\"\"x\"\") | pipe\nline\","));
  EXPECT_THAT(csv, HasSubstr(",\"Good, \"\"mostly\"\"\","));
  EXPECT_THAT(csv, HasSubstr(",2026-06-01T10:00:00Z,"));
  const std::string markdown = exportHistory({summary}, ExportFormat::Markdown);
  EXPECT_THAT(markdown, HasSubstr("=HYPERLINK(\"x\") \\| pipe line"));
  EXPECT_THAT(markdown, HasSubstr("| 50% |"));
  EXPECT_EQ(exportHistory({}, ExportFormat::Jsonl), "");
  EXPECT_THAT(exportHistory({}, ExportFormat::Markdown), HasSubstr("No sessions yet."));
  const std::string jsonl = exportHistory({summary, summary}, ExportFormat::Jsonl);
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 2);
  EXPECT_THAT(jsonl, Not(HasSubstr("\"prev\"")));
}

// Issue 17 item 5: this week against last week beside the 14-day charts.
TEST(HistoryView, TheWeekTrendComparesTheLastSevenDaysWithTheSevenBefore) {
  SessionSummary kept = session(kJuneFirst10h, 600, 1000);  // completed, unanswered: kept
  kept.driftSecs = 100;
  SessionSummary answeredNo = session(kJuneFirst10h - 2 * 86'400'000LL, 300, 1000);
  answeredNo.success = "no";  // completed but the person said No: not kept
  answeredNo.driftSecs = 400;
  SessionSummary lastWeek = session(kJuneFirst10h - 9 * 86'400'000LL, 200, 400);
  lastWeek.outcome = Outcome::Abandoned;
  lastWeek.success = "yes";  // the answer decides
  lastWeek.driftSecs = 100;
  const std::vector<HistoryDay> days = historyDays({kept, answeredNo, lastWeek}, kJuneFirst10h, 0);
  EXPECT_EQ(days.back().kept, 1);
  EXPECT_EQ(days.back().driftSecs, 100);
  const WeekTrend trend = weekTrend(days);
  EXPECT_EQ(trend.thisWeek.focusedSecs, 900);
  EXPECT_EQ(trend.thisWeek.sessions, 2);
  EXPECT_EQ(trend.thisWeek.kept, 1);
  ASSERT_TRUE(trend.thisWeek.driftShare);
  EXPECT_DOUBLE_EQ(*trend.thisWeek.driftShare, 500.0 / 2000.0);
  EXPECT_EQ(trend.lastWeek.focusedSecs, 200);
  EXPECT_EQ(trend.lastWeek.kept, 1);
  EXPECT_DOUBLE_EQ(*trend.lastWeek.driftShare, 0.25);
  const auto json = historyJson({kept}, days);
  const auto week = json->getObject("week");
  EXPECT_EQ(week->getObject("this_week")->getValue<std::int64_t>("sessions"), 2);
  EXPECT_EQ(week->getObject("last_week")->getValue<std::int64_t>("focused_secs"), 200);
  // No evidence at all: no share, not 0.
  const WeekTrend empty = weekTrend(historyDays({}, kJuneFirst10h, 0));
  EXPECT_FALSE(empty.thisWeek.driftShare);
  EXPECT_TRUE(historyJson({}, historyDays({}, kJuneFirst10h, 0))
                  ->getObject("week")
                  ->getObject("last_week")
                  ->isNull("drift_share"));
}

// Issue 17 item 5: a record without the per-site drift and longest stretch
// (written before them) still loads; the views say unknown, never 0.
TEST(HistoryView, OldRecordsWithoutDriftBySiteAreUnknownNotZero) {
  SessionSummary summary = session(kJuneFirst10h, 60, 120);
  summary.prev = kGenesisHash;
  summary.hash = computeHash(summary);
  const SessionSummary reread = summaryFromJsonLine(toJsonLine(summary));
  EXPECT_FALSE(reread.driftBySite);
  EXPECT_FALSE(reread.longestStretch);
  EXPECT_EQ(computeHash(reread), reread.hash);  // older lines still verify
  const auto json = sessionViewJson(reread);
  EXPECT_TRUE(json->isNull("drift_by_site"));
  EXPECT_TRUE(json->isNull("longest_on_task"));
  const std::string markdown = exportHistory({reread}, ExportFormat::Markdown);
  EXPECT_THAT(markdown, HasSubstr("| unknown | unknown |"));
  summary.driftBySite = std::vector<SiteDrift>{};  // known: no drift at all
  summary.longestStretch = OnTaskStretch{60'000, summary.startedAtMs, summary.endedAtMs};
  EXPECT_THAT(exportHistory({summary}, ExportFormat::Markdown), HasSubstr("| 1 min | none |"));
  EXPECT_EQ(sessionViewJson(summary)->getArray("drift_by_site")->size(), 0u);
}

// Issue 17 items 4–5, re-walk: the Markdown export has the review's note
// (escaped for a table), the longest stretch as the page shows it (seconds
// under a minute), and both exports have the AI cost (issue 18 item 4).
TEST(HistoryView, TheExportsHaveTheNoteTheStretchAsThePageShowsItAndTheAiCost) {
  SessionSummary summary = session(kJuneFirst10h, 60, 120);
  summary.success = "partly";
  summary.note = "intro | outro\nnext line";
  summary.longestStretch = OnTaskStretch{39'000, summary.startedAtMs, summary.startedAtMs + 39'000};
  summary.driftBySite = std::vector<SiteDrift>{{"youtube.com", 20'000, 1}};
  summary.aiCost.calls = 4;
  summary.aiCost.inputTokens = 2310;
  summary.aiCost.outputTokens = 95;
  summary.aiCost.estimated = true;
  summary.aiCost.wallMs = 6'400;

  const std::string markdown = exportHistory({summary}, ExportFormat::Markdown);
  EXPECT_THAT(markdown, HasSubstr("| Met | Note | Recap | AI cost |\n"));
  EXPECT_THAT(markdown, HasSubstr("|---|---|---|---|---|---|---|---|---|---|---|---|\n"));
  EXPECT_THAT(markdown,
              HasSubstr("| 39 s | youtube.com 20 s over 1 visit | partly | "
                        "intro \\| outro next line |  | "
                        "4 calls · 2,310 tokens in · 95 out (estimated) · 6 s waiting |\n"));
  // Every row has as many cells as the header: the note's pipe is escaped.
  const std::string header = markdown.substr(markdown.find("| Ended"));
  const std::string row = markdown.substr(markdown.rfind("\n| ", markdown.size() - 2) + 1);
  const auto cells = [](const std::string& line) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < line.size() && line[i] != '\n'; ++i) {
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++count;
    }
    return count;
  };
  EXPECT_EQ(cells(row), cells(header));
  summary.longestStretch->onTaskMs = 150'000;
  EXPECT_THAT(exportHistory({summary}, ExportFormat::Markdown), HasSubstr("| 3 min | "));

  const std::string csv = exportHistory({summary}, ExportFormat::Csv);
  EXPECT_THAT(csv, HasSubstr(",drift_by_site,longest_on_task_secs,ai_calls,ai_input_tokens,"
                             "ai_output_tokens,ai_tokens_estimated,ai_wall_ms\r\n"));
  EXPECT_THAT(csv, HasSubstr(",youtube.com 20 s over 1 visit,150,4,2310,95,true,6400\r\n"));
  EXPECT_THAT(csv, HasSubstr(",partly,\"intro | outro\nnext line\","));

  summary.aiCost = AiCost{};  // no call made (or a record from before issue 18)
  EXPECT_THAT(exportHistory({summary}, ExportFormat::Markdown), HasSubstr(" |  | — |\n"));
  EXPECT_THAT(exportHistory({summary}, ExportFormat::Csv), HasSubstr(",150,0,0,0,false,0\r\n"));
}

}  // namespace
}  // namespace antidrift
