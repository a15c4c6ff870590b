#include "antidrift/session/controller.h"

#include <algorithm>
#include <exception>

#include <Poco/Logger.h>
#include <Poco/String.h>
#include <Poco/Timezone.h>
#include <Poco/UUIDGenerator.h>

#include "antidrift/evidence/web_join.h"

namespace antidrift {
namespace {

Poco::Logger& logger() {
  return Poco::Logger::get("antidrift.session");
}

constexpr std::size_t kMaxIntentChars = 2000;

// True when `intent` has more than kMaxIntentChars characters.
bool validateIntentLength(const std::string& intent) {
  std::size_t chars = 0;
  for (unsigned char c : intent) chars += (c & 0xC0) != 0x80;  // count UTF-8 lead bytes
  return chars > kMaxIntentChars;
}

// A SessionSummary as the reviewer's plain facts.
ai::SessionFacts factsOf(const SessionSummary& summary) {
  ai::SessionFacts facts;
  facts.nextAction = summary.nextAction;
  facts.successCondition = summary.successCondition;
  facts.outcome = toString(summary.outcome);
  facts.plannedSecs =
      summary.shape == SummaryShape::Detailed ? summary.plannedSecs : summary.timeboxSecs;
  facts.actualSecs = std::max<std::int64_t>(0, (summary.endedAtMs - summary.startedAtMs) / 1000);
  facts.onTaskSecs = summary.onTaskSecs;
  facts.driftSecs = summary.driftSecs;
  facts.switches = summary.switches;
  facts.driftEpisodes = summary.driftEpisodes;
  facts.corrections = summary.corrections;
  facts.topBuckets = summary.topBuckets;
  facts.driftReasons = summary.driftReasons;
  facts.success = summary.success;
  facts.note = summary.note;
  return facts;
}

std::vector<std::string> normaliseApps(const std::vector<std::string>& apps) {
  std::vector<std::string> out;
  for (const auto& raw : apps) {
    // A blank entry would become "unknown" and make class-less windows on task.
    if (Poco::trim(sanitizeTitle(raw)).empty()) continue;
    const std::string app = normaliseApp(raw);
    if (std::find(out.begin(), out.end(), app) == out.end()) out.push_back(app);
  }
  return out;
}

}  // namespace

struct Controller::Checkpoint {
  RuntimeState runtime;
  std::optional<Commitment> commitment;
  std::int64_t deadlineBoot;
  std::int64_t sessionMonoStart;
  std::int64_t suspendBase;
  Outcome outcome;
  std::int64_t endedAtMs;
  StatsAccumulator stats;
  Timeline timeline;
  ReflectionRecord reflection;
  ReviewAnswer reviewAnswer;
  std::string lastCarryForward;
  std::vector<std::string> lastAllowedApps;
  std::vector<std::string> historyApps;
  drift::Engine drift;
  AsyncSlot<ai::Proposal> coach;
  AsyncSlot<planning::TaskList> tasks;
  AsyncSlot<planning::Profile> profile;
  AsyncSlot<ai::Reflection> reviewer;
  AsyncToken reviewerToken;
  std::int64_t reviewerGiveUpMono;
};

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
      aiDetail_(aiAvailable ? "" : "AI is off (ai.backend = " + aiBackendName_ + ")"),
      stats_(settings_.idleAfterSecs * 1000),
      memory_(static_cast<std::size_t>(std::max<std::int64_t>(1, settings_.driftMemoryMaxEntries))),
      drift_(settings_) {
  if (settings_.driftMemory) drift_.setMemory(&memory_);
}

void Controller::setVerdictStore(VerdictStore* store) {
  std::lock_guard<std::mutex> lock(mutex_);
  verdictStore_ = store;
  if (store == nullptr) return;
  const auto setAside = [store](const std::string& why) {
    try {
      const std::string where = store->setAside(why);
      logger().warning("the remembered verdicts are unusable (%s); moved to %s, starting afresh",
                       why, where);
    } catch (const std::exception& e) {
      logger().error("the remembered verdicts are unusable (%s) and could not be moved aside: %s",
                     why, std::string(e.what()));
    }
  };
  std::optional<std::string> text;
  try {
    text = store->load();
  } catch (const std::exception& e) {
    setAside(e.what());
  }
  if (text) {
    try {
      drift::VerdictMemory::Parsed parsed =
          drift::VerdictMemory::parse(*text, memory_.maxEntries());
      memory_ = std::move(parsed.memory);
      if (parsed.skippedLines > 0) {
        logger().warning("skipped %s unreadable lines of the remembered verdicts",
                         std::to_string(parsed.skippedLines));
      }
    } catch (const std::exception& e) {
      setAside(e.what());
    }
  }
  savedMemoryVersion_ = memory_.version();
}

std::vector<drift::RememberedEntry> Controller::verdicts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return memory_.entries();
}

ActionResult Controller::forgetVerdicts(const std::optional<std::string>& key) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::string before = memory_.serialise();
  if (key) {
    if (!memory_.erase(*key)) {
      return ActionError{ErrorKind::NotFound, "no remembered verdict has that key", runtime_};
    }
  } else {
    memory_.clear();
  }
  if (verdictStore_ != nullptr) {
    try {
      verdictStore_->save(memory_.serialise());
      savedMemoryVersion_ = memory_.version();
    } catch (const std::exception& e) {
      logger().error("could not write the remembered verdicts; nothing forgotten: %s",
                     std::string(e.what()));
      memory_ = std::move(drift::VerdictMemory::parse(before, memory_.maxEntries()).memory);
      return ActionError{ErrorKind::Storage,
                         "could not save the remembered verdicts (is the disk full?); nothing "
                         "changed, try again",
                         runtime_};
    }
  }
  logger().information(key ? "forgot one remembered verdict" : "forgot every remembered verdict");
  return std::nullopt;
}

void Controller::setChangeListener(ChangeListener listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  listener_ = std::move(listener);
}

void Controller::setWakeHook(WakeHook hook) {
  std::lock_guard<std::mutex> lock(mutex_);
  wakeHook_ = std::move(hook);
}

