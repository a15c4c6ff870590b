// Running a replay (docs/DESIGN.md §14): a recorded day through the same
// active-session steps as the daemon (drift::ActiveSession), with a virtual
// clock and the AI answered at once. Reading the input: activity_reader.cpp,
// web_events.cpp, label_list.cpp; the report: report.cpp.
#include "antidrift/replay/replay.h"
#include "antidrift/replay/oracle.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "antidrift/ai/judge.h"
#include "antidrift/ai/nudge.h"
#include "antidrift/ai/redact.h"
#include "antidrift/drift/active_session.h"
#include "antidrift/drift/engine.h"
#include "antidrift/evidence/observation.h"

namespace antidrift::replay {

namespace {

/// The timeline's app when no window was seen yet (a reference, so that a recorded app is not
/// copied at every step: issue 16 item 5).
const std::string kNoApp;

/// One session: one commitment range, replayed through the engine.
class Session {
 public:
  /// `active` is cleared for this session (its engine keeps the verdict memory).
  Session(drift::ActiveSession& active, const ReplayOptions& options, const CommitmentRange& range,
          const std::vector<AwaySpan>& away, const std::vector<WindowWeb>& web,
          ReplayReport& report)
      : active_(active),
        engine_(active.engine),
        options_(options),
        range_(range),
        away_(away),
        web_(web),
        report_(report),
        heartbeatMs_(std::max<std::int64_t>(1, options.settings.heartbeatSecs) * 1000),
        staleAfterMs_(3 * heartbeatMs_),
        advisors_(!options.backend && !options.oracle ? drift::Advisors::None
                  : options.localJudge                ? drift::Advisors::LocalJudgeAndNudge
                                                      : drift::Advisors::JudgeAndNudge) {
    if (options.oracle) redactor_.emplace(options.settings.redactPatterns);
    active_.clear(options.settings, false, 0);
    commitment_.nextAction = range.nextAction;
    commitment_.successCondition = range.successCondition;
    for (const std::string& app : range.allowedApps) {
      commitment_.allowedApps.push_back(normalizeApp(app));
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
                                 normalizeApp(event.app)) != commitment_.allowedApps.end(),
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
  /// The recorded window admitted as the daemon admits one (drift::admitWindow), computed
  /// once per distinct app, title and joined site of the replay (a day revisits the same
  /// windows).
  const Observation& prepared(const WindowEvent& event, const WindowWeb& web) {
    std::string raw = event.app;
    raw += '\n';
    raw += event.title;
    raw += '\n';
    if (web.privateWindow) raw += '\x01';
    raw += web.domain;
    auto found = prepared_.find(raw);
    if (found == prepared_.end()) {
      Observation recorded{0, event.app, event.title, "replay", web.domain, web.privateWindow};
      found =
          prepared_.emplace(std::move(raw), drift::admitWindow(engine_.rules(), recorded)).first;
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
    active_.observe(*current_);
    evaluate(atMs);
  }

  void evaluate(std::int64_t atMs) {
    drift::Decision decision = active_.evaluate(current_ ? &*current_ : nullptr,
                                                evidenceOk_ ? std::string() : "evidence is stale",
                                                away(), commitment_, atMs, atMs, advisors_);
    apply(decision, atMs);
  }

  bool away() const { return inAway_; }

  /// The replay's AdvisorPort: the judge and the nudger answered at the very instant they are
  /// asked, by the oracle's labels or by a real backend, re-entering the door with the answer.
  class Answers final : public drift::AdvisorPort {
   public:
    Answers(Session& session, std::int64_t atMs) : session_(session), atMs_(atMs) {}
    void askJudge(drift::JudgeRequest request) override { session_.answerJudge(request, atMs_); }
    void askNudge(drift::NudgeRequest request) override { session_.answerNudge(request, atMs_); }

   private:
    Session& session_;
    std::int64_t atMs_;
  };

  /// The window in front's app for the timeline ("" before any window).
  const std::string& currentApp() const { return current_ ? current_->app : kNoApp; }

  /// Open drift credited at a step belongs to the episode open now.
  void creditEpisode(std::int64_t creditedMs) {
    if (creditedMs > 0 && !report_.episodes.empty()) {
      report_.episodes.back().durationMs += creditedMs;
    }
  }

  void answerJudge(const drift::JudgeRequest& request, std::int64_t atMs) {
    const std::int64_t timeoutMs = options_.settings.aiTimeoutSecs * 1000;
    if (options_.oracle) {
      // The request is about the window in front at its launch, and the replay answers at that
      // very instant: the key's subject is the raw event in front.
      ++report_.judgeCalls;
      active_.stats.addAiCall("judge");
      const WindowEvent none;
      const WindowEvent& subject = currentEvent_ ? *currentEvent_ : none;
      const ai::Verdict verdict = oracleVerdict(*options_.oracle, subject.app, subject.title);
      drift::Decision applied = active_.applyVerdict(request.key, verdict, {}, atMs);
      apply(applied, atMs);
    } else if (options_.backend) {
      ++report_.judgeCalls;
      active_.stats.addAiCall("judge");
      CallCost cost;
      ai::Expected<ai::Verdict> result =
          ai::judge(*options_.backend, request.input, timeoutMs, &cost);
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
      drift::Decision applied = active_.applyVerdict(request.key, verdict, failure, atMs);
      apply(applied, atMs);
    }
  }

  void answerNudge(const drift::NudgeRequest& request, std::int64_t atMs) {
    const std::int64_t timeoutMs = options_.settings.aiTimeoutSecs * 1000;
    std::optional<std::string> message;
    if (options_.oracle) {
      ++report_.nudgeCalls;
      active_.stats.addAiCall("nudge");
      std::vector<OracleWindow> recent;
      for (const std::string& title : request.input.recentTitles) {
        const auto found = shownAs_.find(title);
        if (found == shownAs_.end()) {
          recent.push_back(OracleWindow{{}, {}, title});  // matched to no window: unlabelled
        } else {
          recent.push_back(OracleWindow{found->second->app, found->second->title, title});
        }
      }
      message = oracleNudge(*options_.oracle, recent);
    } else if (options_.backend) {
      ++report_.nudgeCalls;
      active_.stats.addAiCall("nudge");
      CallCost cost;
      ai::Expected<std::string> result =
          ai::nudge(*options_.backend, request.input, timeoutMs, &cost);
      report_.aiCost.add(cost);
      if (result) message = result.value();
    }
    if (message) {
      const std::optional<std::int64_t> credited =
          active_.answerNudge(message, atMs, currentApp(), away());
      if (credited) creditEpisode(*credited);
    }
  }

  /// A decision applied through the one door (ActiveSession::step), as the Controller applies
  /// one, with the AI calls it asks for answered at once (Answers).
  void apply(drift::Decision& decision, std::int64_t atMs) {
    if (decision.driftMs > 0 && !report_.episodes.empty()) {
      report_.episodes.back().durationMs += decision.driftMs;
    }
    if (decision.episodeStarted) {
      report_.episodes.push_back(DriftEpisode{atMs, 0, engine_.view().app,
                                              current_ ? current_->title : std::string(),
                                              engine_.view().reason});
    }
    Answers answers(*this, atMs);
    creditEpisode(active_.step(decision, atMs, currentApp(), away(), answers));
    if (engine_.view().status == drift::DriftStatus::Drifting) visitDrifted_ = true;
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
          active_.setAway(true, clockMs_);
          evaluate(clockMs_);
          break;
        case What::AwayEnd:
          inAway_ = false;
          ++nextAway_;
          active_.setAway(false, clockMs_);
          evaluate(clockMs_);
          break;
        case What::None:
          break;
      }
    }
    clockMs_ = std::max(clockMs_, targetMs);
  }

