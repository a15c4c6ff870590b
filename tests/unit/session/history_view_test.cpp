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

}  // namespace
}  // namespace antidrift