void Controller::addAiCostLocked(const CallCost& cost) {
  // A judge or nudge result that arrives after its session ended is not counted.
  if (runtime_ == RuntimeState::Active || runtime_ == RuntimeState::Review) {
    stats_.addAiCost(cost);
  } else if (runtime_ == RuntimeState::Planning) {
    planningCost_.add(cost);  // the coach: counted with the session it plans
  }
}

void Controller::setAiOrigin(AiOrigin origin) {
  std::lock_guard<std::mutex> lock(mutex_);
  aiOrigin_ = std::move(origin);
}

void Controller::setBackend(std::shared_ptr<Backend> backend, std::string unavailableReason) {
  std::lock_guard<std::mutex> lock(mutex_);
  backend_ = std::move(backend);
  aiAvailable_ = backend_ != nullptr;
  aiDetail_ = aiAvailable_ ? std::string() : std::move(unavailableReason);
  if (!aiAvailable_ && aiDetail_.empty()) {
    aiDetail_ = aiBackendName_ == "none"
                    ? "AI is off (ai.backend = none): planning and drift rules work without it"
                    : "the AI backend \"" + aiBackendName_ + "\" is not loaded";
  }
}

void Controller::setNotifyView(NotifyView view) {
  std::lock_guard<std::mutex> lock(mutex_);
  notifyView_ = std::move(view);
}

std::int64_t Controller::sessionNowLocked() const {
  if (runtime_ != RuntimeState::Active || !commitment_) return clock_.nowUtcMs();
  return commitment_->startedAtMs +
         std::max<std::int64_t>(0, clock_.monotonicMs() - sessionMonoStart_);
}

bool Controller::noteSuspendLocked() {
  if (runtime_ != RuntimeState::Active) return false;
  const std::int64_t suspendedMs =
      std::max<std::int64_t>(0, clock_.bootMs() - clock_.monotonicMs() - suspendBase_);
  if (suspendedMs <= stats_.stats().suspendedMs) return false;
  logger().information("the machine was suspended %s s during the session",
                       std::to_string((suspendedMs - stats_.stats().suspendedMs) / 1000));
  stats_.setSuspendedMs(suspendedMs);
  return true;
}

void Controller::notifyListener(const State& state) const {
  ChangeListener listener;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listener = listener_;
  }
  if (listener) listener(state);
}

// ---- Persistence and notification -------------------------------------------------------

Snapshot Controller::snapshotLocked() const {
  Snapshot snapshot;
  snapshot.runtime = runtime_;
  snapshot.commitment = commitment_;
  snapshot.outcome = outcome_;
  snapshot.endedAtMs = endedAtMs_;
  snapshot.stats = stats_.stats();
  snapshot.timeline = timeline_.spans();
  snapshot.timelineSplit = timeline_.split();
  snapshot.reflection = reflection_;
  snapshot.review = reviewAnswer_;
  snapshot.lastCarryForward = lastCarryForward_;
  snapshot.lastAllowedApps = lastAllowedApps_;
  snapshot.savedAtMs = clock_.nowUtcMs();
  return snapshot;
}

void Controller::persistLocked() {
  lastPersistMono_ = clock_.monotonicMs();
  persistDueMono_.reset();  // this write carries every deferred change too
  try {
    snapshots_.save(snapshotLocked());
  } catch (const std::exception& e) {
    // The session stays in memory; the next change tries again.
    logger().error("could not write the snapshot: %s", std::string(e.what()));
  }
}

bool Controller::verdictsUnsavedLocked() const {
  return verdictStore_ != nullptr && memory_.version() != savedMemoryVersion_;
}

void Controller::saveVerdictsLocked() {
  verdictsDueMono_.reset();
  if (!verdictsUnsavedLocked()) return;
  try {
    verdictStore_->save(memory_.serialise());
    savedMemoryVersion_ = memory_.version();
  } catch (const std::exception& e) {
    // Kept in memory; the next write tries again.
    logger().error("could not write the remembered verdicts: %s", std::string(e.what()));
  }
}

bool Controller::persistLaterLocked() {
  if (persistDueMono_) return false;  // coalesced into the write already pending
  persistDueMono_ = clock_.monotonicMs() + kWriteBehindMs;
  return true;
}

void Controller::flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (persistDueMono_) persistLocked();
  saveVerdictsLocked();
}

void Controller::flushForShutdown() {
  std::lock_guard<std::mutex> lock(mutex_);
  saveVerdictsLocked();  // the verdict memory's pending write (issue 16 item 3)
  if (runtime_ != RuntimeState::Active || !commitment_) {
    if (persistDueMono_) persistLocked();
    return;
  }
  noteSuspendLocked();
  const std::int64_t stoppedAt = std::min(sessionNowLocked(), commitment_->deadlineMs);
  stats_.settle(stoppedAt);
  timeline_.extendTo(stoppedAt);
  stats_.addDriftMs(drift_.close(stoppedAt));
  persistLocked();
}

State Controller::changedLocked(Persist persist) {
  ++version_;
  if (persist == Persist::Yes) persistLocked();
  if (persist == Persist::Later) persistLaterLocked();
  // The verdict memory changed (issue 16 item 3): written behind, coalesced.
  if (verdictsUnsavedLocked() && !verdictsDueMono_) {
    verdictsDueMono_ = clock_.monotonicMs() + kWriteBehindMs;
  }
  State state = stateLocked();
  lastHealth_ = state.evidence.health;
  return state;
}

void Controller::publish(std::unique_lock<std::mutex>& lock, Persist persist) {
  State state = changedLocked(persist);
  lock.unlock();
  notifyListener(state);
}

Controller::Checkpoint Controller::checkpointLocked() const {
  return Checkpoint{runtime_,
                    commitment_,
                    deadlineBoot_,
                    sessionMonoStart_,
                    suspendBase_,
                    outcome_,
                    endedAtMs_,
                    stats_,
                    timeline_,
                    reflection_,
                    reviewAnswer_,
                    lastCarryForward_,
                    lastAllowedApps_,
                    historyApps_,
                    drift_,
                    coach_,
                    tasks_,
                    profile_,
                    reviewer_,
                    reviewerToken_,
                    reviewerGiveUpMono_};
}