  void finish(std::int64_t endMs) {
    const std::int64_t driftMs = active_.creditUntil(endMs);
    if (inAway_) active_.setAway(false, endMs);
    if (driftMs > 0 && !report_.episodes.empty()) report_.episodes.back().durationMs += driftMs;

    const SessionStats& stats = active_.stats.stats();
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
    report_.onTaskMs += active_.timeline.onTaskMs();
    for (const TimelineSpan& span : active_.timeline.spans()) {
      report_.trackedMs += span.endMs - span.startMs;
      if (options_.keepTimeline) report_.timeline.push_back(span);
    }
    ++report_.sessions;
  }

  drift::ActiveSession& active_;  ///< the steps the daemon takes (one per replay, cleared)
  drift::Engine& engine_;         ///< active_.engine
  const ReplayOptions& options_;
  const CommitmentRange& range_;
  const std::vector<AwaySpan>& away_;
  const std::vector<WindowWeb>& web_;  ///< per window event: its joined site (issue 16 item 4)
  ReplayReport& report_;
  Commitment commitment_;
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
  drift::ActiveSession active(options.settings);
  // The verdict memory as the daemon has it (issue 16 item 3), starting empty
  // so a replay stays deterministic: later commitment ranges reuse verdicts.
  drift::VerdictMemory memory(
      static_cast<std::size_t>(std::max<std::int64_t>(1, options.settings.driftMemoryMaxEntries)));
  if (options.settings.driftMemory) active.engine.setMemory(&memory);
  const std::vector<WindowWeb> web = joinWebEvents(activity, active.engine.rules());
  const std::vector<WindowEvent>& windows = activity.windows;
  std::size_t first = 0;
  for (const CommitmentRange& range : options.commitments) {
    while (first < windows.size() && windows[first].atMs < range.fromMs) ++first;
    std::size_t last = first;
    while (last < windows.size() && windows[last].atMs < range.toMs) ++last;
    if (last > first) {
      Session(active, options, range, activity.away, web, report).run(windows, first, last);
    }
    first = last;
  }
  return report;
}

}  // namespace antidrift::replay
