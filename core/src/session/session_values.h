/// @file session_values.h
/// The Controller's mutable state as small value types (issue 15 item 2),
/// held in one struct, Values, so that an action's checkpoint is a copy and
/// its rollback one assignment (docs/DESIGN.md §9 "Write failures"). Private
/// to core/src/session/: only the Controller uses these. Every type here is
/// a plain value (copyable, no locks, no I/O); the Controller's mutex guards
/// the one Values it owns. The pure steps on them live in session_values.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "antidrift/ai/coach.h"
#include "antidrift/ai/reviewer.h"
#include "antidrift/clock.h"
#include "antidrift/domain/commitment.h"
#include "antidrift/domain/runtime.h"
#include "antidrift/drift/active_session.h"
#include "antidrift/drift/engine.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"
#include "antidrift/planning/profile.h"
#include "antidrift/planning/todo_txt.h"
#include "antidrift/session/async_slot.h"
#include "antidrift/session/state.h"
#include "antidrift/settings.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"

namespace antidrift::session {

/// The session's own clock (issue 9 item 2, docs/DESIGN.md §2): session time
/// is commitment.startedAtMs plus the monotonic time since Start, so a
/// wall-clock step does not move it and a suspend does not advance it; the
/// deadline is on the boot clock, so a suspend does not postpone it.
struct SessionClock {
  std::int64_t deadlineBoot = 0;  ///< boot-clock ms of the deadline while active
  std::int64_t monoStart = 0;     ///< monotonic ms at which session time reads startedAtMs
  std::int64_t suspendBase = 0;   ///< bootMs() − monotonicMs() when the suspended time was zero

  /// A clock started now for a timebox of `timeboxMs`.
  static SessionClock startNow(const Clock& clock, std::int64_t timeboxMs);
  /// A clock picked up after a restart (monotonic time does not survive
  /// one): session time continues from the wall clock, `suspendedMs` already
  /// recorded; the deadline `remainingMs` from now.
  static SessionClock resume(const Clock& clock, std::int64_t startedAtMs, std::int64_t suspendedMs,
                             std::int64_t remainingMs);
  /// Session time (UTC-shaped ms) for a session that started at `startedAtMs`.
  std::int64_t now(const Clock& clock, std::int64_t startedAtMs) const;
  /// The time suspended since Start (ms, ≥ 0).
  std::int64_t suspendedMs(const Clock& clock) const;
  /// Whether the deadline has passed (boot clock: a suspend counts).
  bool expired(const Clock& clock) const { return clock.bootMs() >= deadlineBoot; }
  /// Ms left to the deadline (≥ 0).
  std::int64_t remainingMs(const Clock& clock) const;
  /// The deadline as monotonic ms (when tick() has to run).
  std::int64_t deadlineMono(const Clock& clock) const;
};

/// The session that is active or in review: its commitment and how it
/// ended, over what the evidence made of it — stats, timeline, drift engine
/// and their steps, the same code the replay runs (drift::ActiveSession;
/// docs/DESIGN.md §2, §3, §4, §14). Empty (no commitment) while locked or
/// planning.
struct Session : drift::ActiveSession {
  /// A session without a commitment, its stats crediting at most
  /// evidence.idle_after_s per gap and its drift engine on `settings`.
  explicit Session(const Settings& settings) : drift::ActiveSession(settings) {}

  std::optional<Commitment> commitment;
  Outcome outcome = Outcome::None;
  std::int64_t endedAtMs = 0;  ///< session time at which it ended (review)

  /// Back to no session: commitment, outcome, stats and timeline cleared
  /// (the stats start away when `away`, at `nowMs`), the drift engine reset
  /// (it keeps its verdict memory), idle gaps as in `settings`.
  void clear(const Settings& settings, bool away, std::int64_t nowMs);
};

/// Review and reflection (seed 004, docs/DESIGN.md §7): what the person
/// answered, the Reviewer's call and its reflection, and the carry-forward
/// that outlives the session.
struct Review {
  ReflectionRecord reflection;
  ReviewAnswer answer;                 ///< what the person said on Review (issue 7)
  std::string lastCarryForward;        ///< survives End: the coach's grounding next time
  AsyncSlot<ai::Reflection> reviewer;  ///< survives End: a late answer is still carried forward
  AsyncToken reviewerToken;            ///< the reviewer call in flight
  std::int64_t giveUpMono = 0;         ///< monotonic ms after which a pending call is absent
  /// The no-AI carry-forward of the session in review (ai::fallbackCarryForward,
  /// issue 17 item 5): the last carry-forward when the AI is off or the
  /// Reviewer gives nothing. Computed when the Reviewer is asked.
  std::string fallback;