void Controller::rollbackLocked(Checkpoint&& checkpoint) {
  runtime_ = checkpoint.runtime;
  commitment_ = std::move(checkpoint.commitment);
  deadlineBoot_ = checkpoint.deadlineBoot;
  sessionMonoStart_ = checkpoint.sessionMonoStart;
  suspendBase_ = checkpoint.suspendBase;
  outcome_ = checkpoint.outcome;
  endedAtMs_ = checkpoint.endedAtMs;
  stats_ = std::move(checkpoint.stats);
  timeline_ = std::move(checkpoint.timeline);
  reflection_ = std::move(checkpoint.reflection);
  reviewAnswer_ = std::move(checkpoint.reviewAnswer);
  lastCarryForward_ = std::move(checkpoint.lastCarryForward);
  lastAllowedApps_ = std::move(checkpoint.lastAllowedApps);
  historyApps_ = std::move(checkpoint.historyApps);
  // Epochs set back to older generations: whatever the action launched never
  // matches again (generations are never reused, async_slot.h).
  drift_ = std::move(checkpoint.drift);
  coach_ = std::move(checkpoint.coach);
  tasks_ = std::move(checkpoint.tasks);
  profile_ = std::move(checkpoint.profile);
  reviewer_ = std::move(checkpoint.reviewer);
  reviewerToken_ = checkpoint.reviewerToken;
  reviewerGiveUpMono_ = checkpoint.reviewerGiveUpMono;
}

ActionResult Controller::commitLocked(std::unique_lock<std::mutex>& lock, Checkpoint&& before) {
  lastPersistMono_ = clock_.monotonicMs();
  try {
    snapshots_.save(snapshotLocked());
  } catch (const std::exception& e) {
    logger().error("could not write the snapshot; the action is undone: %s", std::string(e.what()));
    rollbackLocked(std::move(before));
    return ActionError{ErrorKind::Storage,
                       "could not save the session (is the disk full?); nothing changed, try again",
                       runtime_};
  }
  persistDueMono_.reset();  // this write carries every deferred change too
  publish(lock, Persist::No);
  return std::nullopt;
}

bool Controller::auditHoldsLocked(const std::string& id) const {
  const std::vector<SessionSummary> last = audit_.recent(kEndCheckRecords);
  return std::any_of(last.begin(), last.end(),
                     [&id](const SessionSummary& summary) { return summary.id == id; });
}

ActionError Controller::illegalLocked(const std::string& action) const {
  return ActionError{ErrorKind::IllegalTransition,
                     "cannot " + action + " while " + toString(runtime_), runtime_};
}

// ---- Restore -------------------------------------------------------------------------------

std::string Controller::restore() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::optional<Snapshot> snapshot = snapshots_.load();  // throws if unreadable
  if (!snapshot) {
    return "no snapshot found; starting locked";
  }
  runtime_ = snapshot->runtime;
  commitment_ = snapshot->commitment;
  outcome_ = snapshot->outcome;
  endedAtMs_ = snapshot->endedAtMs;
  stats_.resume(snapshot->stats);
  timeline_.restore(snapshot->timeline, snapshot->timelineSplit);
  reflection_ = snapshot->reflection;
  reviewAnswer_ = snapshot->review;
  lastCarryForward_ = snapshot->lastCarryForward;
  lastAllowedApps_ = snapshot->lastAllowedApps;
  drift_
      .reset();  // DESIGN §9: the session cache and nudges are not restored; memory_ is (issue 16)
  if ((runtime_ == RuntimeState::Active || runtime_ == RuntimeState::Review) && !commitment_) {
    logger().warning("snapshot in %s without a commitment; starting locked", toString(runtime_));
    resetSessionLocked();
    runtime_ = RuntimeState::Locked;
  }

  std::string what = "restored " + toString(runtime_);
  if (runtime_ == RuntimeState::Review) {
    try {
      if (auditHoldsLocked(commitment_->id)) {
        // Killed between the audit append and the snapshot write: it has ended.
        if (!reflection_.carryForward.empty()) lastCarryForward_ = reflection_.carryForward;
        resetSessionLocked();
        runtime_ = RuntimeState::Locked;
        what =
            "the session in review was already in the audit log (it ended before a crash); "
            "starting locked";
      }
    } catch (const std::exception& e) {
      logger().error("could not read the audit log; the session stays in review: %s",
                     std::string(e.what()));
    }
  }
  if (runtime_ == RuntimeState::Review && reflection_.status == "pending") {
    startReviewLocked();  // the call was lost with the old process; ask again
  }
  if (runtime_ == RuntimeState::Active) {
    const std::int64_t wallNow = clock_.nowUtcMs();
    // Never more than the session's own length, even if the wall clock went
    // back or the start lies ahead: a restored session always expires
    // (issue 19 item 6, review L6).
    const std::int64_t remainingMs =
        std::min(commitment_->deadlineMs - wallNow,
                 (commitment_->timeboxSecs + commitment_->extendedSecs) * 1000);
    // Monotonic time does not survive a restart: the session's clock picks
    // up from the wall clock (the time down is not credited: stats resume).
    sessionMonoStart_ =
        clock_.monotonicMs() - std::max<std::int64_t>(0, wallNow - commitment_->startedAtMs);
    suspendBase_ = clock_.bootMs() - clock_.monotonicMs() - stats_.stats().suspendedMs;
    if (remainingMs <= 0) {
      enterReviewLocked(Outcome::Expired);
      endedAtMs_ = commitment_->deadlineMs;  // it ended at its deadline, while we were down
      what =
          "the active session's deadline passed while the daemon was down; it expired into review";
    } else {
      deadlineBoot_ = clock_.bootMs() + remainingMs;
      evaluateDriftLocked();  // unknown until the next observation (evidence not ok yet)
      what = "resumed the active session with " + std::to_string(remainingMs / 1000) + " s left";
    }
  }
  publish(lock, Persist::Yes);
  return what;
}

// ---- Transitions ---------------------------------------------------------------------------

