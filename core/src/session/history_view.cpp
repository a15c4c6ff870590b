#include "antidrift/session/history_view.h"

#include <algorithm>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/Timestamp.h>

namespace antidrift {
namespace {

constexpr std::int64_t kDayMs = 24 * 3600 * 1000LL;

std::int64_t observedMs(const SessionSummary& summary) {
  std::int64_t total = 0;
  for (const TimelineSpan& span : summary.timeline) {
    // Away and AntiDrift's own page in front (neutral: issue 17 item 4) are
    // neither focus nor drift, so not in the share's denominator.
    if (span.status != SpanStatus::Away && span.status != SpanStatus::Neutral)
      total += std::max<std::int64_t>(0, span.endMs - span.startMs);
  }
  return total;
}

// Days since the epoch of the local date of `utcMs`.
std::int64_t localDay(std::int64_t utcMs, int tzdSecs) {
  const std::int64_t local = utcMs + tzdSecs * 1000LL;
  return local >= 0 ? local / kDayMs : (local - kDayMs + 1) / kDayMs;
}

std::string dateOf(std::int64_t day) {
  const Poco::DateTime date(Poco::Timestamp::fromEpochTime(static_cast<std::time_t>(day * 86400)));
  return Poco::DateTimeFormatter::format(date, "%Y-%m-%d");
}

}  // namespace

std::optional<double> onTaskShare(const SessionSummary& summary) {
  const std::int64_t observed = observedMs(summary);
  if (summary.shape != SummaryShape::Detailed || observed <= 0) return std::nullopt;
  return std::min(1.0, static_cast<double>(summary.onTaskSecs) * 1000.0 / observed);
}

std::vector<HistoryDay> historyDays(const std::vector<SessionSummary>& sessions, std::int64_t nowMs,
                                    int tzdSecs, int days) {
  std::vector<HistoryDay> result;
  if (days <= 0) return result;
  const std::int64_t today = localDay(nowMs, tzdSecs);
  const std::int64_t first = today - days + 1;
  std::vector<std::int64_t> observed(static_cast<std::size_t>(days), 0);
  for (int index = 0; index < days; ++index) {
    HistoryDay day;
    day.date = dateOf(first + index);
    result.push_back(std::move(day));
  }
  for (const SessionSummary& summary : sessions) {
    const std::int64_t day = localDay(summary.endedAtMs, tzdSecs);
    if (day < first || day > today) continue;
    const auto index = static_cast<std::size_t>(day - first);
    result[index].sessions += 1;
    if (summary.shape != SummaryShape::Detailed) continue;
    result[index].focusedSecs += summary.onTaskSecs;
    result[index].driftSecs += summary.driftSecs;
    observed[index] += observedMs(summary);
    if (sessionKept(summary)) result[index].kept += 1;
  }
  for (std::size_t index = 0; index < result.size(); ++index) {
    result[index].observedSecs = observed[index] / 1000;
    if (observed[index] > 0) {
      result[index].onTaskShare =
          std::min(1.0, static_cast<double>(result[index].focusedSecs) * 1000.0 / observed[index]);
    }
  }
  return result;
}

bool sessionKept(const SessionSummary& summary) {
  if (!summary.success.empty()) return summary.success == "yes";
  return summary.outcome == Outcome::Completed;
}

WeekTrend weekTrend(const std::vector<HistoryDay>& days) {
  WeekTrend trend;
  std::int64_t drift[2] = {0, 0};
  std::int64_t observed[2] = {0, 0};
  const std::size_t count = days.size();
  for (std::size_t back = 0; back < count && back < 14; ++back) {
    const HistoryDay& day = days[count - 1 - back];
    const int week = back < 7 ? 0 : 1;
    WeekTotals& totals = week == 0 ? trend.thisWeek : trend.lastWeek;
    totals.focusedSecs += day.focusedSecs;
    totals.sessions += day.sessions;
    totals.kept += day.kept;
    drift[week] += day.driftSecs;
    observed[week] += day.observedSecs;
  }
  for (int week = 0; week < 2; ++week) {
    WeekTotals& totals = week == 0 ? trend.thisWeek : trend.lastWeek;
    if (observed[week] > 0) {
      totals.driftShare = std::min(1.0, static_cast<double>(drift[week]) / observed[week]);
    }
  }
  return trend;
}

}  // namespace antidrift
