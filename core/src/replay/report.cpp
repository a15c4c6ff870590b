// The replay's report (docs/DESIGN.md §14): the figures of a ReplayReport as
// text for a person and as one JSON object (docs/API.md "Replay").
#include "antidrift/replay/replay.h"

#include <cstdio>
#include <sstream>

#include <Poco/DateTimeFormatter.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Timestamp.h>

#include "antidrift/replay/label_score.h"

namespace antidrift::replay {

using Poco::JSON::Object;

// ---- Reports -----------------------------------------------------------------------------------

namespace {

std::string utc(std::int64_t ms, const char* format = "%Y-%m-%d %H:%M") {
  return Poco::DateTimeFormatter::format(Poco::Timestamp(ms * 1000), format);
}

std::string duration(std::int64_t ms) {
  const std::int64_t minutes = (ms + 30'000) / 60'000;
  char text[32];
  if (minutes >= 60) {
    std::snprintf(text, sizeof text, "%lldh %02lldm", static_cast<long long>(minutes / 60),
                  static_cast<long long>(minutes % 60));
  } else if (ms >= 60'000) {
    std::snprintf(text, sizeof text, "%lldm", static_cast<long long>(minutes));
  } else {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(ms / 1000));
  }
  return text;
}

std::string percent(std::int64_t part, std::int64_t whole) {
  if (whole <= 0) return "0 %";
  char text[16];
  std::snprintf(text, sizeof text, "%.0f %%", 100.0 * static_cast<double>(part) / whole);
  return text;
}

/// "1/20.3" — window changes per judge call.
std::string ratio(std::int64_t calls, std::int64_t changes) {
  if (calls <= 0) return "none";
  char text[32];
  std::snprintf(text, sizeof text, "1/%.1f", static_cast<double>(changes) / calls);
  return text;
}

/// The judge on a fixed timer, for comparison: one call per kTimerSecs in front of a window.
constexpr std::int64_t kTimerSecs = 30;
std::int64_t timerTicks(const ReplayReport& report) {
  return report.activeMs / (kTimerSecs * 1000);
}

Object::Ptr countsJson(const ReplayReport& report) {
  Object::Ptr ai = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  ai->set("judge_calls", report.judgeCalls);
  ai->set("judge_failures", report.judgeFailures);
  ai->set("site_verdicts", report.siteVerdicts);
  ai->set("nudge_calls", report.nudgeCalls);
  ai->set("timer_30s_ticks", timerTicks(report));
  ai->set("drift_episodes", report.stats.driftEpisodes);
  ai->set("drifted_visits", report.driftedVisits);
  ai->set("drifting_ms", report.stats.driftMs);
  // Issue 18 item 4: what the backend's calls cost.
  Object::Ptr cost = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  cost->set("calls", report.aiCost.calls);
  cost->set("input_tokens", report.aiCost.inputTokens);
  cost->set("output_tokens", report.aiCost.outputTokens);
  cost->set("estimated", report.aiCost.estimated);
  cost->set("wall_ms", report.aiCost.wallMs);
  cost->set("judge_p50_ms", percentileMs(report.judgeLatenciesMs, 50));
  cost->set("judge_p99_ms", percentileMs(report.judgeLatenciesMs, 99));
  ai->set("cost", cost);
  return ai;
}

}  // namespace

std::string reportJson(const ReplayReport& report, const ReplayReport* baseline,
                       const LabelScore* score) {
  Object::Ptr root = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
  root->set("from_ms", report.fromMs);
  root->set("to_ms", report.toMs);
  root->set("sessions", report.sessions);
  root->set("observations", report.observations);
  root->set("window_events", report.windowEvents);
  root->set("window_changes", report.windowChanges);
  root->set("switches", report.stats.switches);
  root->set("away_ms", report.stats.awayMs);
  root->set("tracked_ms", report.trackedMs);
  root->set("on_task_ms", report.onTaskMs);
  root->set("active_ms", report.activeMs);
  root->set("on_task_share",
            report.activeMs > 0 ? static_cast<double>(report.onTaskMs) / report.activeMs : 0.0);
  root->set("drifting_ms", report.stats.driftMs);
  Poco::JSON::Array::Ptr apps = new Poco::JSON::Array;
  for (const auto& [app, secs] : report.stats.topBucketsSecs(report.stats.bucketsMs.size())) {
    Object::Ptr entry = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
    entry->set("app", app);
    entry->set("ms", report.stats.bucketsMs.at(app));
    apps->add(entry);
  }
  root->set("apps", apps);
  Object::Ptr ai = countsJson(report);
  root->set("ai", ai);
  if (baseline) root->set("judge_every_stable_title", countsJson(*baseline));
  Poco::JSON::Array::Ptr episodes = new Poco::JSON::Array;
  for (const DriftEpisode& episode : report.episodes) {
    Object::Ptr entry = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
    entry->set("at_ms", episode.atMs);
    entry->set("duration_ms", episode.durationMs);
    entry->set("app", episode.app);
    entry->set("title", episode.title);
    entry->set("reason", episode.reason);
    episodes->add(entry);
  }
  root->set("episodes", episodes);
  Poco::JSON::Array::Ptr timeline = new Poco::JSON::Array;
  for (const TimelineSpan& span : report.timeline) {
    Object::Ptr entry = new Object(Poco::JSON_PRESERVE_KEY_ORDER);
    entry->set("start_ms", span.startMs);
    entry->set("end_ms", span.endMs);
    entry->set("app", span.app);
    entry->set("status", std::string(toString(span.status)));
    entry->set("heads_up", span.headsUp);
    timeline->add(entry);
  }
  root->set("timeline", timeline);
  if (score) root->set("labels", Poco::JSON::Parser().parse(labelScoreJson(*score, true)));
  std::ostringstream out;
  Poco::JSON::Stringifier::condense(root, out);
  return out.str();
}

std::string reportText(const ReplayReport& report, const ReplayReport* baseline) {
  std::ostringstream out;
  const SessionStats& stats = report.stats;
  out << "From " << utc(report.fromMs) << " to " << utc(report.toMs)
      << " UTC: " << report.windowEvents << " window events (" << report.windowChanges
      << " window changes), " << report.observations << " observations, " << report.sessions
      << (report.sessions == 1 ? " session" : " sessions") << ".\n\n";
  out << "Time per app:\n";
  std::int64_t appsMs = 0;
  for (const auto& [app, ms] : stats.bucketsMs) appsMs += ms;
  for (const auto& [app, secs] : stats.topBucketsSecs(stats.bucketsMs.size())) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-28s %9s  %5s\n", app.c_str(),
                  duration(secs * 1000).c_str(), percent(secs * 1000, appsMs).c_str());
    out << line;
  }
  out << "Switches: " << stats.switches << "    Away: " << duration(stats.awayMs) << "\n";
  out << "On task: " << percent(report.onTaskMs, report.activeMs) << " of "
      << duration(report.activeMs) << " in front of a window (" << duration(report.trackedMs)
      << " replayed); drifting " << duration(stats.driftMs) << "\n\n";
  out << "Drift episodes: " << stats.driftEpisodes
      << " (window events with the banner up: " << report.driftedVisits << ")\n";
  for (const DriftEpisode& episode : report.episodes) {
    out << "  " << utc(episode.atMs) << "  " << duration(episode.durationMs) << "  " << episode.app
        << "  \"" << episode.title << "\" — " << episode.reason << "\n";
  }
  out << "\nAI calls: judge " << report.judgeCalls << " ("
      << ratio(report.judgeCalls, report.windowChanges) << " of window changes; "
      << report.siteVerdicts << " scoped to a whole site, " << report.judgeFailures
      << " failed), nudge " << report.nudgeCalls << "\n";
  if (report.aiCost.calls > 0) {  // issue 18 item 4
    out << "AI cost: " << report.aiCost.calls << " calls, " << report.aiCost.inputTokens
        << " tokens in, " << report.aiCost.outputTokens << " tokens out"
        << (report.aiCost.estimated ? " (estimated: characters / 4)" : " (reported by the server)")
        << ", " << duration(report.aiCost.wallMs) << " waiting; judge latency p50 "
        << percentileMs(report.judgeLatenciesMs, 50) << " ms, p99 "
        << percentileMs(report.judgeLatenciesMs, 99) << " ms\n";
  }
  out << "A judge on a " << kTimerSecs << " s timer instead: " << timerTicks(report) << " calls\n";
  if (baseline) {
    out << "Judging every stable title on its own (verdict scope ignored): judge "
        << baseline->judgeCalls << " (" << ratio(baseline->judgeCalls, baseline->windowChanges)
        << "), drift episodes " << baseline->stats.driftEpisodes
        << ", window events with the banner up " << baseline->driftedVisits << ", drifting "
        << duration(baseline->stats.driftMs) << "\n";
  }
  out << "\nTimeline (UTC):\n";
  for (const TimelineSpan& span : report.timeline) {
    if (span.endMs - span.startMs < 60'000) continue;  // the strip's resolution: minutes
    out << "  " << utc(span.startMs) << "–" << utc(span.endMs, "%H:%M") << "  "
        << toString(span.status) << (span.headsUp ? " (heads-up)" : "") << "  "
        << (span.app.empty() ? "-" : span.app) << "\n";
  }
  return out.str();
}

}  // namespace antidrift::replay