ActionResult Controller::enterPlanning() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Locked) return illegalLocked("enter planning");
  Checkpoint before = checkpointLocked();
  runtime_ = RuntimeState::Planning;
  resetPlanningLocked();
  historyApps_.clear();
  for (const SessionSummary& summary : history(kHistorySessionsForApps)) {
    for (const auto& bucket : summary.topBuckets) historyApps_.push_back(bucket.first);
  }
  const AsyncToken tasksToken = tasks_.begin();
  const AsyncToken profileToken = profile_.begin();
  const std::string todoPath = settings_.todoTxtPath;
  const std::string profilePath = settings_.profilePath;
  const auto applied = [this] { return changedLocked(Persist::No); };
  const auto notify = [this](const State& state) { notifyListener(state); };
  launchGuarded(
      mutex_, executor_, tasks_, tasksToken, [todoPath] { return planning::loadTodoTxt(todoPath); },
      applied, notify);
  launchGuarded(
      mutex_, executor_, profile_, profileToken,
      [profilePath] { return planning::loadProfile(profilePath); }, applied, notify);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::cancelPlanning() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Planning) return illegalLocked("cancel planning");
  Checkpoint before = checkpointLocked();
  runtime_ = RuntimeState::Locked;
  resetPlanningLocked();
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::startCommitment(const CommitmentRequest& raw) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Planning) return illegalLocked("start a commitment");
  // Text fields are one line of plain text: invalid UTF-8 replaced, control
  // characters (newlines, ESC, NUL) dropped, surrounding blanks trimmed —
  // before validation, so the limits apply to what is stored.
  CommitmentRequest request = raw;
  const auto clean = [](const std::string& text) {
    return Poco::trim(sanitizeText(text, text.size() * 3 + 3));
  };
  request.nextAction = clean(raw.nextAction);
  request.successCondition = clean(raw.successCondition);
  if (auto problem = validateCommitment(request)) {
    return ActionError{ErrorKind::Validation, *problem, runtime_};
  }
  const std::int64_t now = clock_.nowUtcMs();
  const std::int64_t timeboxSecs = requestedTimeboxSecs(request);
  Commitment commitment;
  commitment.id = Poco::UUIDGenerator::defaultGenerator().createRandom().toString();
  commitment.nextAction = request.nextAction;
  commitment.successCondition = request.successCondition;
  commitment.timeboxSecs = timeboxSecs;
  commitment.startedAtMs = now;
  commitment.deadlineMs = now + timeboxSecs * 1000;
  commitment.allowedApps =
      normaliseApps(request.allowedApps ? *request.allowedApps : settings_.defaultAllowedApps);

  Checkpoint before = checkpointLocked();
  resetSessionLocked();
  resetPlanningLocked();
  stats_.addAiCost(planningCost_);  // the coach's calls planned this session (issue 18 item 4)
  planningCost_ = AiCost{};
  lastAllowedApps_ = commitment.allowedApps;
  commitment_ = std::move(commitment);
  deadlineBoot_ = clock_.bootMs() + timeboxSecs * 1000;
  sessionMonoStart_ = clock_.monotonicMs();
  suspendBase_ = clock_.bootMs() - clock_.monotonicMs();
  // A running source reports every change the moment it happens and sends no
  // heartbeats outside a session (EvidenceSources::followSession): its last
  // window is the one in front now, however old the observation.
  if (currentFromRunningSourceLocked()) lastObservationMono_ = clock_.monotonicMs();
  runtime_ = RuntimeState::Active;
  if (current_ && healthLocked() == Health::Ok) {
    Observation start = *current_;
    start.atMs = now;  // the window in front now is where the session starts
    stats_.observe(start);
  }
  evaluateDriftLocked();  // the window in front now is judged like any other
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::complete() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Active) return illegalLocked("complete");
  Checkpoint before = checkpointLocked();
  enterReviewLocked(Outcome::Completed);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::abandon() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Active) return illegalLocked("abandon");
  Checkpoint before = checkpointLocked();
  enterReviewLocked(Outcome::Abandoned);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::end() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Review) return illegalLocked("end");
  Checkpoint before = checkpointLocked();
  const SessionSummary summary = summaryLocked();
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
                       runtime_};
  }
  if (!reflection_.carryForward.empty()) lastCarryForward_ = reflection_.carryForward;
  resetSessionLocked();
  runtime_ = RuntimeState::Locked;
  return commitLocked(lock, std::move(before));
}

SessionSummary Controller::summaryLocked() const {
  const SessionStats& stats = stats_.stats();
  SessionSummary summary;
  summary.id = commitment_->id;
  summary.startedAtMs = commitment_->startedAtMs;
  summary.endedAtMs = endedAtMs_;
  summary.nextAction = commitment_->nextAction;
  summary.successCondition = commitment_->successCondition;
  summary.timeboxSecs = commitment_->timeboxSecs;
  summary.outcome = outcome_;
  summary.switches = stats.switches;
  summary.topBuckets = stats.topBucketsSecs(5);
  summary.driftEpisodes = stats.driftEpisodes;
  summary.shape = SummaryShape::Detailed;
  summary.plannedSecs = commitment_->timeboxSecs + commitment_->extendedSecs;
  summary.extendedSecs = commitment_->extendedSecs;
  summary.driftSecs = stats.driftMs / 1000;
  summary.awaySecs = stats.awayMs / 1000;
  summary.onTaskSecs = timeline_.onTaskMs() / 1000;
  summary.corrections = stats.corrections;
  summary.aiCost = stats.aiCost;  // issue 18 item 4
  summary.driftReasons = stats.driftReasons;
  summary.success = reviewAnswer_.success;
  summary.note = reviewAnswer_.note;
  if (!reflection_.recap.empty()) {  // ready, or an earlier recap while a re-run is pending
    summary.recap = reflection_.recap;
    summary.carryForward = reflection_.carryForward;
  }
  summary.timeline = timeline_.spans();
  return capSummary(std::move(summary));
}

void Controller::resetPlanningLocked() {
  coach_.reset();
  tasks_.reset();
  profile_.reset();
}

// ---- Planning coach ------------------------------------------------------------------------

