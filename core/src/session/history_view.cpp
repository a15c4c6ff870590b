#include "antidrift/session/history_view.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Poco/DateTime.h>
#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/JSON/Array.h>
#include <Poco/Timestamp.h>

#include "antidrift/session/state.h"
#include "antidrift/store/ai_cost_json.h"

namespace antidrift {
namespace {

constexpr std::int64_t kDayMs = 24 * 3600 * 1000LL;

std::int64_t actualSecs(const SessionSummary& summary) {
  return std::max<std::int64_t>(0, (summary.endedAtMs - summary.startedAtMs) / 1000);
}

std::int64_t plannedSecs(const SessionSummary& summary) {
  // Planned is the timebox plus extensions, never less than the timebox
  // (a record written before issue 7 has no planned_secs).
  return std::max(summary.plannedSecs, summary.timeboxSecs);
}

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

std::string isoUtc(std::int64_t utcMs) {
  const Poco::Timestamp at(static_cast<Poco::Timestamp::TimeVal>(utcMs) * 1000);
  return Poco::DateTimeFormatter::format(at, "%Y-%m-%dT%H:%M:%SZ");
}

std::string csvCell(std::string text, bool isText) {
  if (isText && !text.empty() && std::string("=+-@").find(text[0]) != std::string::npos) {
    text.insert(0, "'");
  }
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

std::string markdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string shareText(const std::optional<double>& share) {
  if (!share) return "";
  return std::to_string(static_cast<int>(std::lround(*share * 100))) + "%";
}

std::string minutesText(std::int64_t secs) {
  return std::to_string((secs + 30) / 60) + " min";
}

std::string topApps(const SessionSummary& summary) {
  std::string text;
  for (const auto& [app, secs] : summary.topBuckets) {
    if (!text.empty()) text += "; ";
    text += app + " " + std::to_string(secs) + "s";
  }
  return text;
}

/// "youtube.com 5 min over 6 visits; slack 1 min over 1 visit"; "" when
/// none or unknown.
std::string driftSites(const SessionSummary& summary) {
  std::string text;
  if (!summary.driftBySite) return text;
  for (const SiteDrift& site : *summary.driftBySite) {
    if (!text.empty()) text += "; ";
    text += site.where + " " + minutesText(site.driftMs / 1000) + " over " +
            std::to_string(site.visits) + (site.visits == 1 ? " visit" : " visits");
  }
  return text;
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

Poco::JSON::Object::Ptr sessionViewJson(const SessionSummary& summary) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("id", summary.id);
  json->set("started_at", summary.startedAtMs);
  json->set("ended_at", summary.endedAtMs);
  json->set("next_action", summary.nextAction);
  json->set("success_condition", summary.successCondition);
  json->set("outcome", toString(summary.outcome));
  json->set("planned_secs", plannedSecs(summary));
  json->set("actual_secs", actualSecs(summary));
  json->set("on_task_secs", summary.onTaskSecs);
  json->set("drift_secs", summary.driftSecs);
  json->set("away_secs", summary.awaySecs);
  const std::optional<double> share = onTaskShare(summary);
  json->set("on_task_share", share ? Poco::Dynamic::Var(*share) : Poco::Dynamic::Var());
  json->set("switches", summary.switches);
  json->set("drift_episodes", summary.driftEpisodes);
  json->set("corrections", summary.corrections);
  json->set("success", summary.success);
  json->set("note", summary.note);
  json->set("recap", summary.recap);
  json->set("carry_forward", summary.carryForward);
  json->set("ai_cost", aiCostToJson(summary.aiCost));  // issue 18 item 4
  Poco::JSON::Array::Ptr buckets = new Poco::JSON::Array;
  for (const auto& [app, secs] : summary.topBuckets) {
    Poco::JSON::Object::Ptr bucket = new Poco::JSON::Object;
    bucket->set("app", app);
    bucket->set("secs", secs);
    buckets->add(bucket);
  }
  json->set("top_buckets", buckets);
  json->set("timeline", timelineJson(summary.timeline));
  // Issue 17 item 5: null for a record written before it (unknown, not 0).
  json->set("drift_by_site", summary.driftBySite
                                 ? Poco::Dynamic::Var(driftBySiteJson(*summary.driftBySite))
                                 : Poco::Dynamic::Var());
  json->set("longest_on_task", summary.longestStretch
                                   ? Poco::Dynamic::Var(stretchJson(*summary.longestStretch))
                                   : Poco::Dynamic::Var());
  return json;
}

Poco::JSON::Object::Ptr historyJson(const std::vector<SessionSummary>& sessions,
                                    const std::vector<HistoryDay>& days) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  Poco::JSON::Array::Ptr views = new Poco::JSON::Array;
  for (const SessionSummary& summary : sessions) views->add(sessionViewJson(summary));
  json->set("sessions", views);
  Poco::JSON::Array::Ptr dayArray = new Poco::JSON::Array;
  for (const HistoryDay& day : days) {
    Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
    item->set("date", day.date);
    item->set("focused_secs", day.focusedSecs);
    item->set("on_task_share",
              day.onTaskShare ? Poco::Dynamic::Var(*day.onTaskShare) : Poco::Dynamic::Var());
    item->set("sessions", day.sessions);
    item->set("drift_secs", day.driftSecs);
    item->set("kept", day.kept);
    dayArray->add(item);
  }
  json->set("days", dayArray);
  const WeekTrend trend = weekTrend(days);
  const auto weekJson = [](const WeekTotals& totals) {
    Poco::JSON::Object::Ptr week = new Poco::JSON::Object;
    week->set("focused_secs", totals.focusedSecs);
    week->set("drift_share",
              totals.driftShare ? Poco::Dynamic::Var(*totals.driftShare) : Poco::Dynamic::Var());
    week->set("sessions", totals.sessions);
    week->set("kept", totals.kept);
    return week;
  };
  Poco::JSON::Object::Ptr week = new Poco::JSON::Object;
  week->set("this_week", weekJson(trend.thisWeek));
  week->set("last_week", weekJson(trend.lastWeek));
  json->set("week", week);
  return json;
}

std::optional<ExportFormat> parseExportFormat(std::string_view text) {
  if (text == "jsonl") return ExportFormat::Jsonl;
  if (text == "csv") return ExportFormat::Csv;
  // "md" too: the download is named .md (issue 17 item 4).
  if (text == "markdown" || text == "md") return ExportFormat::Markdown;
  return std::nullopt;
}

std::string exportContentType(ExportFormat format) {
  switch (format) {
    case ExportFormat::Jsonl:
      return "application/x-ndjson";
    case ExportFormat::Csv:
      return "text/csv; charset=utf-8";
    case ExportFormat::Markdown:
      return "text/markdown; charset=utf-8";
  }
  return "application/octet-stream";
}

std::string exportExtension(ExportFormat format) {
  switch (format) {
    case ExportFormat::Jsonl:
      return "jsonl";
    case ExportFormat::Csv:
      return "csv";
    case ExportFormat::Markdown:
      return "md";
  }
  return "txt";
}

std::string exportHistory(const std::vector<SessionSummary>& sessions, ExportFormat format) {
  std::ostringstream out;
  switch (format) {
    case ExportFormat::Jsonl:
      for (const SessionSummary& summary : sessions) {
        sessionViewJson(summary)->stringify(out, 0);
        out << "\n";
      }
      break;
    case ExportFormat::Csv:
      out << "id,started_at,ended_at,next_action,success_condition,outcome,planned_secs,"
             "actual_secs,on_task_secs,drift_secs,away_secs,on_task_share,switches,"
             "drift_episodes,corrections,success,note,recap,carry_forward,top_buckets,"
             "drift_by_site,longest_on_task_secs\r\n";
      for (const SessionSummary& summary : sessions) {
        const std::optional<double> share = onTaskShare(summary);
        std::ostringstream shareText;
        if (share) shareText << *share;
        out << csvCell(summary.id, true) << ',' << isoUtc(summary.startedAtMs) << ','
            << isoUtc(summary.endedAtMs) << ',' << csvCell(summary.nextAction, true) << ','
            << csvCell(summary.successCondition, true) << ',' << toString(summary.outcome) << ','
            << plannedSecs(summary) << ',' << actualSecs(summary) << ',' << summary.onTaskSecs
            << ',' << summary.driftSecs << ',' << summary.awaySecs << ',' << shareText.str() << ','
            << summary.switches << ',' << summary.driftEpisodes << ',' << summary.corrections << ','
            << csvCell(summary.success, true) << ',' << csvCell(summary.note, true) << ','
            << csvCell(summary.recap, true) << ',' << csvCell(summary.carryForward, true) << ','
            << csvCell(topApps(summary), true) << ',' << csvCell(driftSites(summary), true) << ','
            << (summary.longestStretch ? std::to_string(summary.longestStretch->onTaskMs / 1000)
                                       : std::string())
            << "\r\n";
      }
      break;
    case ExportFormat::Markdown:
      out << "# AntiDrift history\n\n";
      if (sessions.empty()) {
        out << "No sessions yet.\n";
        break;
      }
      out << "| Ended (UTC) | Next action | Outcome | Planned | Actual | On task | Longest "
             "stretch | Drift went to | Met | Recap |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n";
      for (const SessionSummary& summary : sessions) {
        out << "| " << isoUtc(summary.endedAtMs) << " | " << markdownCell(summary.nextAction)
            << " | " << toString(summary.outcome) << " | " << minutesText(plannedSecs(summary))
            << " | " << minutesText(actualSecs(summary)) << " | " << shareText(onTaskShare(summary))
            << " | "
            << (summary.longestStretch ? minutesText(summary.longestStretch->onTaskMs / 1000)
                                       : std::string("unknown"))
            << " | "
            << (!summary.driftBySite           ? std::string("unknown")
                : summary.driftBySite->empty() ? std::string("none")
                                               : markdownCell(driftSites(summary)))
            << " | " << markdownCell(summary.success) << " | " << markdownCell(summary.recap)
            << " |\n";
      }
      break;
  }
  return out.str();
}

}  // namespace antidrift
