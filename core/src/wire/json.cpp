#include "antidrift/wire/json.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <Poco/DateTimeFormatter.h>
#include <Poco/Timestamp.h>

#include "antidrift/store/ai_cost_json.h"
#include "antidrift/text/duration.h"

namespace antidrift {
namespace {

Poco::JSON::Object::Ptr commitmentJson(const Commitment& commitment, std::int64_t remainingSecs) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("id", commitment.id);
  json->set("next_action", commitment.nextAction);
  json->set("success_condition", commitment.successCondition);
  json->set("timebox_secs", commitment.timeboxSecs);
  json->set("extended_secs", commitment.extendedSecs);
  json->set("started_at", commitment.startedAtMs);
  json->set("deadline", commitment.deadlineMs);
  json->set("remaining_secs", remainingSecs);
  Poco::JSON::Array::Ptr apps = new Poco::JSON::Array;
  for (const auto& app : commitment.allowedApps) apps->add(app);
  json->set("allowed_apps", apps);
  Poco::JSON::Array::Ptr titles = new Poco::JSON::Array;
  for (const auto& allowed : commitment.allowedTitles) {
    Poco::JSON::Object::Ptr title = new Poco::JSON::Object;
    title->set("app", allowed.app);
    title->set("title", allowed.title);
    titles->add(title);
  }
  json->set("allowed_titles", titles);
  Poco::JSON::Array::Ptr sites = new Poco::JSON::Array;  // issue 17 item 4
  for (const auto& allowed : commitment.allowedSites) {
    Poco::JSON::Object::Ptr site = new Poco::JSON::Object;
    site->set("app", allowed.app);
    site->set("site", allowed.site);
    site->set("domain", allowed.domain);
    sites->add(site);
  }
  json->set("allowed_sites", sites);
  return json;
}

Poco::JSON::Object::Ptr statsJson(const SessionStats& stats,
                                  const std::map<std::string, AppSplit>& split) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  Poco::JSON::Array::Ptr buckets = new Poco::JSON::Array;
  for (const auto& [app, secs] : stats.topBucketsSecs(stats.bucketsMs.size())) {
    Poco::JSON::Object::Ptr bucket = new Poco::JSON::Object;
    bucket->set("app", app);
    bucket->set("secs", secs);
    // The timeline counts gaps the buckets cap (evidence.idle_after_s): the
    // split never claims more than the bucket holds.
    const auto it = split.find(app);
    const std::int64_t onTask =
        it == split.end() ? 0 : std::min<std::int64_t>(it->second.onTaskMs / 1000, secs);
    const std::int64_t drifting =
        it == split.end() ? 0 : std::min<std::int64_t>(it->second.driftingMs / 1000, secs - onTask);
    bucket->set("ontask_secs", onTask);
    bucket->set("drifting_secs", drifting);
    buckets->add(bucket);
  }
  json->set("buckets", buckets);
  json->set("switches", stats.switches);
  json->set("drift_episodes", stats.driftEpisodes);
  json->set("drift_secs", stats.driftMs / 1000);
  json->set("away_secs", stats.awayMs / 1000);
  json->set("suspended_secs", stats.suspendedMs / 1000);
  json->set("corrections", stats.corrections);
  Poco::JSON::Object::Ptr aiCalls = new Poco::JSON::Object;
  for (const char* role : {"coach", "judge", "nudge", "reviewer"}) {
    const auto it = stats.aiCalls.find(role);
    aiCalls->set(role, it == stats.aiCalls.end() ? std::int64_t{0} : it->second);
  }
  json->set("ai_calls", aiCalls);
  json->set("ai_cost", aiCostToJson(stats.aiCost));  // issue 18 item 4
  return json;
}

}  // namespace

Poco::JSON::Array::Ptr timelineJson(const std::vector<TimelineSpan>& spans) {
  Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
  for (const TimelineSpan& span : spans) {
    Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
    item->set("start", span.startMs);
    item->set("end", span.endMs);
    item->set("app", span.app);
    item->set("status", std::string(toString(span.status)));
    item->set("heads_up", span.headsUp);
    array->add(item);
  }
  return array;
}

