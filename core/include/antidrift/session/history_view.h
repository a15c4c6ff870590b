/// @file history_view.h
/// The history the page and the export see (issue 7 items 4, 6; docs/API.md
/// §6): the last days and the on-task share, computed from SessionSummary
/// values. Their JSON, and the export documents, are built in the wire module
/// (antidrift/wire/json.h, issue 15 item 5) — never from the audit log's own
/// lines (no `prev`/`hash`), so the page does not depend on the on-disk format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/// Whether a session was kept (issue 17 item 5, docs/DESIGN.md §7 "What the review
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

}  // namespace antidrift
