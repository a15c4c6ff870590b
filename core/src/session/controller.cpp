#include "antidrift/session/controller.h"

#include <algorithm>
#include <exception>
#include <utility>
#include <variant>

#include <Poco/Logger.h>

#include "antidrift/evidence/web_join.h"
#include "session/action_input.h"
#include "session/controller_parts.h"

namespace antidrift {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

}  // namespace

Controller::Controller(Settings settings, Clock& clock, Executor& executor,
                       SnapshotStore& snapshots, AuditSink& audit, std::string aiBackendName,
                       bool aiAvailable)
    : settings_(std::move(settings)),
      clock_(clock),
      executor_(executor),
      snapshots_(snapshots),
      audit_(audit),
      aiBackendName_(std::move(aiBackendName)),
      aiAvailable_(aiAvailable),
      aiDetail_(aiAvailable ? "" : "Not in use (ai.backend = " + aiBackendName_ + ")."),
      verdicts_(std::make_unique<Verdicts>(
          static_cast<std::size_t>(std::max<std::int64_t>(1, settings_.driftMemoryMaxEntries)))),
      v_(std::make_unique<Values>(settings_)),
      rules_(v_->session.engine.rules()) {
  if (settings_.driftMemory) v_->session.engine.setMemory(&verdicts_->memory());
}

Controller::~Controller() = default;

void Controller::setVerdictStore(VerdictStore* store) {
  std::lock_guard<ChangeLock> lock(changing_);
  verdicts_->connect(store);
}

std::vector<drift::RememberedEntry> Controller::verdicts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return verdicts_->memory().entries();
}

ActionResult Controller::forgetVerdicts(const std::optional<std::string>& key) {
  std::lock_guard<ChangeLock> lock(changing_);
  switch (verdicts_->forget(key)) {
    case session::VerdictFile::Forgot::NotFound:
      return ActionError{ErrorKind::NotFound, "no remembered verdict has that key", v_->runtime};
    case session::VerdictFile::Forgot::WriteFailed:
      return ActionError{ErrorKind::Storage,
                         "could not save the remembered verdicts (is the disk full?); nothing "
                         "changed, try again",
                         v_->runtime};
    case session::VerdictFile::Forgot::Done:
      break;
  }
  return std::nullopt;
}

void Controller::setChangeListener(ChangeListener listener) {
  std::lock_guard<ChangeLock> lock(changing_);
  listener_ = std::move(listener);
}

void Controller::setWakeHook(WakeHook hook) {
  std::lock_guard<ChangeLock> lock(changing_);
  wakeHook_ = std::move(hook);
}

void Controller::addAiCostLocked(const char* role, const CallCost& cost) {
  // A judge or nudge answer that arrives after its session ended is not counted.
  if (v_->runtime == RuntimeState::Active || v_->runtime == RuntimeState::Review) {
    v_->session.stats.addAiCall(role);
    v_->session.stats.addAiCost(cost);
  } else if (v_->runtime == RuntimeState::Planning) {
    planningCost_.add(cost);  // the coach: counted with the session it plans
  }
}

void Controller::setAiOrigin(AiOrigin origin) {
  std::lock_guard<ChangeLock> lock(changing_);
  aiOrigin_ = std::move(origin);
}

void Controller::setBackend(std::shared_ptr<Backend> backend, std::string unavailableReason) {
  std::lock_guard<ChangeLock> lock(changing_);
  backend_ = std::move(backend);
  aiAvailable_ = backend_ != nullptr;
  aiDetail_ = aiAvailable_ ? std::string() : std::move(unavailableReason);
  if (!aiAvailable_ && aiDetail_.empty()) {
    aiDetail_ = aiBackendName_ == "none"
                    ? "Switched off in the configuration (ai.backend = none)."
                    : "the AI backend \"" + aiBackendName_ + "\" is not loaded";
  }
}

void Controller::setNotifyView(NotifyView view) {
  std::lock_guard<ChangeLock> lock(changing_);
  notifyView_ = std::move(view);
}

std::int64_t Controller::sessionNowLocked() const {
  if (v_->runtime != RuntimeState::Active || !v_->session.commitment) return clock_.nowUtcMs();
  return v_->clock.now(clock_, v_->session.commitment->startedAtMs);
}

bool Controller::noteSuspendLocked() {
  if (v_->runtime != RuntimeState::Active) return false;
  const std::int64_t suspendedMs = v_->clock.suspendedMs(clock_);
  if (suspendedMs <= v_->session.stats.stats().suspendedMs) return false;
  logger().information(
      "the machine was suspended %s s during the session",
      std::to_string((suspendedMs - v_->session.stats.stats().suspendedMs) / 1000));
  v_->session.stats.setSuspendedMs(suspendedMs);
  return true;
}