ActionResult Controller::requestCoach(const std::string& intent) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Planning) {
    return ActionError{ErrorKind::NotPlanning, "the coach only works while planning", runtime_};
  }
  if (Poco::trim(intent).empty()) {
    return ActionError{ErrorKind::Validation, "intent must not be empty", runtime_};
  }
  if (validateIntentLength(intent)) {
    return ActionError{ErrorKind::Validation,
                       "intent is longer than " + std::to_string(kMaxIntentChars) + " characters",
                       runtime_};
  }
  if (coach_.status() == AsyncStatus::Pending) {
    return ActionError{ErrorKind::Busy, "the coach is still working on the last request", runtime_};
  }
  const AsyncToken token = coach_.begin();
  if (!backend_) {
    coach_.fail(token, "coach unavailable");
    publish(lock, Persist::No);
    return std::nullopt;
  }
  ai::CoachGrounding grounding;
  if (profile_.value() && profile_.value()->status == planning::LoadStatus::Ready) {
    grounding.profile = profile_.value()->text;
  }
  grounding.lastCarryForward = lastCarryForward_;
  std::shared_ptr<Backend> backend = backend_;
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  stats_.addAiCall("coach");
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      mutex_, executor_, coach_, token,
      [backend, intent, grounding, timeoutMs, cost] {
        auto result = ai::coach(*backend, intent, grounding, timeoutMs, cost.get());
        if (!result) {
          logger().warning("coach failed: %s", result.error().message);
        }
        return result;
      },
      [this, cost] {
        addAiCostLocked(*cost);
        return changedLocked(Persist::No);
      },
      [this](const State& state) { notifyListener(state); });
  publish(lock, Persist::No);
  return std::nullopt;
}

void Controller::enterReviewLocked(Outcome outcome) {
  noteSuspendLocked();
  const std::int64_t now = sessionNowLocked();  // still active: session time
  const std::int64_t endedAt = std::min(now, commitment_->deadlineMs);
  stats_.settle(endedAt);
  timeline_.extendTo(endedAt);
  stats_.addDriftMs(drift_.close(endedAt));
  runtime_ = RuntimeState::Review;
  outcome_ = outcome;
  // Start plus the time elapsed, suspends included, whatever the wall clock did.
  endedAtMs_ = now + stats_.stats().suspendedMs;
  startReviewLocked();
}

void Controller::startReviewLocked() {
  if (!backend_) {
    reviewer_.reset();
    reflection_ = ReflectionRecord{"absent", "", ""};
    return;
  }
  reviewerToken_ = reviewer_.begin();
  // A re-run (the person answered the review) keeps the recap it had until
  // the new one arrives, so an End in between still records it.
  reflection_ = ReflectionRecord{"pending", reflection_.recap, reflection_.carryForward};
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  reviewerGiveUpMono_ = clock_.monotonicMs() + timeoutMs + kReviewerGraceMs;
  stats_.addAiCall("reviewer");
  std::shared_ptr<Backend> backend = backend_;
  AuditSink& audit = audit_;
  // The session is not in the audit log yet (End appends it): no double count.
  const std::string finished = ai::describeSession(factsOf(summaryLocked()));
  auto cost = std::make_shared<CallCost>();  // issue 18 item 4
  launchGuarded(
      mutex_, executor_, reviewer_, reviewerToken_,
      [backend, &audit, finished, timeoutMs, cost] {
        std::vector<ai::SessionFacts> prior;
        try {
          for (const SessionSummary& summary : audit.recent(ai::kReviewerHistorySessions)) {
            prior.push_back(factsOf(summary));
          }
        } catch (const std::exception& e) {
          logger().warning("reviewer: no history (%s)", std::string(e.what()));
        }
        auto result =
            ai::tryReview(*backend, finished, ai::describeHistory(prior), timeoutMs, cost.get());
        if (!result) logger().warning("reviewer failed: %s", result.error().message);
        return result;
      },
      [this, cost] {
        addAiCostLocked(*cost);
        applyReflectionLocked();
        return changedLocked(Persist::Yes);
      },
      [this](const State& state) { notifyListener(state); });
}

void Controller::applyReflectionLocked() {
  const std::optional<ai::Reflection>& value = reviewer_.value();
  const bool ready = reviewer_.status() == AsyncStatus::Ready && value && !value->empty();
  if (ready && !value->carryForward.empty()) lastCarryForward_ = value->carryForward;
  if (runtime_ != RuntimeState::Review) return;  // ended meanwhile: only the carry-forward stays
  if (ready) {
    reflection_ = ReflectionRecord{"ready", value->recap, value->carryForward};
  } else if (!reflection_.recap.empty()) {
    reflection_.status = "ready";  // the re-run failed: the earlier recap stands
  } else {
    reflection_ = ReflectionRecord{"absent", "", ""};
  }
}

ActionResult Controller::extend(std::int64_t minutes) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Active) return illegalLocked("extend the timebox");
  if (std::find(std::begin(kExtendMinutes), std::end(kExtendMinutes), minutes) ==
      std::end(kExtendMinutes)) {
    return ActionError{ErrorKind::Validation, "minutes must be 5 or 15", runtime_};
  }
  const std::int64_t addedSecs = minutes * 60;
  if (commitment_->timeboxSecs + commitment_->extendedSecs + addedSecs > kMaxTimeboxSecs) {
    return ActionError{ErrorKind::Validation, "a session cannot be longer than 12 h", runtime_};
  }
  Checkpoint before = checkpointLocked();
  commitment_->extendedSecs += addedSecs;
  commitment_->deadlineMs += addedSecs * 1000;
  deadlineBoot_ += addedSecs * 1000;
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::answerReview(const ReviewAnswer& raw) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Review) return illegalLocked("answer the review");
  if (raw.success != "yes" && raw.success != "partly" && raw.success != "no") {
    return ActionError{ErrorKind::Validation, "success must be \"yes\", \"partly\" or \"no\"",
                       runtime_};
  }
  ReviewAnswer answer;
  answer.success = raw.success;
  answer.note = Poco::trim(sanitizeText(raw.note, raw.note.size() * 3 + 3));
  std::size_t chars = 0;
  for (unsigned char c : answer.note) chars += (c & 0xC0) != 0x80;
  if (chars > kMaxFieldChars) {
    return ActionError{ErrorKind::Validation,
                       "note is longer than " + std::to_string(kMaxFieldChars) + " characters",
                       runtime_};
  }
  Checkpoint before = checkpointLocked();
  reviewAnswer_ = std::move(answer);
  startReviewLocked();  // the Reviewer hears the answer too (latest wins)
  return commitLocked(lock, std::move(before));
}

