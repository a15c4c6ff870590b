/// @file history_view.h
/// The history the page and the export see (issue 7 items 4, 6; docs/API.md
/// §6): a documented view of each session and of the last days, built from
/// SessionSummary values in the wire module — never the audit log's own lines
/// (no `prev`/`hash`), so the page does not depend on the on-disk format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <Poco/JSON/Object.h>

#include "antidrift/store/audit_log.h"

namespace antidrift {

/// Days in the History charts (issue 7: "the last 14 days").
inline constexpr int kHistoryDays = 14;

/// One day of the History charts.
struct HistoryDay {
  std::string date;                   ///< local date of the daemon, "YYYY-MM-DD"
  std::int64_t focusedSecs = 0;       ///< on-task seconds of the sessions that ended that day
  std::optional<double> onTaskShare;  ///< on-task / observed seconds, 0..1; none without evidence
  std::int64_t sessions = 0;          ///< sessions that ended that day
  std::int64_t driftSecs = 0;         ///< drifting seconds of those sessions (issue 17 item 5)
  std::int64_t observedSecs = 0;      ///< seconds their timelines observed (away excluded)
  std::int64_t kept = 0;              ///< of those, sessions kept (sessionKept)
};

/// Whether a session was kept (issue 17 item 5, DESIGN §7 "What the review
/// shows"): the person answered Yes, or, unanswered, it ended completed.
/// Pure.
bool sessionKept(const SessionSummary& summary);

/// One week of the trend beside the 14-day charts (issue 17 item 5).
struct WeekTotals {
  std::int64_t focusedSecs = 0;      ///< on-task seconds
  std::optional<double> driftShare;  ///< drifting / observed seconds, 0..1; none without evidence
  std::int64_t sessions = 0;         ///< sessions that ended in it
  std::int64_t kept = 0;             ///< of those, kept (sessionKept)
};

/// This week against last week: the last 7 of `days` and the 7 before them
/// (a shorter list gives what it has; fewer than 8 days leave last week empty).
struct WeekTrend {
  WeekTotals thisWeek;
  WeekTotals lastWeek;
};

/// The week trend of historyDays()'s output (oldest first). Pure.
WeekTrend weekTrend(const std::vector<HistoryDay>& days);

/// On-task seconds over the seconds the timeline observed (ontask, drifting
/// or unknown; away excluded), 0..1; nullopt for a record without a timeline
/// (written before issue 7) or with no observed time. Pure.
std::optional<double> onTaskShare(const SessionSummary& summary);

/// The last `days` local dates up to and including the one of `nowMs`,
/// oldest first, each with the sessions of `sessions` that ended on it.
/// `tzdSecs` is the local offset from UTC in seconds (Poco::Timezone::tzd()
/// plus DST at the call site); one offset is used for the whole range. Pure.
std::vector<HistoryDay> historyDays(const std::vector<SessionSummary>& sessions, std::int64_t nowMs,
                                    int tzdSecs, int days = kHistoryDays);

/// One session view: {"id", "started_at", "ended_at", "next_action",
/// "success_condition", "outcome", "planned_secs", "actual_secs",
/// "on_task_secs", "drift_secs", "away_secs", "on_task_share" (number or
/// null), "switches", "drift_episodes", "corrections", "success", "note",
/// "recap", "carry_forward", "top_buckets": [{"app","secs"}], "timeline":
/// [{"start","end","app","status"}], "drift_by_site": [{"where",
/// "drift_secs","visits"}] or null, "longest_on_task": {"secs","start",
/// "end"} or null} — null for a record written before issue 17 item 5
/// (unknown, not 0). A record written before issue 7 has
/// planned_secs = timebox_secs and zeros/empty for what it did not record.
/// Pure.
Poco::JSON::Object::Ptr sessionViewJson(const SessionSummary& summary);

/// GET /history: {"sessions": [view…] (as given, newest first), "days":
/// [{"date", "focused_secs", "on_task_share", "sessions", "drift_secs",
/// "kept"}…] (oldest first), "week": {"this_week", "last_week"} each
/// {"focused_secs", "drift_share" (number or null), "sessions", "kept"}
/// (weekTrend of `days`)}. Pure.
Poco::JSON::Object::Ptr historyJson(const std::vector<SessionSummary>& sessions,
                                    const std::vector<HistoryDay>& days);

/// The export formats of `antidriftd --export-history` and GET /history/export.
enum class ExportFormat { Jsonl, Csv, Markdown };
/// "jsonl" | "csv" | "markdown" (or "md", the file's extension; issue 17
/// item 4) → the format; nullopt for anything else. Pure.
std::optional<ExportFormat> parseExportFormat(std::string_view text);
/// The Content-Type of a format: application/x-ndjson, text/csv; charset=utf-8,
/// text/markdown; charset=utf-8. Pure.
std::string exportContentType(ExportFormat format);
/// The file extension of a format: "jsonl", "csv", "md". Pure.
std::string exportExtension(ExportFormat format);

/// `sessions` (oldest first) as a document:
/// - Jsonl: one session view per line (sessionViewJson, compact);
/// - Csv: RFC 4180 with a header row; times as ISO 8601 UTC; a text cell
///   starting with = + - @ gets a leading ' so spreadsheets do not run it;
/// - Markdown: a heading and one table row per session (pipes escaped).
/// Every document ends with a newline. Pure.
std::string exportHistory(const std::vector<SessionSummary>& sessions, ExportFormat format);

}  // namespace antidrift