bool Controller::auditHoldsLocked(const std::string& id) const {
  const std::vector<SessionSummary> last = audit_.recent(kEndCheckRecords);
  return std::any_of(last.begin(), last.end(),
                     [&id](const SessionSummary& summary) { return summary.id == id; });
}

ActionError Controller::illegalLocked(const std::string& action) const {
  return ActionError{ErrorKind::IllegalTransition,
                     "cannot " + action + " while " + std::string(toString(v_->runtime)),
                     v_->runtime};
}

// ---- Transitions ---------------------------------------------------------------------------

ActionResult Controller::enterPlanning() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Locked) return illegalLocked("enter planning");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  v_->runtime = RuntimeState::Planning;
  v_->planning.reset();
  gatherHistoryAppsLocked();
  loadPlanningLocked();
  return commitLocked(lock, std::move(before));
}

void Controller::gatherHistoryAppsLocked() {
  v_->planning.historyApps.clear();
  for (const SessionSummary& summary : history(kHistorySessionsForApps)) {
    for (const auto& bucket : summary.topBuckets) v_->planning.historyApps.push_back(bucket.first);
  }
}

ActionResult Controller::cancelPlanning() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Planning) return illegalLocked("cancel planning");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  v_->runtime = RuntimeState::Locked;
  v_->planning.reset();
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::startCommitment(const CommitmentRequest& raw) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Planning) return illegalLocked("start a commitment");
  auto made = session::commitmentFrom(raw, settings_.defaultAllowedApps, clock_.nowUtcMs());
  if (auto* problem = std::get_if<std::string>(&made)) {
    return ActionError{ErrorKind::Validation, *problem, v_->runtime};
  }
  Commitment& commitment = std::get<Commitment>(made);
  const std::int64_t now = commitment.startedAtMs;
  const std::int64_t timeboxMs = commitment.timeboxSecs * 1000;
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  resetSessionLocked();
  v_->planning.reset();
  // The coach's calls planned this session (issue 18 item 4), in the cost
  // and in the per-role list (issue 17 item 2 of the number walk).
  v_->session.stats.addAiCost(planningCost_);
  for (std::int64_t call = 0; call < planningCost_.calls; ++call) {
    v_->session.stats.addAiCall("coach");
  }
  planningCost_ = AiCost{};
  v_->planning.lastAllowedApps = commitment.allowedApps;
  v_->session.commitment = std::move(commitment);
  v_->clock = session::SessionClock::startNow(clock_, timeboxMs);
  // A running source reports every change the moment it happens and sends no
  // heartbeats outside a session (EvidenceSources::followSession): its last
  // window is the one in front now, however old the observation.
  if (v_->evidence.currentFromRunningSource())
    v_->evidence.lastObservationMono = clock_.monotonicMs();
  v_->runtime = RuntimeState::Active;
  if (v_->evidence.current && healthLocked() == Health::Ok) {
    Observation start = *v_->evidence.current;
    start.atMs = now;  // the window in front now is where the session starts
    v_->session.stats.observe(start);
  }
  evaluateDriftLocked();  // the window in front now is judged like any other
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::complete() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("complete");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  enterReviewLocked(Outcome::Completed);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::abandon() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("abandon");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  enterReviewLocked(Outcome::Abandoned);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::end() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Review) return illegalLocked("end");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  const SessionSummary summary = session::summaryOf(v_->session, v_->review);
  try {
    if (auditHoldsLocked(summary.id)) {
      // Appended before a crash or a failed snapshot write: exactly once by id.
      logger().warning("session %s is already in the audit log; not appended again", summary.id);
    } else {
      audit_.append(summary);
    }
  } catch (const std::exception& e) {
    logger().error("could not append to the audit log: %s", std::string(e.what()));
    return ActionError{ErrorKind::Storage,
                       "could not write the audit log; the session is kept in review, try again",
                       v_->runtime};
  }
  v_->review.keepCarryForward();
  resetSessionLocked();
  v_->runtime = RuntimeState::Locked;
  return commitLocked(lock, std::move(before));
}

// ---- Planning coach ------------------------------------------------------------------------