Poco::JSON::Array::Ptr driftBySiteJson(const std::vector<SiteDrift>& sites) {
  Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
  for (const SiteDrift& site : sites) {
    Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
    item->set("where", site.where);
    item->set("drift_secs", site.driftMs / 1000);
    item->set("visits", site.visits);
    array->add(item);
  }
  return array;
}

Poco::JSON::Object::Ptr stretchJson(const OnTaskStretch& stretch) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("secs", stretch.onTaskMs / 1000);
  json->set("start", stretch.startMs);
  json->set("end", stretch.endMs);
  return json;
}

Poco::JSON::Object::Ptr toJson(const State& state) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("version", state.version);
  json->set("now", state.nowMs);
  json->set("runtime", std::string(toString(state.runtime)));
  const bool inSession =
      state.runtime == RuntimeState::Active || state.runtime == RuntimeState::Review;
  if (inSession && state.commitment) {
    json->set("commitment", commitmentJson(*state.commitment, state.remainingSecs));
    json->set("stats", statsJson(state.stats, state.appSplit));
  }
  // Up to 200 spans, shown on Review only: while active it would be most of
  // every push to every stream (issue 8 item 2; docs/API.md §5).
  if (state.runtime == RuntimeState::Review && state.commitment) {
    json->set("timeline", timelineJson(state.timeline));
  }
  if (state.runtime == RuntimeState::Review) {
    json->set("outcome", std::string(toString(state.outcome)));
    json->set("ended_at", state.endedAtMs);
    Poco::JSON::Object::Ptr reflection = new Poco::JSON::Object;
    reflection->set("status", std::string(toString(state.reflection.status)));
    reflection->set("recap", state.reflection.recap);
    reflection->set("carry_forward", state.reflection.carryForward);
    json->set("reflection", reflection);
    Poco::JSON::Object::Ptr review = new Poco::JSON::Object;
    review->set("success", state.review.success);
    review->set("note", state.review.note);
    json->set("review", review);
    if (state.focus) {  // issue 17 item 5; absent when unknown
      json->set("drift_by_site", driftBySiteJson(state.focus->driftBySite));
      json->set("longest_on_task", stretchJson(state.focus->longest));
    }
  }

  Poco::JSON::Object::Ptr evidence = new Poco::JSON::Object;
  evidence->set("health", std::string(toString(state.evidence.health)));
  evidence->set("source", state.evidence.source);
  evidence->set("away", state.evidence.away);
  if (state.evidence.current) {
    Poco::JSON::Object::Ptr current = new Poco::JSON::Object;
    current->set("app", state.evidence.current->app);
    current->set("title", state.evidence.current->title);
    current->set("at", state.evidence.current->atMs);
    current->set("domain", state.evidence.current->domain);
    evidence->set("current", current);
  }
  json->set("evidence", evidence);

  if (state.runtime == RuntimeState::Active) {
    Poco::JSON::Object::Ptr drift = new Poco::JSON::Object;
    drift->set("status", std::string(drift::toString(state.drift.status)));
    drift->set("reason", state.drift.reason);
    drift->set("nudge", state.drift.nudge);
    drift->set("app", state.drift.app);
    drift->set("blocked", state.drift.blocked);
    if (state.drift.judgeAtMs > 0) drift->set("judge_at", state.drift.judgeAtMs);
    drift->set("site", state.drift.site);             // issue 17 item 4
    drift->set("memory_key", state.drift.memoryKey);  // issue 17, re-walk A
    json->set("drift", drift);
  }
  if (state.runtime == RuntimeState::Planning) {
    const auto list = [](const std::vector<std::string>& apps) {
      Poco::JSON::Array::Ptr array = new Poco::JSON::Array;
      for (const auto& app : apps) array->add(app);
      return array;
    };
    json->set("default_allowed_apps", list(state.defaultAllowedApps));
    json->set("app_choices", list(state.appChoices));
    json->set("last_allowed_apps", list(state.lastAllowedApps));
    Poco::JSON::Object::Ptr coach = new Poco::JSON::Object;
    coach->set("status", std::string(toString(state.coach.status)));
    if (state.coach.proposal) {
      Poco::JSON::Object::Ptr proposal = new Poco::JSON::Object;
      proposal->set("next_action", state.coach.proposal->nextAction);
      proposal->set("success_condition", state.coach.proposal->successCondition);
      proposal->set("timebox_secs", state.coach.proposal->timeboxSecs);
      coach->set("proposal", proposal);
    }
    if (!state.coach.error.empty()) coach->set("error", state.coach.error);
    json->set("coach", coach);

    Poco::JSON::Object::Ptr tasks = new Poco::JSON::Object;
    tasks->set("status", std::string(toString(state.tasks.status)));
    Poco::JSON::Array::Ptr items = new Poco::JSON::Array;
    for (const auto& task : state.tasks.items) {
      Poco::JSON::Object::Ptr item = new Poco::JSON::Object;
      item->set("text", task.text);
      item->set("priority", task.priority ? std::string(1, *task.priority) : std::string());
      Poco::JSON::Array::Ptr projects = new Poco::JSON::Array;
      for (const auto& project : task.projects) projects->add(project);
      item->set("projects", projects);
      Poco::JSON::Array::Ptr contexts = new Poco::JSON::Array;
      for (const auto& context : task.contexts) contexts->add(context);
      item->set("contexts", contexts);
      item->set("due", task.due);
      items->add(item);
    }
    tasks->set("items", items);
    json->set("tasks", tasks);

    Poco::JSON::Object::Ptr profile = new Poco::JSON::Object;
    profile->set("status", std::string(toString(state.profile.status)));
    profile->set("bytes", static_cast<std::uint64_t>(state.profile.bytes));
    Poco::JSON::Object::Ptr knowledge = new Poco::JSON::Object;
    knowledge->set("profile", profile);
    json->set("knowledge", knowledge);
  }
  json->set("last_carry_forward", state.lastCarryForward);
  Poco::JSON::Object::Ptr ai = new Poco::JSON::Object;
  ai->set("backend", state.ai.backend);
  ai->set("available", state.ai.available);
  ai->set("detail", state.ai.detail);
  ai->set("auto", state.ai.origin.automatic);  // issue 18 items 2 and 3
  ai->set("found", state.ai.origin.found);
  ai->set("prompts", state.ai.origin.prompts);
  ai->set("destination", state.ai.origin.destination);
  ai->set("cost", aiCostToJson(state.ai.cost));
  json->set("ai", ai);
  Poco::JSON::Object::Ptr notify = new Poco::JSON::Object;
  notify->set("desktop", state.notify.desktop);
  notify->set("do_not_disturb", state.notify.doNotDisturb);
  json->set("notify", notify);
  json->set("page_tag", state.pageTag);
  return json;
}

