// The replay's report (docs/DESIGN.md §14): the figures of a ReplayReport as
// text for a person and as one JSON object (docs/API.md "Replay").
#include "antidrift/replay/replay.h"
#include "antidrift/text/duration.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Poco/DateTimeFormatter.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Timestamp.h>

#include "antidrift/drift/title_normalizer.h"
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

namespace {

/// `ms` as local time ("%Y-%m-%d %H:%M" by default), in the zone of $TZ or /etc/localtime.
std::string local(std::int64_t ms, const char* format = "%Y-%m-%d %H:%M") {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm parts{};
  if (::localtime_r(&seconds, &parts) == nullptr) return utc(ms, format);
  char text[64];
  return std::strftime(text, sizeof text, format, &parts) > 0 ? text : utc(ms, format);
}

/// The local zone's name at `ms` ("CEST"), "UTC" when local time is UTC.
std::string zoneName(std::int64_t ms) {
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm parts{};
  if (::localtime_r(&seconds, &parts) == nullptr || parts.tm_gmtoff == 0) return "UTC";
  return parts.tm_zone != nullptr ? parts.tm_zone : "local time";
}

/// The drift of one site or app, summed over its episodes.
struct DriftPlace {
  std::string name;    ///< the site the title names, else the app
  std::string app;     ///< the app of its first episode
  std::string reason;  ///< the reason of its first episode
  std::int64_t ms = 0;
  std::int64_t episodes = 0;
};

/// How drift/known_distractions words a known distraction's reason, after its name.
constexpr std::string_view kKnownDistraction = " is a known distraction";

/// Episodes grouped by the known distraction their reason names, else the
/// site their title names (drift::siteOf), else their app; most drifted first.
std::vector<DriftPlace> driftPlaces(const std::vector<DriftEpisode>& episodes) {
  std::vector<DriftPlace> places;
  std::unordered_map<std::string, std::size_t> index;
  for (const DriftEpisode& episode : episodes) {
    // A known distraction's reason names the site as a person does
    // ("YouTube is a known distraction (video)"); else the site the title
    // names, else the app.
    const std::size_t known = episode.reason.find(kKnownDistraction);
    std::string name = known != std::string::npos && known > 0
                           ? episode.reason.substr(0, known)
                           : drift::siteOf(drift::normalizeTitle(episode.title));
    if (name.empty()) name = episode.app;
    const auto [found, added] = index.emplace(episode.app + '\n' + name, places.size());
    if (added) places.push_back(DriftPlace{name, episode.app, episode.reason, 0, 0});
    DriftPlace& place = places[found->second];
    place.ms += episode.durationMs;
    ++place.episodes;
  }
  std::stable_sort(places.begin(), places.end(),
                   [](const DriftPlace& a, const DriftPlace& b) { return a.ms > b.ms; });
  return places;
}

/// Stretches with no window recorded (between one event's end and the next
/// event), at least `minimumMs` long: a suspend, a night, the recorder off.
std::vector<std::pair<std::int64_t, std::int64_t>> recordingGaps(const Trace& trace,
                                                                 std::int64_t minimumMs) {
  std::vector<std::pair<std::int64_t, std::int64_t>> gaps;
  std::int64_t coveredTo = trace.events.empty() ? 0 : trace.events.front().endMs;
  for (std::size_t i = 1; i < trace.events.size(); ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.atMs - coveredTo >= minimumMs) gaps.emplace_back(coveredTo, event.atMs);
    coveredTo = std::max(coveredTo, event.endMs);
  }
  return gaps;
}

}  // namespace

std::string reportText(const ReplayReport& report, const ReplayReport* /*baseline*/) {
  // For a person (issue 17 item 4): local time (and UTC once), drift per
  // site or app, no developer figures (they are in --json), and no span drawn
  // over a stretch where nothing was recorded.
  std::ostringstream out;
  const SessionStats& stats = report.stats;
  const std::string zone = zoneName(report.fromMs);
  out << "From " << local(report.fromMs) << " to " << local(report.toMs) << " " << zone;
  if (zone != "UTC") out << " (" << utc(report.fromMs) << " to " << utc(report.toMs) << " UTC)";
  out << ", " << report.sessions << (report.sessions == 1 ? " session" : " sessions") << ".\n\n";
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
      << duration(report.activeMs) << " in front of a window; drifting " << duration(stats.driftMs)
      << "\n\n";
  out << "Drift episodes: " << stats.driftEpisodes << ", by site or app:\n";
  for (const DriftPlace& place : driftPlaces(report.episodes)) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-28s %9s over %lld %s  %s — %s\n", place.name.c_str(),
                  duration(place.ms).c_str(), static_cast<long long>(place.episodes),
                  place.episodes == 1 ? "episode" : "episodes", place.app.c_str(),
                  place.reason.c_str());
    out << line;
  }
  out << "\nAI calls: judge " << report.judgeCalls;
  if (report.judgeFailures > 0) out << " (" << report.judgeFailures << " failed)";
  out << ", nudge " << report.nudgeCalls << "\n";
  if (report.aiCost.calls > 0) {  // issue 18 item 4
    out << "AI cost: " << text::countText(report.aiCost.calls, "call") << ", "
        << report.aiCost.inputTokens << " tokens in, " << report.aiCost.outputTokens
        << " tokens out"
        << (report.aiCost.estimated ? " (estimated: characters / 4)" : " (reported by the server)")
        << ", " << duration(report.aiCost.wallMs) << " waiting; judge latency p50 "
        << percentileMs(report.judgeLatenciesMs, 50) << " ms, p99 "
        << percentileMs(report.judgeLatenciesMs, 99) << " ms\n";
  }
  out << "\nTimeline (" << (zone == "UTC" ? "UTC" : "local time") << "):\n";
  constexpr std::int64_t kMinuteMs = 60'000;  // the strip's resolution
  // Each span without the stretches where nothing was recorded, and those
  // stretches as lines of their own, in time order.
  const auto gaps = recordingGaps(report.trace, 10 * kMinuteMs);
  std::vector<std::pair<std::int64_t, std::string>> lines;
  for (const auto& [gapStart, gapEnd] : gaps) {
    lines.emplace_back(gapStart, local(gapStart) + "–" + local(gapEnd, "%H:%M") +
                                     "  nothing recorded (" + duration(gapEnd - gapStart) + ")");
  }
  for (const TimelineSpan& span : report.timeline) {
    std::int64_t from = span.startMs;
    const auto piece = [&](std::int64_t toMs) {
      if (toMs - from >= kMinuteMs) {
        lines.emplace_back(from, local(from) + "–" + local(toMs, "%H:%M") + "  " +
                                     std::string(toString(span.status)) +
                                     (span.headsUp ? " (heads-up)" : "") + "  " +
                                     (span.app.empty() ? "-" : span.app));
      }
    };
    for (const auto& [gapStart, gapEnd] : gaps) {
      if (gapEnd <= from || gapStart >= span.endMs) continue;
      piece(gapStart);
      from = std::min(span.endMs, gapEnd);
    }
    piece(span.endMs);
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& line : lines) out << "  " << line.second << "\n";
  return out.str();
}

}  // namespace antidrift::replay