ActionResult Controller::requestCoach(const std::string& intent) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Planning) {
    return ActionError{ErrorKind::NotPlanning, "the coach only works while planning", v_->runtime};
  }
  if (auto problem = session::intentProblem(intent)) {
    return ActionError{ErrorKind::Validation, *problem, v_->runtime};
  }
  if (v_->planning.coach.status() == AsyncStatus::Pending) {
    return ActionError{ErrorKind::Busy, "the coach is still working on the last request",
                       v_->runtime};
  }
  const AsyncToken token = v_->planning.coach.begin();
  if (!backend_) {
    v_->planning.coach.fail(token, "coach unavailable");
    publish(lock, Persist::No);
    return std::nullopt;
  }
  launchCoachLocked(token, intent);
  publish(lock, Persist::No);
  return std::nullopt;
}

void Controller::enterReviewLocked(Outcome outcome) {
  noteSuspendLocked();
  const std::int64_t now = sessionNowLocked();  // still active: session time
  v_->session.creditUntil(std::min(now, v_->session.commitment->deadlineMs));
  v_->runtime = RuntimeState::Review;
  v_->session.outcome = outcome;
  // Start plus the time elapsed, suspends included, whatever the wall clock did.
  v_->session.endedAtMs = now + v_->session.stats.stats().suspendedMs;
  startReviewLocked();
}

ActionResult Controller::extend(std::int64_t minutes) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("extend the timebox");
  if (std::find(std::begin(kExtendMinutes), std::end(kExtendMinutes), minutes) ==
      std::end(kExtendMinutes)) {
    return ActionError{ErrorKind::Validation, "minutes must be 5 or 15", v_->runtime};
  }
  const std::int64_t addedSecs = minutes * 60;
  if (v_->session.commitment->timeboxSecs + v_->session.commitment->extendedSecs + addedSecs >
      kMaxTimeboxSecs) {
    return ActionError{ErrorKind::Validation, "a session cannot be longer than 12 h", v_->runtime};
  }
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  v_->session.commitment->extendedSecs += addedSecs;
  v_->session.commitment->deadlineMs += addedSecs * 1000;
  v_->clock.deadlineBoot += addedSecs * 1000;  // a suspend does not postpone it either
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::answerReview(const ReviewAnswer& raw) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Review) return illegalLocked("answer the review");
  auto answer = session::reviewAnswerFrom(raw);
  if (auto* problem = std::get_if<std::string>(&answer)) {
    return ActionError{ErrorKind::Validation, *problem, v_->runtime};
  }
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  v_->review.answer = std::move(std::get<ReviewAnswer>(answer));
  startReviewLocked();  // the Reviewer hears the answer too (latest wins)
  return commitLocked(lock, std::move(before));
}

void Controller::resetSessionLocked() {
  v_->session.clear(settings_, v_->evidence.away, clock_.nowUtcMs());
  v_->clock = session::SessionClock{};
  v_->review.clearSession();
}

// ---- Evidence ------------------------------------------------------------------------------

void Controller::recordWindow(Observation raw) {
  raw.source = raw.source.empty() ? std::string("unknown") : sanitizeTitle(raw.source);
  // The same entry steps as the replay (a private window's title and site
  // dropped), the drift.blocked_titles patterns with them: they run here,
  // before any lock is taken (issue 19 item 7, review L5).
  Observation obs = drift::admitWindow(rules_, raw);
  std::unique_lock<ChangeLock> lock(changing_);
  const std::int64_t wallNow = clock_.nowUtcMs();
  const std::int64_t now = sessionNowLocked();
  // A watcher's own timestamp is kept only when plausible: not in the future
  // and not older than three heartbeats (a late delivery); else receipt time.
  // It counts as that long before now on the session's clock (issue 9 item
  // 2), and never before Start: a heartbeat stamped earlier is not session time.
  obs.atMs = session::observedAtMs(raw.atMs, wallNow, now, settings_.heartbeatSecs);
  if (v_->runtime == RuntimeState::Active) {
    noteSuspendLocked();
    obs.atMs = std::max(obs.atMs, v_->session.commitment->startedAtMs);
  }

  const bool windowChanged = !v_->evidence.current || v_->evidence.current->app != obs.app ||
                             v_->evidence.current->title != obs.title ||
                             v_->evidence.current->domain != obs.domain;
  const Health before = healthLocked();
  const drift::DriftView driftBefore = v_->session.engine.view();
  v_->evidence.current = obs;
  v_->evidence.lastObservationMono = clock_.monotonicMs();
  if (obs.app != "unknown" && v_->evidence.offersApps(obs.source)) {  // issue 17 item 4
    v_->evidence.seeApp(obs.app, v_->evidence.lastObservationMono, kRecentAppsMs, kMaxSessionApps);
  }
  const bool active = v_->runtime == RuntimeState::Active;
  if (active) {
    v_->session.observe(obs);
    evaluateDriftLocked();
  }

  // Issue 8 item 2: only what the page shows is announced. A heartbeat of
  // the same window moves the stats and the timeline's end, which the page
  // shows on Review only, and "now", which it counts on by itself.
  const drift::DriftView& driftAfter = v_->session.engine.view();
  const bool driftChanged = session::driftViewChanged(driftBefore, driftAfter);
  const bool visible = windowChanged || before != Health::Ok || driftChanged;
  // While active, stats move: every change is persisted write-behind, and
  // heartbeats of the same window at most every kHeartbeatPersistMs.
  const bool persist = active && (windowChanged || driftChanged ||
                                  clock_.monotonicMs() - lastPersistMono_ >= kHeartbeatPersistMs);
  if (visible) {
    publish(lock, persist ? Persist::Later : Persist::No);
    return;
  }
  if (!persist || !persistLaterLocked()) return;
  // Nothing announced, so the ticker must hear of the write scheduled.
  WakeHook hook = wakeHook_;
  lock.unlock();
  if (hook) hook();
}

