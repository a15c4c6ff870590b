/// @file controller.h
/// session::Controller — the only owner of mutable state (docs/DESIGN.md §1, §2, §3).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "antidrift/ai/coach.h"
#include "antidrift/ai/reviewer.h"
#include "antidrift/backend.h"
#include "antidrift/clock.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/domain/runtime.h"
#include "antidrift/drift/active_session.h"
#include "antidrift/drift/engine.h"
#include "antidrift/drift/verdict_memory.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/executor.h"
#include "antidrift/planning/profile.h"
#include "antidrift/planning/todo_txt.h"
#include "antidrift/session/async_slot.h"
#include "antidrift/session/history_view.h"
#include "antidrift/session/state.h"
#include "antidrift/settings.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"
#include "antidrift/store/verdict_store.h"

namespace antidrift {

/// Why an action was refused. The server maps the kind to an HTTP status.
enum class ErrorKind {
  Validation,         ///< bad field values → 400
  IllegalTransition,  ///< action not allowed in the current state → 409
  NotPlanning,        ///< an advisory request outside planning → 400 (seed 003 ErrNotPlanning)
  Storage,            ///< the audit log or snapshot could not be written → 503; retry later
  Busy,               ///< the coach is still answering the last request → 409
  NotFound,           ///< the thing named does not exist (a remembered verdict's key) → 404
};

/// A refused action. Nothing changed when one is returned.
struct ActionError {
  ErrorKind kind;
  std::string message;  ///< human sentence, safe for the browser
  RuntimeState state;   ///< the (unchanged) current runtime state
};

/// nullopt on success, else why nothing changed.
using ActionResult = std::optional<ActionError>;

/// Owns the runtime state machine, the commitment, evidence and stats; every
/// public method is thread-safe (one lock guards all state, another
/// serialises the changes). After each transition it persists a Snapshot
/// (synchronously, before returning, but with the state lock released:
/// reads never wait for the disk) and calls the change listener with the new
/// State — with every lock released.
/// Evidence (window changes, heartbeats) is persisted write-behind: the
/// listener hears of the change first and the snapshot is written by tick()
/// at most kWriteBehindMs later, coalescing every change in between (issue 8
/// item 2); flush() writes it at once (the daemon calls it on shutdown).
///
/// Write failures (issue 9 item 1): every action that returns an
/// ActionResult writes its snapshot before it answers; when that write throws
/// (disk full, read-only file system) the change is rolled back — state,
/// commitment, stats, timeline, drift and AI slots as they were before the
/// action — and ErrorKind::Storage is returned, so nothing is shown that is
/// not on disk. Work the action launched is discarded when it returns (its
/// generation is never current again). The files already written are never
/// touched. Observations and tick() cannot refuse: their failed writes are
/// logged and retried on the next change.
///
/// Time comes only from the injected Clock, background work only goes through
/// the injected Executor; the Controller starts no threads and never sleeps.
/// The timebox timer is driven from outside: the daemon calls tick() at
/// nextWakeMonotonicMs() (tests call it after advancing a fake clock).
class Controller {
 public:
  /// While active, heartbeats of an unchanged window persist the snapshot at
  /// most this often (ms): a bound on stats lost to a crash, not an fsync
  /// per heartbeat.
  static constexpr std::int64_t kHeartbeatPersistMs = 30'000;
  /// A window change is written to the snapshot at most this many ms after
  /// it was announced (write-behind, coalesced; issue 8 item 2): a crash
  /// loses at most this much of the time-per-app stats. Transitions are
  /// never deferred.
  static constexpr std::int64_t kWriteBehindMs = 1'000;
  /// Planning offers the apps seen within this many ms as allowed-app choices.
  static constexpr std::int64_t kRecentAppsMs = 15 * 60'000;
  /// …and the apps of this many recent sessions.
  static constexpr std::size_t kHistorySessionsForApps = 5;
  /// At most this many app choices are offered.
  static constexpr std::size_t kMaxAppChoices = 16;
  /// A Reviewer call still unanswered this long after ai.timeout_s is given
  /// up (status absent; a late answer is discarded): a plugin that ignores
  /// its timeout never leaves Review "pending" for good (issue 7 item 7).
  static constexpr std::int64_t kReviewerGraceMs = 2'000;
  /// End and restore look for the session's id among this many of the audit
  /// log's last records (issue 9 item 1: exactly once across a crash; the
  /// session that crashed is the last one appended).
  static constexpr std::size_t kEndCheckRecords = 8;
  /// Minutes Extend accepts (issue 7 item 5).
  static constexpr std::int64_t kExtendMinutes[] = {5, 15};

