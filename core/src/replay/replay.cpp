#include "antidrift/replay/replay.h"
#include "antidrift/replay/label_score.h"
#include "antidrift/replay/oracle.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>
#include <unordered_map>

#include <Poco/DateTimeFormatter.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>
#include <Poco/Timestamp.h>

#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/ai/redact.h"
#include "antidrift/drift/engine.h"
#include "antidrift/drift/rules.h"
#include "antidrift/evidence/observation.h"

namespace antidrift::replay {

using Poco::JSON::Object;

// ---- The replay ------------------------------------------------------------------------------

namespace {

/// The timeline's app when no window was seen yet (a reference, so that a recorded app is not
/// copied at every step: issue 16 item 5).
const std::string kNoApp;

/// One session: one commitment range, replayed through the engine.
class Session {
 public:
  Session(drift::Engine& engine, const ReplayOptions& options, const CommitmentRange& range,
          const std::vector<AwaySpan>& away, const std::vector<WindowWeb>& web,
          ReplayReport& report)
      : engine_(engine),
        options_(options),
        range_(range),
        away_(away),
        web_(web),
        report_(report),
        stats_(options.settings.idleAfterSecs * 1000),
        heartbeatMs_(std::max<std::int64_t>(1, options.settings.heartbeatSecs) * 1000),
        staleAfterMs_(3 * heartbeatMs_),
        advisors_(options.backend || options.oracle ? drift::Engine::Advisors::JudgeAndNudge
                                                    : drift::Engine::Advisors::None) {
    if (options.oracle) redactor_.emplace(options.settings.redactPatterns);
    engine_.reset();
    commitment_.nextAction = range.nextAction;
    commitment_.successCondition = range.successCondition;
    for (const std::string& app : range.allowedApps) {
      commitment_.allowedApps.push_back(normaliseApp(app));
    }
  }

  /// Replays windows[first, last) (their starts are inside the range).
  void run(const std::vector<WindowEvent>& windows, std::size_t first, std::size_t last) {
    clockMs_ = windows[first].atMs;
    while (nextAway_ < away_.size() && away_[nextAway_].endMs <= clockMs_) ++nextAway_;
    std::int64_t endMs = clockMs_;
    const WindowEvent* previous = first > 0 ? &windows[first - 1] : nullptr;
    for (std::size_t i = first; i < last; ++i) {
      const WindowEvent& event = windows[i];
      ++report_.windowEvents;
      if (previous && (previous->app != event.app || previous->title != event.title)) {
        ++report_.windowChanges;
      }
      previous = &event;
      const std::int64_t startMs = std::max(event.atMs, clockMs_);
      std::int64_t untilMs = std::min(event.atMs + event.durationMs, range_.toMs);
      if (i + 1 < windows.size()) untilMs = std::min(untilMs, windows[i + 1].atMs);
      advanceTo(startMs);
      closeVisit();
      if (options_.keepTrace) {
        report_.trace.events.push_back(
            TraceEvent{startMs, std::max(untilMs, startMs), event.app, event.title,
                       std::find(commitment_.allowedApps.begin(), commitment_.allowedApps.end(),
                                 normaliseApp(event.app)) != commitment_.allowedApps.end(),
                       0});
        traceEvent_ = report_.trace.events.size() - 1;
      }
      static const WindowWeb kNoWeb;
      const WindowWeb& web = web_.empty() ? kNoWeb : web_[i];
      see(event, web, startMs, true);
      for (std::int64_t at = startMs + heartbeatMs_; at < untilMs; at += heartbeatMs_) {
        advanceTo(at);
        see(event, web, at, false);
      }
      endMs = std::max(endMs, std::max(untilMs, startMs));
    }
    advanceTo(endMs);
    closeVisit();
    closeSlice(endMs);
    finish(endMs);
  }