void Controller::resetSessionLocked() {
  commitment_.reset();
  deadlineBoot_ = 0;
  outcome_ = Outcome::None;
  endedAtMs_ = 0;
  stats_ = StatsAccumulator(settings_.idleAfterSecs * 1000);
  timeline_.clear();
  if (away_) stats_.setAway(true, clock_.nowUtcMs());
  reflection_ = ReflectionRecord{};
  reviewAnswer_ = ReviewAnswer{};
  drift_.reset();
}

// ---- Evidence ------------------------------------------------------------------------------

void Controller::recordWindow(Observation raw) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::int64_t wallNow = clock_.nowUtcMs();
  const std::int64_t now = sessionNowLocked();
  Observation obs;
  obs.app = normaliseApp(raw.app);
  obs.title = sanitizeTitle(raw.title);
  // A private window's title is never stored, shown, logged or sent, nor the
  // site of its page (issue 16 item 4: an incognito tab marks it private).
  obs.privateWindow = raw.privateWindow || drift::isPrivateWindow(obs.app, obs.title);
  if (obs.privateWindow) {
    // The hard rules see the raw title before it is dropped (issue 19 item 3).
    if (auto blocked = drift_.rules().blockedReason(obs)) obs.blockedTitle = *blocked;
    obs.title = std::string(drift::kPrivateWindowTitle);
  } else {
    obs.domain = sanitizeText(raw.domain, kMaxDomainBytes);
  }
  obs.source = raw.source.empty() ? std::string("unknown") : sanitizeTitle(raw.source);
  // A watcher's own timestamp is kept only when plausible: not in the future
  // and not older than three heartbeats (a late delivery); else receipt time.
  // It counts as that long before now on the session's clock (issue 9 item
  // 2), and never before Start: a heartbeat stamped earlier is not session time.
  const std::int64_t oldest = wallNow - 3 * settings_.heartbeatSecs * 1000;
  const bool plausible = raw.atMs > 0 && raw.atMs <= wallNow && raw.atMs >= oldest;
  obs.atMs = plausible ? now - (wallNow - raw.atMs) : now;
  if (runtime_ == RuntimeState::Active) {
    noteSuspendLocked();
    obs.atMs = std::max(obs.atMs, commitment_->startedAtMs);
  }

  const bool windowChanged = !current_ || current_->app != obs.app ||
                             current_->title != obs.title || current_->domain != obs.domain;
  const Health before = healthLocked();
  const drift::DriftView driftBefore = drift_.view();
  current_ = obs;
  lastObservationMono_ = clock_.monotonicMs();
  if (obs.app != "unknown") {
    recentApps_[obs.app] = lastObservationMono_;
    // Only the last kRecentAppsMs are ever offered: drop older entries so a
    // watcher that invents classes cannot grow the map (issue 19 item 7).
    if (recentApps_.size() > kMaxSessionApps) {
      const std::int64_t since = lastObservationMono_ - kRecentAppsMs;
      for (auto it = recentApps_.begin(); it != recentApps_.end();) {
        it = it->second < since ? recentApps_.erase(it) : std::next(it);
      }
      while (recentApps_.size() > kMaxSessionApps) {  // many within the window: the oldest go
        recentApps_.erase(
            std::min_element(recentApps_.begin(), recentApps_.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; }));
      }
    }
  }
  const bool active = runtime_ == RuntimeState::Active;
  if (active) {
    stats_.observe(obs);
    evaluateDriftLocked();
  }

  // Issue 8 item 2: only what the page shows is announced. A heartbeat of
  // the same window moves the stats and the timeline's end, which the page
  // shows on Review only, and "now", which it counts on by itself.
  const drift::DriftView& driftAfter = drift_.view();
  const bool driftChanged =
      driftBefore.status != driftAfter.status || driftBefore.reason != driftAfter.reason ||
      driftBefore.nudge != driftAfter.nudge || driftBefore.app != driftAfter.app ||
      driftBefore.blocked != driftAfter.blocked || driftBefore.judgeAtMs != driftAfter.judgeAtMs;
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
  std::unique_lock<std::mutex> lock(mutex_);
  if (away_ == away) return;
  away_ = away;
  stats_.setAway(away, sessionNowLocked());
  if (runtime_ == RuntimeState::Active) evaluateDriftLocked();
  publish(lock, runtime_ == RuntimeState::Active ? Persist::Yes : Persist::No);
}

void Controller::setSourceRunning(const std::string& source, bool running) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = std::find(runningSources_.begin(), runningSources_.end(), source);
  if (running == (it != runningSources_.end())) return;
  const auto stopped = std::find(stoppedSources_.begin(), stoppedSources_.end(), source);
  if (running) {
    runningSources_.push_back(source);
    if (stopped != stoppedSources_.end()) stoppedSources_.erase(stopped);
  } else {
    runningSources_.erase(it);
    if (stopped == stoppedSources_.end()) stoppedSources_.push_back(source);
  }
  if (healthLocked() == lastHealth_) return;
  const bool persist = runtime_ == RuntimeState::Active && evaluateDriftLocked();
  publish(lock, persist ? Persist::Yes : Persist::No);
}

bool Controller::currentFromRunningSourceLocked() const {
  return current_ && std::find(runningSources_.begin(), runningSources_.end(), current_->source) !=
                         runningSources_.end();
}