void Controller::setAway(bool away) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->evidence.away == away) return;
  v_->evidence.away = away;
  v_->session.setAway(away, sessionNowLocked());
  if (v_->runtime == RuntimeState::Active) evaluateDriftLocked();
  publish(lock, v_->runtime == RuntimeState::Active ? Persist::Yes : Persist::No);
}

void Controller::setSourceRunning(const std::string& source, bool running) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (!v_->evidence.setSourceRunning(source, running)) return;
  if (healthLocked() == v_->evidence.lastHealth) return;
  const bool persist = v_->runtime == RuntimeState::Active && evaluateDriftLocked();
  publish(lock, persist ? Persist::Yes : Persist::No);
}

// ---- Drift (docs/DESIGN.md §4, §5) ---------------------------------------------------------

bool Controller::evaluateDriftLocked() {
  const Health health = healthLocked();
  drift::Decision decision = v_->session.evaluate(
      v_->evidence.current ? &*v_->evidence.current : nullptr,
      health == Health::Ok && v_->evidence.current ? std::string()
                                                   : "evidence is " + std::string(toString(health)),
      v_->evidence.away, *v_->session.commitment, sessionNowLocked(), clock_.monotonicMs(),
      advisorsLocked());
  return applyDriftLocked(decision);
}

drift::Advisors Controller::advisorsLocked() const {
  if (!backend_) return drift::Advisors::None;
  // The backend's own word on where its prompts go now (a model server's
  // listener that has not passed the owner check says "unchecked"), else
  // what its plugin.json declares (docs/DESIGN.md §4 "Private windows").
  const std::string destination = backend_->destination();
  const bool local = destination.empty()
                         ? aiOrigin_.prompts == "local"
                         : destination == "local" || destination.rfind("local ", 0) == 0;
  return local ? drift::Advisors::LocalJudgeAndNudge : drift::Advisors::JudgeAndNudge;
}

bool Controller::applyDriftLocked(drift::Decision& decision) {
  if (v_->runtime != RuntimeState::Active) {
    // Outside a session the decision's stats are still recorded (the door
    // would also track a timeline that only a session has).
    drift::recordDecision(decision, v_->session.engine.view(), v_->session.stats);
    return decision.changed || decision.episodeStarted || decision.driftMs > 0;
  }
  v_->session.step(decision, sessionNowLocked(), currentAppLocked(), v_->evidence.away, advisors_);
  return decision.changed || decision.episodeStarted || decision.driftMs > 0;
}

const std::string& Controller::currentAppLocked() const {
  static const std::string kNoApp;
  return v_->evidence.current ? v_->evidence.current->app : kNoApp;
}

void Controller::Advisors::askJudge(drift::JudgeRequest request) {
  if (controller_.backend_) controller_.launchJudgeLocked(std::move(request));
}

void Controller::Advisors::askNudge(drift::NudgeRequest request) {
  if (controller_.backend_) controller_.launchNudgeLocked(std::move(request));
}