Poco::JSON::Object::Ptr healthJson(const State& state) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("status", "ok");
  json->set("runtime", std::string(toString(state.runtime)));
  json->set("evidence", std::string(toString(state.evidence.health)));
  // Issue 18 item 2: which AI, chosen how, and where titles go.
  json->set("ai", state.ai.available ? state.ai.backend : std::string("none"));
  json->set("ai_auto", state.ai.origin.automatic);
  json->set("ai_prompts", state.ai.origin.prompts);
  return json;
}

namespace {

std::int64_t actualSecs(const SessionSummary& summary) {
  return std::max<std::int64_t>(0, (summary.endedAtMs - summary.startedAtMs) / 1000);
}

std::int64_t plannedSecs(const SessionSummary& summary) {
  // Planned is the timebox plus extensions, never less than the timebox
  // (a record written before issue 7 has no planned_secs).
  return std::max(summary.plannedSecs, summary.timeboxSecs);
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

using text::countText;
using text::minutesText;
using text::shortDurationText;

/// `value` with a comma every three digits, "2,310" (the page's
/// toLocaleString('en')).
std::string groupedDigits(std::int64_t value) {
  std::string digits = std::to_string(std::max<std::int64_t>(0, value));
  for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

/// "4 calls · 2,310 tokens in · 95 out (estimated) · 6 s waiting", as the
/// page's history (www/js/format.js formatAiCost; issue 18 item 4); "—"
/// when no call was made or the record is older than issue 18.
std::string aiCostText(const AiCost& cost) {
  if (cost.calls <= 0) return "—";
  return countText(cost.calls, "call") + " · " + groupedDigits(cost.inputTokens) + " tokens in · " +
         groupedDigits(cost.outputTokens) + " out" + (cost.estimated ? " (estimated)" : "") +
         " · " + std::to_string((std::max<std::int64_t>(0, cost.wallMs) + 500) / 1000) +
         " s waiting";
}

std::string topApps(const SessionSummary& summary) {
  std::string text;
  for (const auto& [app, secs] : summary.topBuckets) {
    if (!text.empty()) text += "; ";
    text += app + " " + std::to_string(secs) + "s";
  }
  return text;
}

/// "youtube.com 5 min over 6 visits; slack 40 s over 1 visit"; "" when
/// none or unknown.
std::string driftSites(const SessionSummary& summary) {
  std::string text;
  if (!summary.driftBySite) return text;
  for (const SiteDrift& site : *summary.driftBySite) {
    if (!text.empty()) text += "; ";
    text += site.where + " " + shortDurationText(site.driftMs / 1000) + " over " +
            countText(site.visits, "visit");
  }
  return text;
}

}  // namespace

Poco::JSON::Object::Ptr sessionViewJson(const SessionSummary& summary) {
  Poco::JSON::Object::Ptr json = new Poco::JSON::Object;
  json->set("id", summary.id);
  json->set("started_at", summary.startedAtMs);
  json->set("ended_at", summary.endedAtMs);
  json->set("next_action", summary.nextAction);
  json->set("success_condition", summary.successCondition);
  json->set("outcome", std::string(toString(summary.outcome)));
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
             "drift_by_site,longest_on_task_secs,ai_calls,ai_input_tokens,ai_output_tokens,"
             "ai_tokens_estimated,ai_wall_ms\r\n";
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
            << ',' << summary.aiCost.calls << ',' << summary.aiCost.inputTokens << ','
            << summary.aiCost.outputTokens << ',' << (summary.aiCost.estimated ? "true" : "false")
            << ',' << summary.aiCost.wallMs << "\r\n";
      }
      break;
    case ExportFormat::Markdown:
      out << "# AntiDrift history\n\n";
      if (sessions.empty()) {
        out << "No sessions yet.\n";
        break;
      }
      out << "| Ended (UTC) | Next action | Outcome | Planned | Actual | On task | Longest "
             "stretch | Drift went to | Met | Note | Recap | AI cost |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
      for (const SessionSummary& summary : sessions) {
        out << "| " << isoUtc(summary.endedAtMs) << " | " << markdownCell(summary.nextAction)
            << " | " << toString(summary.outcome) << " | " << minutesText(plannedSecs(summary))
            << " | " << minutesText(actualSecs(summary)) << " | " << shareText(onTaskShare(summary))
            << " | "
            << (summary.longestStretch ? shortDurationText(summary.longestStretch->onTaskMs / 1000)
                                       : std::string("unknown"))
            << " | "
            << (!summary.driftBySite           ? std::string("unknown")
                : summary.driftBySite->empty() ? std::string("none")
                                               : markdownCell(driftSites(summary)))
            << " | " << markdownCell(summary.success) << " | " << markdownCell(summary.note)
            << " | " << markdownCell(summary.recap) << " | " << aiCostText(summary.aiCost)
            << " |\n";
      }
      break;
  }
  return out.str();
}

}  // namespace antidrift