Health Controller::healthLocked() const {
  // The window in front came from a source that has stopped: it is no evidence any more.
  if (current_ && std::find(stoppedSources_.begin(), stoppedSources_.end(), current_->source) !=
                      stoppedSources_.end()) {
    return Health::Unavailable;
  }
  // Outside a session the sources send no heartbeats (issue 8 item 2: nothing
  // wakes while nothing happens); a running source's silence means no change.
  if (runtime_ != RuntimeState::Active && currentFromRunningSourceLocked()) return Health::Ok;
  const std::int64_t freshMs = 3 * settings_.heartbeatSecs * 1000;
  if (lastObservationMono_ >= 0 && clock_.monotonicMs() - lastObservationMono_ < freshMs) {
    return Health::Ok;
  }
  if (!runningSources_.empty() || lastObservationMono_ >= 0) return Health::Stale;
  return Health::Unavailable;
}

// ---- Drift (DESIGN §4, §5) ------------------------------------------------------------------

bool Controller::evaluateDriftLocked() {
  const Health health = healthLocked();
  drift::Decision decision = drift_.evaluate(
      current_ ? &*current_ : nullptr,
      health == Health::Ok && current_ ? std::string() : "evidence is " + toString(health), away_,
      *commitment_, sessionNowLocked(), clock_.monotonicMs(),
      backend_ ? drift::Engine::Advisors::JudgeAndNudge : drift::Engine::Advisors::None);
  return applyDriftLocked(decision);
}

bool Controller::applyDriftLocked(drift::Decision& decision) {
  drift::recordDecision(decision, drift_.view(), stats_);
  const std::int64_t timeoutMs = settings_.aiTimeoutSecs * 1000;
  const auto notify = [this](const State& state) { notifyListener(state); };
  if (decision.judge && backend_) {
    std::shared_ptr<Backend> backend = backend_;
    drift::JudgeRequest request = std::move(*decision.judge);
    auto cost = std::make_shared<CallCost>();  // issue 18 item 4
    launchGuarded(
        mutex_, executor_, drift_.judgeEpoch(), request.token,
        [backend, input = std::move(request.input), timeoutMs, cost] {
          return ai::judge(*backend, input, timeoutMs, cost.get());
        },
        [this, key = request.key,
         cost](std::optional<ai::Expected<ai::Verdict>>&& result) -> std::optional<State> {
          addAiCostLocked(*cost);
          std::optional<ai::Verdict> verdict;
          std::string failure = std::string(kAsyncWorkFailed);
          if (result && result->hasValue()) {
            verdict = result->value();
          } else if (result) {
            failure = result->error().message;
          }
          if (!verdict) logger().warning("drift judge failed: %s", failure);
          if (runtime_ != RuntimeState::Active) return std::nullopt;
          drift::Decision applied = drift_.applyVerdict(key, verdict, failure, sessionNowLocked());
          const bool statsMoved = applied.episodeStarted || applied.driftMs > 0;
          applyDriftLocked(applied);
          // A verdict remembered about a window no longer in front still has to be written.
          if (!applied.changed && !statsMoved && !verdictsUnsavedLocked()) return std::nullopt;
          return changedLocked(statsMoved ? Persist::Yes : Persist::No);
        },
        notify);
  }
  if (decision.nudge && backend_) {
    std::shared_ptr<Backend> backend = backend_;
    drift::NudgeRequest request = std::move(*decision.nudge);
    auto cost = std::make_shared<CallCost>();  // issue 18 item 4
    launchGuarded(
        mutex_, executor_, drift_.nudgeEpoch(), request.token,
        [backend, input = std::move(request.input), timeoutMs, cost] {
          return ai::nudge(*backend, input, timeoutMs, cost.get());
        },
        [this, cost](std::optional<ai::Expected<std::string>>&& result) -> std::optional<State> {
          addAiCostLocked(*cost);
          std::optional<std::string> message;
          if (result && result->hasValue()) {
            message = result->value();
          } else {
            // Seed 000: an error leaves the advisory as it was; never fabricated.
            logger().warning("nudge failed: %s",
                             result ? result->error().message : std::string(kAsyncWorkFailed));
          }
          if (runtime_ != RuntimeState::Active || !drift_.applyNudge(message)) return std::nullopt;
          trackTimelineLocked(sessionNowLocked());  // the heads-up starts or ends a span
          return changedLocked(Persist::No);
        },
        notify);
  }
  trackTimelineLocked(sessionNowLocked());
  return decision.changed || decision.episodeStarted || decision.driftMs > 0;
}

void Controller::trackTimelineLocked(std::int64_t atMs) {
  if (runtime_ != RuntimeState::Active) return;
  timeline_.record(atMs, current_ ? current_->app : std::string(),
                   drift::spanStatusOf(drift_.view(), away_), !drift_.view().nudge.empty());
}

ActionResult Controller::refocus() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Active) return illegalLocked("go back to the task");
  Checkpoint before = checkpointLocked();
  drift::Decision decision = drift_.refocus(sessionNowLocked());
  applyDriftLocked(decision);
  return commitLocked(lock, std::move(before));
}

ActionResult Controller::markOnTask() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (runtime_ != RuntimeState::Active) return illegalLocked("mark this on task");
  if (std::optional<std::string> refusal = drift_.onTaskRefusal()) {
    return ActionError{ErrorKind::IllegalTransition, "cannot mark this on task: " + *refusal,
                       runtime_};
  }
  Checkpoint before = checkpointLocked();
  drift::Decision decision;
  const std::optional<drift::OnTaskMark> mark =
      drift_.markOnTask(*commitment_, sessionNowLocked(), decision);
  if (!mark) {
    return ActionError{ErrorKind::IllegalTransition,
                       "nothing to mark on task: no window was judged off task", runtime_};
  }
  stats_.addCorrection();
  applyDriftLocked(decision);
  logger().information("marked on task: %s%s", mark->app,
                       mark->title.empty() ? std::string() : std::string(" (one page)"));
  return commitLocked(lock, std::move(before));  // the allowed lists are in the snapshot
}

// ---- Time ----------------------------------------------------------------------------------