  /// Called after every change with the new State, never under the mutex.
  using ChangeListener = std::function<void(const State&)>;
  /// Called, never under the mutex, when a deferred snapshot write was
  /// scheduled without a change being announced (a heartbeat that changed
  /// nothing visible), so whoever drives tick() re-reads
  /// nextWakeMonotonicMs(). Must not block.
  using WakeHook = std::function<void()>;

  /// All references must outlive the Controller. `aiBackendName` is what
  /// ai.backend names ("none" when off); `aiAvailable` whether it loaded.
  Controller(Settings settings, Clock& clock, Executor& executor, SnapshotStore& snapshots,
             AuditSink& audit, std::string aiBackendName = "none", bool aiAvailable = false);
  /// Drain or stop the Executor first: work still queued captures the Controller.
  ~Controller();

  /// Sets the change listener. Call once before any other thread uses the
  /// Controller.
  void setChangeListener(ChangeListener listener);
  /// Sets the wake hook (the daemon's Ticker::wake). Call once before any
  /// other thread uses the Controller.
  void setWakeHook(WakeHook hook);

  /// Connects the AI backend (loaded by the daemon's PluginLoader); nullptr
  /// means AI off, and `unavailableReason` then says why and what to do (shown
  /// in Planning up front, issue 6 item 8). Call before other threads use the
  /// Controller.
  void setBackend(std::shared_ptr<Backend> backend, std::string unavailableReason = "");
  /// Sets how the backend was chosen and where its prompts go, shown in
  /// State `ai` (issue 18 items 2 and 3). Call before start(), like setBackend.
  void setAiOrigin(AiOrigin origin);

  /// What the daemon's notification sinks do (State::notify; issue 17 items
  /// 2 and 3), copied into every State from now on. Announces nothing; call
  /// before restore().
  void setNotifyView(NotifyView view);

  /// Connects the verdict memory's file (issue 16 item 3) and loads it: the
  /// remembered verdicts survive restarts. A file that cannot be read, is
  /// oversized or is not a verdicts file is set aside (VerdictStore::setAside)
  /// with a log line and the memory starts empty; bad lines are skipped and
  /// counted in the log. Afterwards every change to the memory is written
  /// behind: kWriteBehindMs after the first change that was announced,
  /// coalescing every change in between, by tick() (and on flush()).
  /// An action rolled back after a failed snapshot write (ErrorKind::Storage)
  /// keeps what it added to the memory (This is on task, Back to task): the
  /// memory is an advisory cache, not session state. `store` must outlive the
  /// Controller; call before other threads use it. Without a store the memory lives in memory only.
  void setVerdictStore(VerdictStore* store);

  /// Loads the snapshot (docs/DESIGN.md §9 "Restart"): an active session resumes with
  /// drift state reset; one whose deadline passed while the daemon was down
  /// goes to review as `expired`. A session in review whose id is already
  /// among the audit log's last kEndCheckRecords records ended before a crash
  /// (killed between the audit append and the snapshot write): it starts
  /// locked, its carry-forward kept (issue 9 item 1). An unreadable audit log
  /// leaves it in review (end() checks again). A missing snapshot means
  /// locked. Returns a
  /// human sentence describing what was restored. Throws std::runtime_error
  /// if the snapshot exists but cannot be read (the daemon refuses to start
  /// rather than overwrite it).
  std::string restore();

  // ---- Transitions (docs/DESIGN.md §2). Each returns nullopt or why nothing changed.

  /// locked → planning. Resets the coach and starts the tasks (todo.txt)
  /// and profile fetches on the executor (docs/DESIGN.md §6); gathers the app
  /// choices (apps seen in the last kRecentAppsMs, then apps of the last
  /// kHistorySessionsForApps sessions in the audit log).
  [[nodiscard]] ActionResult enterPlanning();
  /// planning → locked.
  [[nodiscard]] ActionResult cancelPlanning();
  /// planning → active. The text fields are sanitised first (invalid UTF-8
  /// replaced, control characters dropped, trimmed); blank allowed-app
  /// entries are ignored. Validation errors (docs/DESIGN.md §2) →
  /// ErrorKind::Validation.
  [[nodiscard]] ActionResult startCommitment(const CommitmentRequest& request);
  /// active → review, outcome completed.
  [[nodiscard]] ActionResult complete();
  /// active → review, outcome abandoned.
  [[nodiscard]] ActionResult abandon();
  // ---- Drift banner actions (docs/DESIGN.md §4). Outside active → IllegalTransition.