 private:
  /// The Controller's entry steps for a recorded window (normaliseApp,
  /// sanitizeTitle, a private window's title and site dropped), computed once per
  /// distinct app, title and joined site of the replay (a day revisits the same windows).
  const Observation& prepared(const WindowEvent& event, const WindowWeb& web) {
    std::string raw = event.app;
    raw += '\n';
    raw += event.title;
    raw += '\n';
    raw += web.privateWindow ? std::string("\x01") : web.domain;
    auto found = prepared_.find(raw);
    if (found == prepared_.end()) {
      Observation obs;
      obs.app = normaliseApp(event.app);
      obs.title = sanitizeTitle(event.title);
      obs.privateWindow = web.privateWindow || drift::isPrivateWindow(obs.app, obs.title);
      if (obs.privateWindow) {
        // The hard rules see the raw title before it is dropped (issue 19 item 3).
        if (auto blocked = engine_.rules().blockedReason(obs)) obs.blockedTitle = *blocked;
        obs.title = std::string(drift::kPrivateWindowTitle);
      } else {
        obs.domain = web.domain;
      }
      obs.source = "replay";
      found = prepared_.emplace(std::move(raw), std::move(obs)).first;
    }
    return found->second;
  }

  /// The window event before ends: count it when the banner was up during it.
  void closeVisit() {
    if (visitDrifted_) ++report_.driftedVisits;
    visitDrifted_ = false;
  }

  void see(const WindowEvent& event, const WindowWeb& web, std::int64_t atMs, bool isNewEvent) {
    ++report_.observations;
    if (isNewEvent || !current_) {
      current_ = prepared(event, web);
      currentEvent_ = &event;
      if (redactor_) shownAs_[redactor_->apply(current_->title)] = &event;
    }
    current_->atMs = atMs;
    evidenceOk_ = true;
    lastObservationMs_ = atMs;
    stats_.observe(*current_);
    evaluate(atMs);
  }

  void evaluate(std::int64_t atMs) {
    drift::Decision decision = engine_.evaluate(current_ ? &*current_ : nullptr,
                                                evidenceOk_ ? std::string() : "evidence is stale",
                                                away(), commitment_, atMs, atMs, advisors_);
    apply(decision, atMs);
  }

  bool away() const { return inAway_; }

  /// The Controller's applyDriftLocked with a synchronous executor.
  void apply(drift::Decision& decision, std::int64_t atMs) {
    drift::recordDecision(decision, engine_.view(), stats_);
    if (decision.driftMs > 0 && !report_.episodes.empty()) {
      report_.episodes.back().durationMs += decision.driftMs;
    }
    if (decision.episodeStarted) {
      report_.episodes.push_back(DriftEpisode{atMs, 0, engine_.view().app,
                                              current_ ? current_->title : std::string(),
                                              engine_.view().reason});
    }
    const std::int64_t timeoutMs = options_.settings.aiTimeoutSecs * 1000;
    if (decision.judge && options_.oracle) {
      // The request is about the window in front at its launch, and the replay answers at that
      // very instant: the key's subject is the raw event in front.
      ++report_.judgeCalls;
      const WindowEvent none;
      const WindowEvent& subject = currentEvent_ ? *currentEvent_ : none;
      const ai::Verdict verdict = oracleVerdict(*options_.oracle, subject.app, subject.title);
      drift::Decision applied = engine_.applyVerdict(decision.judge->key, verdict, {}, atMs);
      apply(applied, atMs);
    } else if (decision.judge && options_.backend) {
      ++report_.judgeCalls;
      CallCost cost;  // issue 18 item 4
      ai::Expected<ai::Verdict> result =
          ai::judge(*options_.backend, decision.judge->input, timeoutMs, &cost);
      report_.aiCost.add(cost);
      report_.judgeLatenciesMs.push_back(cost.wallMs);
      std::optional<ai::Verdict> verdict;
      std::string failure;
      if (result) {
        verdict = result.value();
        if (options_.judgeEveryStableTitle) verdict->scope = ai::VerdictScope::Page;
        if (verdict->scope == ai::VerdictScope::Site) ++report_.siteVerdicts;
      } else {
        ++report_.judgeFailures;
        failure = result.error().message;
      }
      drift::Decision applied = engine_.applyVerdict(decision.judge->key, verdict, failure, atMs);
      apply(applied, atMs);
    }
    if (decision.nudge && options_.oracle) {
      ++report_.nudgeCalls;
      std::vector<OracleWindow> recent;
      for (const std::string& title : decision.nudge->input.recentTitles) {
        const auto found = shownAs_.find(title);
        if (found == shownAs_.end()) {
          recent.push_back(OracleWindow{{}, {}, title});  // matched to no window: unlabelled
        } else {
          recent.push_back(OracleWindow{found->second->app, found->second->title, title});
        }
      }
      (void)engine_.applyNudge(oracleNudge(*options_.oracle, recent));
    } else if (decision.nudge && options_.backend) {
      ++report_.nudgeCalls;
      CallCost cost;  // issue 18 item 4
      ai::Expected<std::string> result =
          ai::nudge(*options_.backend, decision.nudge->input, timeoutMs, &cost);
      report_.aiCost.add(cost);
      if (result) (void)engine_.applyNudge(result.value());
    }
    if (engine_.view().status == drift::DriftStatus::Drifting) visitDrifted_ = true;
    timeline_.record(atMs, current_ ? current_->app : kNoApp,
                     drift::spanStatusOf(engine_.view(), away()), !engine_.view().nudge.empty());
    if (options_.keepTrace) {
      if (decision.episodeStarted && traceEvent_) {
        ++report_.trace.events[*traceEvent_].bannerStarts;
      }
      traceState(atMs);
    }
  }