ActionResult Controller::refocus() {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("go back to the task");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  drift::Decision decision = v_->session.engine.refocus(sessionNowLocked());
  applyDriftLocked(decision);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::markOnTask(drift::OnTaskScope scope) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("mark this on task");
  if (std::optional<std::string> refusal = v_->session.engine.onTaskRefusal()) {
    return ActionError{ErrorKind::IllegalTransition, "cannot mark this on task: " + *refusal,
                       v_->runtime};
  }
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  drift::Engine& engine = v_->session.engine;
  if (scope == drift::OnTaskScope::Site && engine.subjectSite().empty() &&
      engine.view().status == drift::DriftStatus::Drifting) {
    return ActionError{ErrorKind::IllegalTransition,
                       "cannot mark the whole site on task: this window names no site",
                       v_->runtime};
  }
  drift::Decision decision;
  const std::optional<drift::OnTaskMark> mark =
      engine.markOnTask(*v_->session.commitment, sessionNowLocked(), decision, scope);
  if (!mark) {
    return ActionError{ErrorKind::IllegalTransition,
                       "nothing to mark on task: no window was judged off task", v_->runtime};
  }
  v_->session.stats.addCorrection();
  applyDriftLocked(decision);
  logger().information("marked on task: %s%s", mark->app,
                       !mark->site.empty()   ? " (all of " + mark->site + " this session)"
                       : mark->title.empty() ? std::string()
                                             : std::string(" (one page)"));
  return commitLocked(lock, std::move(before));  // the allowed lists are in the snapshot
}

ActionResult Controller::undoOnTask(const std::string& app, const std::string& mark, bool isSite) {
  std::unique_lock<ChangeLock> lock(changing_);
  if (v_->runtime != RuntimeState::Active) return illegalLocked("undo an on-task mark");
  Values before = *v_;  // the checkpoint: a copy (docs/DESIGN.md §9)
  if (!v_->session.engine.unmarkOnTask(*v_->session.commitment, app, mark, isSite)) {
    return ActionError{ErrorKind::NotFound,
                       std::string("no such ") + (isSite ? "site" : "page") + " was marked on task",
                       v_->runtime};
  }
  evaluateDriftLocked();  // the window in front is judged afresh (issue 17 item 4)
  logger().information("undid an on-task mark: %s (%s)", app,
                       std::string(isSite ? "site" : "page"));
  return commitLocked(lock, std::move(before));
}

// ---- Time ----------------------------------------------------------------------------------

void Controller::tick() {
  std::unique_lock<ChangeLock> lock(changing_);
  const std::optional<Persist> due = applyDueLocked();
  std::optional<SnapshotWrite> behind;
  if (due != Persist::Yes && persistDueMono_ && clock_.monotonicMs() >= *persistDueMono_) {
    behind = persistLocked();  // the write-behind of evidence announced earlier
  }
  if (verdicts_->dueMono() && clock_.monotonicMs() >= *verdicts_->dueMono()) {
    verdicts_->saveIfUnsaved();  // the write-behind of the verdict memory (issue 16 item 3)
  }
  std::optional<Change> change;
  if (due) change = changedLocked(*due);
  lock.unlock();
  if (behind) writeLogged(*behind);
  if (change) deliver(*change);
}

std::optional<Controller::Persist> Controller::applyDueLocked() {
  bool changed = false;
  bool persist = false;
  if (noteSuspendLocked()) changed = persist = true;  // the gap is recorded at once
  // The deadline is on the boot clock: one that passed during a suspend expires now.
  if (v_->runtime == RuntimeState::Active && v_->clock.expired(clock_)) {
    enterReviewLocked(Outcome::Expired);
    changed = persist = true;
  }
  if (healthLocked() != v_->evidence.lastHealth) {
    changed = true;
    if (v_->runtime == RuntimeState::Active) persist = evaluateDriftLocked() || persist;
  }
  if (v_->runtime == RuntimeState::Active) {
    const std::optional<std::int64_t> due = v_->session.engine.nextDueMono();
    if (due && clock_.monotonicMs() >= *due) {
      drift::Decision decision =
          v_->session.engine.due(*v_->session.commitment, clock_.monotonicMs());
      changed = applyDriftLocked(decision) || changed;
    }
  }
  if (giveUpReviewerLocked()) changed = persist = true;
  if (!changed) return std::nullopt;
  return persist ? Persist::Yes : Persist::No;
}

bool Controller::giveUpReviewerLocked() {
  if (v_->review.reviewer.status() != AsyncStatus::Pending ||
      clock_.monotonicMs() < v_->review.giveUpMono) {
    return false;
  }
  logger().warning("reviewer: no answer within ai.timeout_s; no reflection this time");
  if (!v_->review.reviewer.fail(v_->review.reviewerToken, "the reviewer did not answer in time")) {
    return false;
  }
  v_->review.applyReviewer(v_->runtime == RuntimeState::Review);
  return true;
}

}  // namespace antidrift