  /// "Back to task": hides the banner; the next observation is evaluated
  /// afresh (a judge answer still running is discarded).
  [[nodiscard]] ActionResult refocus();
  /// "This is on task": adds the app judged off task — or, for a
  /// title-sensitive app, its normalised title — to this commitment's allowed
  /// lists (persisted in the snapshot), stops judging it, status ontask, and
  /// counts a correction. With nothing judged off task yet → IllegalTransition
  /// "nothing to mark on task"; for a window a hard rule blocks (drift.blocked_*)
  /// → IllegalTransition naming the rule (the config, not a button, allows it).
  /// `scope` Site (issue 17 item 4) marks every page of the site the engine
  /// derived (State drift.site) for this session instead; a window with no
  /// such site → IllegalTransition.
  [[nodiscard]] ActionResult markOnTask(drift::OnTaskScope scope = drift::OnTaskScope::Page);

  /// Undoes a page mark (`isSite` false: `mark` is the page's title key as in
  /// commitment.allowedTitles) or a site mark (`isSite` true: `mark` is the
  /// site as in commitment.allowedSites) of `app` (issue 17 item 4): the page
  /// or site is no longer on task, what the mark cached or remembered is
  /// forgotten, and the window in front is judged afresh. Outside active →
  /// IllegalTransition; no such mark → ErrorKind::NotFound.
  [[nodiscard]] ActionResult undoOnTask(const std::string& app, const std::string& mark,
                                        bool isSite);

  /// active: moves the deadline `minutes` later (5 or 15, else
  /// ErrorKind::Validation; past a 12 h total also Validation) and records it
  /// in commitment.extendedSecs (issue 7 item 5). Outside active →
  /// IllegalTransition.
  [[nodiscard]] ActionResult extend(std::int64_t minutes);

  /// review: stores what the person said — `answer.success` "yes" | "partly"
  /// | "no" (else Validation) and `answer.note`, made one line and trimmed
  /// (over kMaxFieldChars characters → Validation) — and runs the Reviewer
  /// again with it (latest wins; seed 004). Recorded in the summary at End.
  /// Outside review → IllegalTransition.
  [[nodiscard]] ActionResult answerReview(const ReviewAnswer& answer);

  /// review → locked: appends the SessionSummary to the audit log, clears the
  /// commitment and stats; the carry-forward survives. Never waits for the
  /// Reviewer: the summary records the reflection if it is ready, and an
  /// answer arriving later still becomes the last carry-forward (seed 004).
  /// Exactly once by session id (issue 9 item 1): when the session's id is
  /// already among the audit log's last kEndCheckRecords records (a crash
  /// after the append, before the snapshot write), nothing is appended and the
  /// session just ends. If the audit log cannot be read or appended to, or
  /// the snapshot cannot be written, the state stays review and
  /// ErrorKind::Storage is returned (nothing is lost; an End after a failed
  /// snapshot write finds its record and does not append it again).
  [[nodiscard]] ActionResult end();

  // ---- Planning coach (seed 003, docs/DESIGN.md §6).

  /// Asks the Coach role to sharpen `intent` into a proposal, asynchronously
  /// on the executor: status pending now, ready or error later (a newer
  /// request or leaving planning discards an older result). Outside planning
  /// → ErrorKind::NotPlanning; an empty or over-long intent (> 2000
  /// characters) → ErrorKind::Validation. While a request is still pending
  /// → ErrorKind::Busy (one backend call at a time: a CLI call costs money
  /// and a process; the pending one ends by ai.timeout_s). With no backend
  /// the status becomes error "coach unavailable" and the call succeeds.
  /// Never persisted.
  [[nodiscard]] ActionResult requestCoach(const std::string& intent);

  // ---- Evidence (docs/DESIGN.md §3).