void Controller::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  bool changed = false;
  bool persist = false;
  if (noteSuspendLocked()) changed = persist = true;  // the gap is recorded at once
  // The deadline is on the boot clock: one that passed during a suspend expires now.
  if (runtime_ == RuntimeState::Active && clock_.bootMs() >= deadlineBoot_) {
    enterReviewLocked(Outcome::Expired);
    changed = persist = true;
  }
  if (healthLocked() != lastHealth_) {
    changed = true;
    if (runtime_ == RuntimeState::Active) persist = evaluateDriftLocked() || persist;
  }
  if (runtime_ == RuntimeState::Active) {
    const std::optional<std::int64_t> due = drift_.nextDueMono();
    if (due && clock_.monotonicMs() >= *due) {
      drift::Decision decision = drift_.due(*commitment_, clock_.monotonicMs());
      changed = applyDriftLocked(decision) || changed;
    }
  }
  if (reviewer_.status() == AsyncStatus::Pending && clock_.monotonicMs() >= reviewerGiveUpMono_) {
    logger().warning("reviewer: no answer within ai.timeout_s; no reflection this time");
    if (reviewer_.fail(reviewerToken_, "the reviewer did not answer in time")) {
      applyReflectionLocked();
      changed = persist = true;
    }
  }
  if (!persist && persistDueMono_ && clock_.monotonicMs() >= *persistDueMono_) {
    persistLocked();  // the write-behind of evidence announced earlier
  }
  if (verdictsDueMono_ && clock_.monotonicMs() >= *verdictsDueMono_) {
    saveVerdictsLocked();  // the write-behind of the verdict memory (issue 16 item 3)
  }
  if (changed) publish(lock, persist ? Persist::Yes : Persist::No);
}

std::optional<std::int64_t> Controller::nextWakeMonotonicMs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<std::int64_t> next;
  if (runtime_ == RuntimeState::Active) {
    next = deadlineBoot_ - (clock_.bootMs() - clock_.monotonicMs());  // as monotonic ms
    if (const std::optional<std::int64_t> due = drift_.nextDueMono()) next = std::min(*next, *due);
  }
  if (reviewer_.status() == AsyncStatus::Pending) {
    next = next ? std::min(*next, reviewerGiveUpMono_) : reviewerGiveUpMono_;
  }
  if (persistDueMono_) next = next ? std::min(*next, *persistDueMono_) : *persistDueMono_;
  if (verdictsDueMono_) next = next ? std::min(*next, *verdictsDueMono_) : *verdictsDueMono_;
  const bool goesStale = runtime_ == RuntimeState::Active || !currentFromRunningSourceLocked();
  if (lastHealth_ == Health::Ok && lastObservationMono_ >= 0 && goesStale) {
    const std::int64_t staleAt = lastObservationMono_ + 3 * settings_.heartbeatSecs * 1000;
    next = next ? std::min(*next, staleAt) : staleAt;
  }
  return next;
}

// ---- Reading -------------------------------------------------------------------------------

State Controller::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stateLocked();
}

RuntimeState Controller::runtime() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return runtime_;
}

std::vector<TimelineSpan> Controller::timeline() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.spans();
}

State Controller::stateLocked() const {
  State state;
  state.version = version_;
  state.nowMs = clock_.nowUtcMs();
  state.runtime = runtime_;
  state.commitment = commitment_;
  if (runtime_ == RuntimeState::Active) {
    const std::int64_t remainingMs = std::max<std::int64_t>(0, deadlineBoot_ - clock_.bootMs());
    state.remainingSecs = (remainingMs + 999) / 1000;
  }
  state.outcome = outcome_;
  state.endedAtMs = endedAtMs_;
  state.evidence.health = healthLocked();
  state.evidence.source = current_ ? current_->source : "";
  state.evidence.current = current_;
  state.evidence.away = away_;
  if (runtime_ == RuntimeState::Active) {
    const drift::DriftView& view = drift_.view();
    state.drift = DriftView{std::string(drift::toString(view.status)),
                            view.reason,
                            view.nudge,
                            view.app,
                            view.blocked,
                            view.judgeAtMs};
  }
  state.stats = stats_.stats();
  if (runtime_ == RuntimeState::Review) state.timeline = timeline_.spans();
  state.appSplit = timeline_.split();
  state.reflection = reflection_;
  state.review = reviewAnswer_;
  state.lastCarryForward = lastCarryForward_;
  state.ai = AiView{aiBackendName_, aiAvailable_, aiDetail_, aiOrigin_,
                    runtime_ == RuntimeState::Planning ? planningCost_ : stats_.stats().aiCost};
  state.notify = notifyView_;
  if (runtime_ == RuntimeState::Planning) {
    state.defaultAllowedApps = normaliseApps(settings_.defaultAllowedApps);
    state.appChoices = appChoicesLocked();
    state.lastAllowedApps = lastAllowedApps_;
    state.coach.status = std::string(toString(coach_.status()));
    state.coach.proposal = coach_.value();
    state.coach.error = coach_.error();
    const auto loadStatus = [](AsyncStatus status, bool ready) {
      if (status == AsyncStatus::Ready) return std::string(ready ? "ready" : "none");
      if (status == AsyncStatus::Error) return std::string("none");
      return std::string(toString(status));
    };
    const auto& tasks = tasks_.value();
    state.tasks.status =
        loadStatus(tasks_.status(), tasks && tasks->status == planning::LoadStatus::Ready);
    if (tasks) state.tasks.items = tasks->tasks;
    const auto& profile = profile_.value();
    state.profile.status =
        loadStatus(profile_.status(), profile && profile->status == planning::LoadStatus::Ready);
    if (profile) state.profile.bytes = profile->bytes;
  }
  return state;
}

std::vector<std::string> Controller::appChoicesLocked() const {
  std::vector<std::pair<std::int64_t, std::string>> seen;
  const std::int64_t since = clock_.monotonicMs() - kRecentAppsMs;
  for (const auto& [app, atMono] : recentApps_) {
    if (atMono >= since) seen.emplace_back(atMono, app);
  }
  std::sort(seen.begin(), seen.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> choices;
  const auto offer = [&choices](const std::string& app) {
    if (choices.size() < kMaxAppChoices && app != "unknown" &&
        std::find(choices.begin(), choices.end(), app) == choices.end()) {
      choices.push_back(app);
    }
  };
  for (const auto& entry : seen) offer(entry.second);
  for (const auto& app : historyApps_) offer(app);
  return choices;
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