  /// The reviewer's outcome applied: a ready answer becomes the last
  /// carry-forward; in review (`inReview`) it also becomes the reflection
  /// (ready), or an earlier recap stands (ready), else it is absent and
  /// `fallback` (when not empty) becomes the last carry-forward.
  void applyReviewer(bool inReview);
  /// The session ended: its carry-forward (if any) is the last one.
  void keepCarryForward();
  /// A new session: no reflection, no answer (the carry-forward stays).
  void clearSession();
};

/// Planning (seed 003, docs/DESIGN.md §6): the coach, the todo.txt tasks and
/// the profile, and the allowed-app choices.
struct Planning {
  AsyncSlot<ai::Proposal> coach;
  AsyncSlot<planning::TaskList> tasks;
  AsyncSlot<planning::Profile> profile;
  std::vector<std::string> historyApps;      ///< apps of recent sessions, gathered in planning
  std::vector<std::string> lastAllowedApps;  ///< allowed apps of the last session started

  /// Coach, tasks and profile back to idle (whatever is in flight is discarded).
  void reset();
  /// Planning's part of the State: coach, tasks, profile, the last allowed apps.
  void show(State& state) const;
};

/// The evidence and its health (docs/DESIGN.md §3): the window in front,
/// when it was observed, which sources run, whether the person is away, and
/// the apps seen lately (Planning's choices).
struct Evidence {
  std::optional<Observation> current;
  std::int64_t lastObservationMono = -1;  ///< monotonic ms of the last observation; -1 none
  std::vector<std::string> runningSources;
  std::vector<std::string> stoppedSources;  ///< reported running false, not running again
  /// app → monotonic ms last seen, any runtime, from a source that offersApps
  /// (Planning's app choices).
  std::map<std::string, std::int64_t> recentApps;
  bool away = false;
  Health lastHealth = Health::Unavailable;  ///< the health last announced

  /// The health at monotonic `nowMono` (docs/DESIGN.md §3): a window from a stopped
  /// source is unavailable; outside a session (`active` false) a running
  /// source's window is ok however old; else ok within `freshMs` of the last
  /// observation, stale after, unavailable when nothing ever ran or arrived.
  Health health(std::int64_t nowMono, bool active, std::int64_t freshMs) const;
  /// Whether the window in front came from a source that reported itself running.
  bool currentFromRunningSource() const;
  /// Records that `source` runs (or stopped). False when nothing changed.
  bool setSourceRunning(const std::string& source, bool running);
  /// Whether a window from `source` names an app the person used, for
  /// "Seen recently" (issue 17 item 4; docs/API.md "Evidence"): while a
  /// built-in window source runs (runningSources not empty), only a window
  /// it reported; with none running (evidence.source = none, or the source
  /// stopped), the outside watchers' windows (POST /evidence/window, the
  /// ActivityWatch API) are the person's. Every window counts in the stats
  /// either way.
  bool offersApps(const std::string& source) const;
  /// Remembers `app` seen at `nowMono`, keeping at most `maxApps` entries
  /// (the older than `recentMs` go first, then the oldest; issue 19 item 7).
  void seeApp(const std::string& app, std::int64_t nowMono, std::int64_t recentMs,
              std::size_t maxApps);
  /// Planning's allowed-app choices: the apps seen within `recentMs` of
  /// `nowMono`, newest first, then `historyApps`; at most `maxChoices`,
  /// never "unknown", no duplicates.
  std::vector<std::string> appChoices(std::int64_t nowMono, std::int64_t recentMs,
                                      const std::vector<std::string>& historyApps,
                                      std::size_t maxChoices) const;
};

/// Everything the Controller's actions and observations may change, in one
/// value: an action's checkpoint is a copy of it and its rollback one
/// assignment (issue 15 item 2; docs/DESIGN.md §9). Not in it, on purpose:
/// the State version and the deferred-write times (bookkeeping of what was
/// announced and written), and the verdict memory (an advisory cache that
/// keeps what a rolled-back action added, issue 16 item 3).
struct Values {
  /// Empty values for `settings`: locked, no session.
  explicit Values(const Settings& settings) : session(settings) {}

  RuntimeState runtime = RuntimeState::Locked;
  Session session;
  SessionClock clock;
  Review review;
  Planning planning;
  Evidence evidence;
};

// ---- Pure helpers of the Controller's actions ----------------------------------------------

/// The snapshot of `values` (docs/DESIGN.md §9), stamped `savedAtMs` (UTC ms).
Snapshot snapshotOf(const Values& values, std::int64_t savedAtMs);
/// Loads `snapshot` into `values` (restart, docs/DESIGN.md §9): runtime,
/// commitment, outcome, stats, timeline, reflection, answer, carry-forward
/// and last allowed apps; the drift engine is reset (its session cache and
/// nudges are not restored; the verdict memory is, issue 16 item 3).
void restoreFrom(const Snapshot& snapshot, Values& values);

/// The SessionSummary of the session in review (`session` has a commitment;
/// End appends it; issue 7): stats, timeline, the answer and any recap.
SessionSummary summaryOf(const Session& session, const Review& review);
/// A SessionSummary as the Reviewer's plain facts (seed 004).
ai::SessionFacts factsOf(const SessionSummary& summary);
/// Allowed apps as stored: normalised, blank entries dropped (a blank would
/// become "unknown" and make class-less windows on task), no duplicates.
std::vector<std::string> normalizeApps(const std::vector<std::string>& apps);
/// Number of characters (UTF-8 lead bytes) of `text`.
std::size_t utf8Chars(const std::string& text);

}  // namespace antidrift::session