  /// Records one observation from any source. `raw.app` and `raw.title` are
  /// sanitised here (a private-browsing window's title is replaced by a
  /// placeholder before anything stores it); `raw.atMs` ≤ 0 means "now".
  /// The drift.blocked_titles patterns run on it here, before any lock is
  /// taken (drift::admitWindow; issue 19 item 7, review L5): a slow match
  /// holds up no read and no other change. While active, the drift engine decides what it means
  /// (docs/DESIGN.md §4, §5) and any DriftJudge or Nudger call it asks for is launched on the
  /// executor. Updates health, current window and (while active) stats. While active the snapshot
  /// is written on every change of window and at least every kHeartbeatPersistMs on heartbeats of
  /// the same window, so a crash loses at most that much of the time-per-app stats. Never fails.
  ///
  /// What is announced (issue 8 item 2): the listener is called only when
  /// something the page shows changed — the window, evidence health, or
  /// the drift view (status, reason, nudge, app, blocked). A heartbeat of
  /// the same window changes none of them and announces nothing (the page
  /// counts down from commitment.deadline itself; the stats and timeline it
  /// moves are shown on Review and carried by the next announced State).
  /// While active, a window change is announced first and persisted
  /// write-behind (kWriteBehindMs); heartbeats schedule a write at most
  /// every kHeartbeatPersistMs.
  void recordWindow(Observation raw);
  /// The X11 (or other) source reports whether the person is away.
  void setAway(bool away);
  /// A long-running source reports that it started (`running` true) or
  /// failed/stopped. Health is "unavailable" while no source runs and no
  /// observation ever arrived, and while the source of the current
  /// observation has stopped (docs/DESIGN.md §3: "source failed" — nobody watches
  /// that window any more) until it runs again or another source observes.
  /// Outside an active session a running source's window stays `ok` however
  /// old: such a source reports every change at once and heartbeats only
  /// during a session (issue 8 item 2), so Start counts its window as just
  /// observed; during a session docs/DESIGN.md §3's 3 × heartbeat rule applies.
  /// While active, a change of health re-evaluates drift (no judgment
  /// without `ok` evidence). Thread-safe.
  void setSourceRunning(const std::string& source, bool running);

  // ---- Time.

  /// Applies whatever time has made due: timebox expiry (active → review,
  /// outcome expired), health going stale, and a deferred snapshot write.
  /// Notifies if anything visible changed.
  void tick();
  /// Monotonic ms at which tick() next has something to do (deadline, health
  /// change, a debounced judge call or a deferred snapshot write), or nullopt
  /// when nothing is scheduled.
  std::optional<std::int64_t> nextWakeMonotonicMs() const;
  /// Writes a deferred snapshot now, if one is pending (the daemon calls it
  /// on shutdown, after the sources and the ticker stopped). Thread-safe.
  void flush();
  /// A clean stop (SIGTERM, Ctrl-C; issue 17 item 4): while a session is
  /// active, credits the stats and the timeline up to now (at most the
  /// deadline), closes the open drifting time into the stats, and writes the
  /// snapshot at once, so a restart resumes with the time up to the stop;
  /// otherwise as flush(); either way the verdict memory's pending write
  /// goes out too. The time the daemon is then down is not credited
  /// (StatsAccumulator::resume). Call it once, when nothing else changes any
  /// more (after the sources and the ticker stopped): the drift episode it
  /// closes is not reopened. A failed write is logged, not thrown. Thread-safe.
  void flushForShutdown();

  // ---- The verdict memory (issue 16 item 3).

  /// The remembered verdicts, most recently used first. Thread-safe; a copy.
  std::vector<drift::RememberedEntry> verdicts() const;

  /// The drift rules compiled from the settings at construction, the ones
  /// recordWindow admits a window with (their patterns shared with the
  /// engine's): the window join uses these, so the daemon compiles the rules
  /// once (docs/DESIGN.md §4 "One door"). Immutable; thread-safe without a lock.
  const drift::Rules& rules() const { return rules_; }
  /// Forgets the remembered verdict of `key`, or every one when nullopt, and
  /// writes the file at once (a person clearing titles expects them gone from
  /// disk). An unknown key → ErrorKind::NotFound; a failed write →
  /// ErrorKind::Storage with the memory as it was. The current session keeps
  /// what it has already decided; the next session asks afresh. Any runtime
  /// state. Thread-safe.
  [[nodiscard]] ActionResult forgetVerdicts(const std::optional<std::string>& key);