  /// The trace (ReplayOptions::keepTrace): from `atMs` on, the event in front is in the state
  /// the engine shows now; a new slice starts when the event or the state changed.
  void traceState(std::int64_t atMs) {
    if (!traceEvent_) return;
    TraceSlice next;
    next.event = *traceEvent_;
    next.startMs = atMs;
    next.active = evidenceOk_ && !inAway_;
    next.banner = engine_.view().status == drift::DriftStatus::Drifting;
    next.headsUp = !engine_.view().nudge.empty();
    if (openSlice_ && openSlice_->event == next.event && openSlice_->active == next.active &&
        openSlice_->banner == next.banner && openSlice_->headsUp == next.headsUp) {
      return;
    }
    closeSlice(atMs);
    if (atMs < report_.trace.events[next.event].endMs) openSlice_ = next;
  }

  /// Ends the open slice at `atMs`, or at its event's end when that is sooner.
  void closeSlice(std::int64_t atMs) {
    if (!openSlice_) return;
    TraceSlice slice = *openSlice_;
    openSlice_.reset();
    slice.endMs = std::min(atMs, report_.trace.events[slice.event].endMs);
    if (slice.endMs > slice.startMs) report_.trace.slices.push_back(slice);
  }

  /// Moves the virtual clock to `targetMs`, stopping at every due judge
  /// call, evidence turning stale, and the person leaving or coming back.
  void advanceTo(std::int64_t targetMs) {
    while (true) {
      std::int64_t next = targetMs;
      enum class What { None, Due, Stale, AwayStart, AwayEnd } what = What::None;
      if (const auto due = engine_.nextDueMono(); due && *due <= next) {
        next = std::max(*due, clockMs_);
        what = What::Due;
      }
      if (evidenceOk_ && lastObservationMs_ + staleAfterMs_ <= next &&
          lastObservationMs_ + staleAfterMs_ <= targetMs) {
        next = std::max(lastObservationMs_ + staleAfterMs_, clockMs_);
        what = What::Stale;
      }
      if (nextAway_ < away_.size()) {
        const AwaySpan& span = away_[nextAway_];
        const std::int64_t at = inAway_ ? span.endMs : span.startMs;
        if (at <= next && at <= targetMs) {
          next = std::max(at, clockMs_);
          what = inAway_ ? What::AwayEnd : What::AwayStart;
        }
      }
      if (what == What::None) break;
      clockMs_ = next;
      switch (what) {
        case What::Due: {
          drift::Decision decision = engine_.due(commitment_, clockMs_);
          apply(decision, clockMs_);
          if (const auto again = engine_.nextDueMono(); again && *again <= clockMs_) {
            return;  // nothing more can fall due at this instant (never expected)
          }
          break;
        }
        case What::Stale:
          evidenceOk_ = false;
          evaluate(clockMs_);
          break;
        case What::AwayStart:
          inAway_ = true;
          stats_.setAway(true, clockMs_);
          evaluate(clockMs_);
          break;
        case What::AwayEnd:
          inAway_ = false;
          ++nextAway_;
          stats_.setAway(false, clockMs_);
          evaluate(clockMs_);
          break;
        case What::None:
          break;
      }
    }
    clockMs_ = std::max(clockMs_, targetMs);
  }

