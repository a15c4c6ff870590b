// The Controller's reading path (issue 15 item 2: one file per path of the
// Controller): the State built from the values under the lock, step by step
// (the session, the drift banner, the review, the AI, planning), the next
// wake time, and the history read from the audit log without the lock.
#include "antidrift/session/controller.h"

#include <algorithm>
#include <exception>

#include <Poco/Logger.h>
#include <Poco/Timezone.h>

#include "session/controller_parts.h"

namespace antidrift {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

/// The drift banner of an active session (docs/DESIGN.md §4): the engine's
/// view, with the site a "mark the site" would cover while it drifts, and the
/// remembered verdict that decided, for the page's Forget (issue 17, re-walk A).
DriftView driftViewOf(const drift::Engine& engine) {
  const drift::DriftView& view = engine.view();
  return DriftView{view.status,
                   view.reason,
                   view.nudge,
                   view.app,
                   view.blocked,
                   view.judgeAtMs,
                   view.status == drift::DriftStatus::Drifting && !view.blocked
                       ? engine.subjectSite()
                       : std::string(),
                   view.memoryKey};
}

/// The earlier of `next` and `at`.
void wakeNoLaterThan(std::optional<std::int64_t>& next, std::int64_t at) {
  next = next ? std::min(*next, at) : at;
}

}  // namespace

State Controller::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  State state = stateLocked();
  state.nextWakeMonotonicMs = nextWakeLocked();
  return state;
}

RuntimeState Controller::runtime() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return v_->runtime;
}

std::vector<TimelineSpan> Controller::timeline() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return v_->session.timeline.spans();
}

State Controller::stateLocked() const {
  State state;
  state.version = version_;
  state.nowMs = clock_.nowUtcMs();
  state.runtime = v_->runtime;
  showSessionLocked(state);
  showEvidenceLocked(state);
  state.reflection = v_->review.reflection;
  state.review = v_->review.answer;
  state.lastCarryForward = v_->review.lastCarryForward;
  state.ai = AiView{
      aiBackendName_, aiAvailable_, aiDetail_, aiOrigin_,
      v_->runtime == RuntimeState::Planning ? planningCost_ : v_->session.stats.stats().aiCost};
  state.notify = notifyView_;
  state.pageTag = settings_.ownPageTag;
  if (v_->runtime == RuntimeState::Planning) showPlanningLocked(state);
  return state;
}

void Controller::showSessionLocked(State& state) const {
  const session::Session& session = v_->session;
  state.commitment = session.commitment;
  state.outcome = session.outcome;
  state.endedAtMs = session.endedAtMs;
  state.stats = session.stats.stats();
  state.appSplit = session.timeline.split();
  if (v_->runtime == RuntimeState::Active) {
    const std::int64_t remainingMs = v_->clock.remainingMs(clock_);
    state.remainingSecs = (remainingMs + 999) / 1000;
    state.drift = driftViewOf(session.engine);
  }
  if (v_->runtime == RuntimeState::Review) {
    state.timeline = session.timeline.spans();
    if (session.focus.state().complete) {  // issue 17 item 5
      state.focus = FocusView{session.focus.topSites(kMaxSummarySites), session.focus.longest()};
    }
  }
}

void Controller::showEvidenceLocked(State& state) const {
  state.evidence.health = healthLocked();
  state.evidence.source = v_->evidence.current ? v_->evidence.current->source : "";
  state.evidence.current = v_->evidence.current;
  state.evidence.away = v_->evidence.away;
}

void Controller::showPlanningLocked(State& state) const {
  state.defaultAllowedApps = session::normalizeApps(settings_.defaultAllowedApps);
  state.appChoices = v_->evidence.appChoices(clock_.monotonicMs(), kRecentAppsMs,
                                             v_->planning.historyApps, kMaxAppChoices);
  v_->planning.show(state);
}

Health Controller::healthLocked() const {
  return v_->evidence.health(clock_.monotonicMs(), v_->runtime == RuntimeState::Active,
                             3 * settings_.heartbeatSecs * 1000);
}

std::optional<std::int64_t> Controller::nextWakeMonotonicMs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nextWakeLocked();
}

std::optional<std::int64_t> Controller::nextWakeLocked() const {
  std::optional<std::int64_t> next;
  if (v_->runtime == RuntimeState::Active) {
    next = v_->clock.deadlineMono(clock_);
    if (const std::optional<std::int64_t> due = v_->session.engine.nextDueMono()) {
      wakeNoLaterThan(next, *due);
    }
  }
  if (v_->review.reviewer.status() == AsyncStatus::Pending) {
    wakeNoLaterThan(next, v_->review.giveUpMono);
  }
  if (persistDueMono_) wakeNoLaterThan(next, *persistDueMono_);
  if (const auto& due = verdicts_->dueMono()) wakeNoLaterThan(next, *due);
  const bool goesStale =
      v_->runtime == RuntimeState::Active || !v_->evidence.currentFromRunningSource();
  if (v_->evidence.lastHealth == Health::Ok && v_->evidence.lastObservationMono >= 0 && goesStale) {
    wakeNoLaterThan(next, v_->evidence.lastObservationMono + 3 * settings_.heartbeatSecs * 1000);
  }
  return next;
}

Controller::HistoryData Controller::historyView(std::size_t n) const {
  std::vector<SessionSummary> recent = history(std::max(n, kHistoryScanSessions));
  HistoryData data;
  data.days = historyDays(recent, clock_.nowUtcMs(), Poco::Timezone::tzd());
  if (recent.size() > n) recent.resize(n);
  data.sessions = std::move(recent);
  return data;
}

std::vector<SessionSummary> Controller::history(std::size_t n) const {
  try {
    return audit_.recent(n);
  } catch (const std::exception& e) {
    logger().error("could not read the audit log: %s", std::string(e.what()));
    return {};
  }
}

}  // namespace antidrift