  // ---- Reading.

  /// The current State. Thread-safe; a copy; never waits for a snapshot
  /// write (during an action's write it is the State last announced; issue
  /// 19 item 7, review L13). Its `timeline` is filled in review only
  /// (the only state whose JSON carries it: issue 8 item 2); timeline() reads it any time.
  State state() const;
  /// The runtime state alone, without building a State (the ticker asks on
  /// every schedule read). Thread-safe.
  RuntimeState runtime() const;
  /// The timeline spans of the session that is active or in review, oldest first (empty
  /// once it ended). Thread-safe; a copy.
  std::vector<TimelineSpan> timeline() const;
  /// Up to `n` most recent ended sessions from the audit log, newest first.
  /// An unreadable log is logged and gives none. Thread-safe.
  std::vector<SessionSummary> history(std::size_t n) const;

  /// Records read at most for the History view's days (bounds its cost).
  static constexpr std::size_t kHistoryScanSessions = 200;
  /// What GET /history shows (issue 7 item 4).
  struct HistoryData {
    std::vector<SessionSummary> sessions;  ///< the `n` most recent, newest first
    std::vector<HistoryDay> days;          ///< the last kHistoryDays local dates, oldest first
  };
  /// The `n` most recent sessions and the last kHistoryDays days (local
  /// dates of the daemon, from the clock and Poco::Timezone), counted over
  /// at most max(n, kHistoryScanSessions) records. Reads the audit log
  /// without the Controller's lock. Thread-safe.
  HistoryData historyView(std::size_t n) const;

 private:
  /// The mutable state (core/src/session/session_values.h): everything an
  /// action may change, one value (issue 15 item 2).
  struct Values;
  /// The verdict memory with its file (core/src/session/verdict_file.h).
  struct Verdicts;

  /// The State of the values as they are (core/src/session/controller_state.cpp),
  /// without nextWakeMonotonicMs. Caller holds mutex_.
  State stateLocked() const;
  /// stateLocked's steps: the session (commitment, outcome, stats, the time
  /// left and the drift banner while active, the timeline and focus in
  /// review), the evidence, and planning's choices. Caller holds mutex_.
  void showSessionLocked(State& state) const;
  void showEvidenceLocked(State& state) const;
  void showPlanningLocked(State& state) const;
  /// restore()'s steps (core/src/session/controller_restore.cpp). A restored
  /// active or review session without a commitment: locked, with a warning.
  void lockIfUncommittedLocked();
  /// A restored session in review: locked when the audit log already holds
  /// it (returns what happened), else the Reviewer asked again when its call
  /// was pending (returns nullopt).
  std::optional<std::string> resumeReviewLocked();
  /// A restored active session: a session clock picked up from the wall
  /// clock, at most its own length left; expired into review when nothing is
  /// left. Returns what happened, for restore()'s sentence.
  std::string resumeActiveLocked();
  /// nextWakeMonotonicMs() with the mutex held.
  std::optional<std::int64_t> nextWakeLocked() const;
  Health healthLocked() const;
  /// A snapshot taken under the lock, to be written after it is released
  /// (docs/DESIGN.md §9 "Writes off the lock"; issue 19 item 7, review L13):
  /// `seq` orders the snapshots as they were taken.
  struct SnapshotWrite {
    std::uint64_t seq = 0;
    Snapshot snapshot;
  };
  /// A change to announce: its State, and the snapshot to write before the
  /// State is announced when the change is persisted at once.
  struct Change {
    State state;
    std::optional<SnapshotWrite> write;
  };
  /// A BasicLockable over changeMutex_ then mutex_: what every change holds
  /// (std::unique_lock<ChangeLock>, and launchGuarded for the AI answers).
  class ChangeLock {
   public:
    explicit ChangeLock(Controller& owner) : owner_(owner) {}
    void lock() {
      owner_.changeMutex_.lock();
      owner_.mutex_.lock();
    }
    void unlock() {
      owner_.mutex_.unlock();
      owner_.changeMutex_.unlock();
    }