  void finish(std::int64_t endMs) {
    stats_.settle(endMs);
    if (inAway_) stats_.setAway(false, endMs);
    timeline_.extendTo(endMs);
    const std::int64_t driftMs = engine_.close(endMs);
    stats_.addDriftMs(driftMs);
    if (driftMs > 0 && !report_.episodes.empty()) report_.episodes.back().durationMs += driftMs;

    const SessionStats& stats = stats_.stats();
    SessionStats& total = report_.stats;
    for (const auto& [app, ms] : stats.bucketsMs) {
      total.bucketsMs[app] += ms;
      report_.activeMs += ms;
    }
    total.switches += stats.switches;
    total.driftEpisodes += stats.driftEpisodes;
    total.driftMs += stats.driftMs;
    total.awayMs += stats.awayMs;
    total.corrections += stats.corrections;
    for (const std::string& reason : stats.driftReasons) {
      if (total.driftReasons.size() < kMaxDriftReasons) total.driftReasons.push_back(reason);
    }
    for (const auto& [role, calls] : stats.aiCalls) total.aiCalls[role] += calls;
    report_.onTaskMs += timeline_.onTaskMs();
    for (const TimelineSpan& span : timeline_.spans()) {
      report_.trackedMs += span.endMs - span.startMs;
      if (options_.keepTimeline) report_.timeline.push_back(span);
    }
    ++report_.sessions;
  }

  drift::Engine& engine_;
  const ReplayOptions& options_;
  const CommitmentRange& range_;
  const std::vector<AwaySpan>& away_;
  const std::vector<WindowWeb>& web_;  ///< per window event: its joined site (issue 16 item 4)
  ReplayReport& report_;
  Commitment commitment_;
  StatsAccumulator stats_;
  Timeline timeline_;
  const std::int64_t heartbeatMs_;
  const std::int64_t staleAfterMs_;
  const drift::Engine::Advisors advisors_;

  std::optional<Observation> current_;
  const WindowEvent* currentEvent_ = nullptr;  ///< the recorded event in front (the oracle's key)
  std::optional<ai::Redactor> redactor_;       ///< with the oracle: the engine's redaction
  /// With the oracle: a title as the Nudger is shown it (sanitised, redacted) → the recorded
  /// event that last showed it.
  std::unordered_map<std::string, const WindowEvent*> shownAs_;
  std::unordered_map<std::string, Observation> prepared_;  ///< raw app + '\n' + title → entry
  std::int64_t clockMs_ = 0;
  std::int64_t lastObservationMs_ = 0;
  bool evidenceOk_ = false;
  bool inAway_ = false;
  bool visitDrifted_ = false;              ///< the banner was up during the current window event
  std::optional<std::size_t> traceEvent_;  ///< the event in front, as an index of the trace
  std::optional<TraceSlice> openSlice_;    ///< the trace's slice being written
  std::size_t nextAway_ = 0;
};

}  // namespace

ReplayReport runReplay(const Activity& activity, const ReplayOptions& options) {
  if (options.commitments.empty()) throw ReplayError("a replay needs a commitment");
  ReplayReport report;
  if (activity.windows.empty()) return report;
  report.fromMs = activity.windows.front().atMs;
  for (const WindowEvent& event : activity.windows) {
    report.toMs = std::max(report.toMs, event.atMs + event.durationMs);
  }
  drift::Engine engine(options.settings);
  // The verdict memory as the daemon has it (issue 16 item 3), starting empty
  // so a replay stays deterministic: later commitment ranges reuse verdicts.
  drift::VerdictMemory memory(
      static_cast<std::size_t>(std::max<std::int64_t>(1, options.settings.driftMemoryMaxEntries)));
  if (options.settings.driftMemory) engine.setMemory(&memory);
  const std::vector<WindowWeb> web = joinWebEvents(activity, options.settings);
  const std::vector<WindowEvent>& windows = activity.windows;
  std::size_t first = 0;
  for (const CommitmentRange& range : options.commitments) {
    while (first < windows.size() && windows[first].atMs < range.fromMs) ++first;
    std::size_t last = first;
    while (last < windows.size() && windows[last].atMs < range.toMs) ++last;
    if (last > first) {
      Session(engine, options, range, activity.away, web, report).run(windows, first, last);
    }
    first = last;
  }
  return report;
}

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