   private:
    Controller& owner_;
  };
  /// Takes the snapshot of the values as they are, numbered; marks every
  /// deferred change as carried by it. Caller holds both locks.
  SnapshotWrite persistLocked();
  /// Writes `write` with no Controller lock held, one write at a time
  /// (writeMutex_): a snapshot older than the last one written is dropped,
  /// so an older snapshot never overwrites a newer one. Returns why the
  /// store refused it, or nullopt when it is on disk (or superseded by a
  /// newer one that is).
  std::optional<std::string> writeSnapshot(const SnapshotWrite& write);
  /// writeSnapshot, a failure logged: the values stay in memory and the
  /// next change writes them again. Caller holds no lock.
  void writeLogged(const SnapshotWrite& write);
  /// Whether a change is written to the snapshot before it is announced
  /// (Yes), within kWriteBehindMs after it (Later), or not at all (No).
  enum class Persist { Yes, Later, No };
  /// Schedules a write-behind snapshot write kWriteBehindMs from now,
  /// unless one is pending already (coalescing). True if newly scheduled.
  bool persistLaterLocked();
  /// Under the lock, after any change (a transition, an observation, an
  /// applied async result): bumps the version, persists when asked, and
  /// builds the State to announce. The one path every change takes.
  Change changedLocked(Persist persist);
  /// changedLocked, then releases both locks, writes the change's snapshot
  /// (if any) and notifies the listener.
  void publish(std::unique_lock<ChangeLock>& lock, Persist persist);
  /// Writes `change`'s snapshot (if any), then notifies the listener. Caller
  /// holds no lock.
  void deliver(const Change& change);
  void enterReviewLocked(Outcome outcome);
  /// Launches the Reviewer for the session in review (seed 004): one call
  /// with the finished session and the last ai::kReviewerHistorySessions
  /// summaries of the audit log (read on the executor); latest wins. With
  /// AI off the reflection is absent at once.
  void startReviewLocked();
  /// Back to no session (the carry-forward and the evidence stay).
  void resetSessionLocked();
  ActionError illegalLocked(const std::string& action) const;
  /// Starts the todo.txt and profile loads of planning (docs/DESIGN.md §6).
  void loadPlanningLocked();
  /// Fills planning's history apps (the second half of "Seen recently") from
  /// the top buckets of the recent sessions in the audit log; at the start of
  /// planning and when a planning is restored (they are not in the snapshot).
  void gatherHistoryAppsLocked();
  /// Launches the Coach on `intent` for the request `token` (seed 003).
  void launchCoachLocked(AsyncToken token, const std::string& intent);
  /// Applies a drift decision through the session's one door
  /// (drift::ActiveSession::step, docs/DESIGN.md §4 "One door"): its stats,
  /// the AI calls it asks for launched through advisors_ (the answers come
  /// back through the judge and nudge callbacks), the timeline and the open
  /// drift credit. Returns whether the State changed.
  bool applyDriftLocked(drift::Decision& decision);
  /// The app of the window in front ("" none), for the timeline.
  const std::string& currentAppLocked() const;
  /// Which AI roles the drift engine may call: none without a backend; a
  /// local judge when the backend's destination() is "local …" (or empty
  /// and its plugin.json says "prompts": "local"), else one whose prompts
  /// leave the machine (docs/DESIGN.md §4 "Private windows").
  drift::Advisors advisorsLocked() const;
  /// Launches the DriftJudge on `request` (docs/DESIGN.md §4).
  void launchJudgeLocked(drift::JudgeRequest request);
  /// Launches the Nudger on `request` (seed 000, docs/DESIGN.md §5).
  void launchNudgeLocked(drift::NudgeRequest request);
  /// Runs the drift engine on the current window while active (evidence ok,
  /// present) or suspends it with the reason it cannot judge.
  bool evaluateDriftLocked();
  /// tick()'s steps: what time made due — a suspend noted, the deadline
  /// passed, the health changed, a debounced judge call due, the Reviewer
  /// given up — applied; nullopt when nothing visible changed, else whether
  /// the change is written at once (Persist::Yes) or not (Persist::No).
  std::optional<Persist> applyDueLocked();
  /// A Reviewer call unanswered past its giveUpMono: failed, its fallback
  /// applied (kReviewerGraceMs). Returns whether that changed anything.
  bool giveUpReviewerLocked();
  /// Calls the listener with `state`; the mutex must NOT be held.
  void notifyListener(const State& state) const;
  /// "Now" for everything measured inside a session (issue 9 item 2): while
  /// active, commitment.startedAtMs plus the monotonic time since Start —
  /// UTC-shaped ms that a wall-clock step does not move and a suspend does
  /// not advance; otherwise the wall clock.
  std::int64_t sessionNowLocked() const;
  /// While active, records in the stats the time suspended since Start
  /// (boot − monotonic growth); returns whether it grew.
  bool noteSuspendLocked();
  /// Whether `id` is among the audit log's last kEndCheckRecords records.
  /// Throws std::runtime_error when the log cannot be read.
  bool auditHoldsLocked(const std::string& id) const;
  /// An action's last step: writes the snapshot with mutex_ released and
  /// changeMutex_ held (readers see `before`, the values last announced,
  /// while the write runs; no other change can start), then publishes
  /// (releasing `lock`) and returns nullopt; when the write throws, puts
  /// back `before` (one assignment: docs/DESIGN.md §9), keeps `lock` and
  /// returns ErrorKind::Storage.
  ActionResult commitLocked(std::unique_lock<ChangeLock>& lock, Values&& before);

  Settings settings_;
  Clock& clock_;
  Executor& executor_;
  SnapshotStore& snapshots_;
  AuditSink& audit_;
  std::string aiBackendName_;
  bool aiAvailable_;
  /// Counts one answered AI call of `role` ("coach", "judge", "nudge",
  /// "reviewer") and adds its cost, both at once, so the per-role list
  /// (stats.ai_calls) and the cost (stats.ai_cost.calls) count the same
  /// calls (issue 18 item 4; issue 17 item 2 of the number walk): to the
  /// session's stats while a session is active or in review, to
  /// planningCost_ in Planning (the coach). Caller holds mutex_.
  void addAiCostLocked(const char* role, const CallCost& cost);

  std::string aiDetail_;
  AiOrigin aiOrigin_;      ///< issue 18 items 2 and 3
  AiCost planningCost_;    ///< the coach's calls in Planning, added to the next session at start
  NotifyView notifyView_;  // guarded by mutex_
  std::shared_ptr<Backend> backend_;

  /// The Controller's drift::AdvisorPort: a judge or nudge call a decision
  /// asks for is launched on the executor when there is a backend
  /// (launchGuarded; the answer comes back through the judge and nudge
  /// callbacks), else dropped. Called with the locks held.
  class Advisors final : public drift::AdvisorPort {
   public:
    explicit Advisors(Controller& controller) : controller_(controller) {}
    void askJudge(drift::JudgeRequest request) override;
    void askNudge(drift::NudgeRequest request) override;

   private:
    Controller& controller_;
  };
  Advisors advisors_{*this};

  /// The two locks and the write lock (docs/DESIGN.md §9 "Writes off the
  /// lock"; issue 19 item 7, review L13). Every change holds changeMutex_
  /// then mutex_ (ChangeLock); a read holds mutex_ only. The values are
  /// written with both held and read with either. No snapshot is written
  /// under mutex_: a change releases both before its write, an action
  /// keeps changeMutex_ through its write (so nothing interleaves with its
  /// rollback). writeMutex_ orders the writes; never taken before the others.
  mutable std::mutex mutex_;
  std::mutex changeMutex_;
  ChangeLock changing_{*this};
  std::mutex writeMutex_;
  std::uint64_t snapshotSeq_ = 0;  ///< the last snapshot taken (guarded by mutex_)
  std::uint64_t writtenSeq_ = 0;   ///< the last snapshot on disk (guarded by writeMutex_)
  ChangeListener listener_;
  WakeHook wakeHook_;
  std::uint64_t version_ = 0;
  /// Monotonic ms at which a deferred snapshot write is due; nullopt: none.
  std::optional<std::int64_t> persistDueMono_;
  std::int64_t lastPersistMono_ = 0;  ///< monotonic ms of the last snapshot taken

  /// The verdict memory (issue 16 item 3), lent to the drift engine when
  /// drift.memory is on, and its file. Guarded by mutex_; never null.
  std::unique_ptr<Verdicts> verdicts_;
  /// Everything an action may change (written under both locks, read under
  /// either; swapped for the checkpoint during an action's write): a checkpoint is a
  /// copy of *v_, a rollback one assignment. Never null.
  std::unique_ptr<Values> v_;
  /// The drift rules of settings_ (immutable; their compiled patterns are
  /// shared with the engine's, whose copy they are): recordWindow admits a window with them
  /// before taking a lock.
  drift::Rules rules_;
};

}  // namespace antidrift
