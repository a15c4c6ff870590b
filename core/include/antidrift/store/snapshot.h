/// @file snapshot.h
/// The persisted runtime state (docs/DESIGN.md §9 "snapshot.json") and its store port.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "antidrift/domain/commitment.h"
#include "antidrift/domain/drift_stay.h"
#include "antidrift/domain/runtime.h"
#include "antidrift/evidence/focus_tally.h"
#include "antidrift/evidence/stats.h"
#include "antidrift/evidence/timeline.h"

namespace antidrift {

/// Schema version written into snapshot.json; bump when fields change meaning.
inline constexpr int kSnapshotVersion = 1;

/// Where the session's reflection stands (docs/DESIGN.md §7; an enum since
/// issue 15 item 5, written by its toString name in the snapshot and on the wire).
enum class ReflectionStatus {
  Idle,     ///< not asked yet (no session in review)
  Pending,  ///< the reviewer is running
  Ready,    ///< a recap (and maybe a carry-forward) is there
  Absent,   ///< no reflection: AI off, or the reviewer failed with no earlier recap
};

/// "idle" | "pending" | "ready" | "absent" (the snapshot's and the wire's
/// names). Pure; thread-safe.
constexpr std::string_view toString(ReflectionStatus status) {
  switch (status) {
    case ReflectionStatus::Idle:
      return "idle";
    case ReflectionStatus::Pending:
      return "pending";
    case ReflectionStatus::Ready:
      return "ready";
    case ReflectionStatus::Absent:
      return "absent";
  }
  return "idle";
}
/// The inverse of toString(ReflectionStatus); nullopt for any other text (a
/// snapshot holding one is refused, as for an unknown span status). Pure;
/// thread-safe.
std::optional<ReflectionStatus> parseReflectionStatus(std::string_view text);

/// Reflection fields of docs/DESIGN.md §7 that survive restarts.
struct ReflectionRecord {
  ReflectionStatus status = ReflectionStatus::Idle;
  std::string recap;         ///< one line, "" until ready
  std::string carryForward;  ///< this session's lesson, "" until ready
};

/// What the person said on Review (issue 7 item 5): whether the success
/// condition was met and a one-line note.
struct ReviewAnswer {
  std::string success;  ///< "" (not answered) | "yes" | "partly" | "no"
  std::string note;     ///< one line, ≤ kMaxFieldChars characters; may be ""
};

/// Everything the daemon needs to resume after a restart. Coach, drift
/// verdicts and nudges are ephemeral and deliberately absent (docs/DESIGN.md §9),
/// bar the verdict about the window in front (`driftStay`, issue 17 item 4).
struct Snapshot {
  int version = kSnapshotVersion;
  RuntimeState runtime = RuntimeState::Locked;
  std::optional<Commitment> commitment;  ///< set in active and review
  Outcome outcome = Outcome::None;       ///< set in review
  std::int64_t endedAtMs = 0;            ///< UTC ms the session left active; 0 otherwise
  SessionStats stats;                    ///< of the current session
  std::vector<TimelineSpan> timeline;    ///< of the current session, oldest first (issue 7)
  std::map<std::string, AppSplit> timelineSplit;  ///< app → on-task/drifting ms (issue 7)
  /// Where the current session's drift went and its stretches (issue 17 item
  /// 5); complete false when read from a snapshot written before it.
  FocusState focus;
  /// While active: the window the drift status was about at the write and
  /// its verdict, so a restart mid-stay continues it (issue 17 item 4);
  /// nullopt when none (or written before it).
  std::optional<DriftStay> driftStay;
  ReflectionRecord reflection;   ///< of the current session (review)
  ReviewAnswer review;           ///< of the current session (review)
  std::string lastCarryForward;  ///< survives End; grounds the next coach (§7)
  /// The allowed apps of the last session started; survives End so Planning
  /// can offer the same list again (issue 6 item 8).
  std::vector<std::string> lastAllowedApps;
  std::int64_t savedAtMs = 0;  ///< UTC ms of the write
};

/// Serialises a snapshot to compact JSON text with snake_case keys (runtime,
/// outcome, span and reflection statuses as their toString names, times as
/// UTC ms integers). The version written is always kSnapshotVersion. Invalid
/// UTF-8 in any text is replaced by U+FFFD so the result always parses back.
/// Pure; thread-safe.
std::string snapshotToJson(const Snapshot& snapshot);
/// Parses snapshotToJson's output ("commitment" may be absent or null;
/// unknown keys are ignored; "allowed_titles", "corrections", "ai_calls",
/// "last_allowed_apps", "timeline", "review", "drift_reasons", "extended_secs",
/// "commitment.allowed_sites", "focus" and "drift_stay" (issue 17 items 4, 5), added after
/// version 1 shipped, may be absent). Throws std::runtime_error with a message naming the bad field
/// on malformed or unsupported input, including a version newer than kSnapshotVersion. Pure;
/// thread-safe.
Snapshot snapshotFromJson(const std::string& json);

/// Most confirmed titles a restored commitment may carry (issue 19 item 6).
inline constexpr std::size_t kMaxSnapshotAllowedTitles = 1024;
/// Longest recap or lesson a restored snapshot may carry, in characters.
inline constexpr std::size_t kMaxSnapshotTextChars = 4000;

/// What makes a snapshot that parses untrustworthy (issue 19 item 6, review
/// L6), or nullopt when it is sound: a commitment whose timebox is not in
/// (0, 12 h], whose extension is negative or takes it over 12 h, whose
/// start is not a plausible UTC ms, or whose deadline is not start +
/// (timebox + extension) s (so a restored session always expires and no
/// arithmetic overflows); text over docs/DESIGN.md §2's limits (kMaxFieldChars per
/// field, kMaxAllowedApps apps, titles over kMaxTitleBytes); more than
/// kMaxSnapshotAllowedTitles titles or Timeline::kMaxSpans spans; a
/// drift_stay key or reason over kMaxSnapshotTextChars. Pure;
/// thread-safe.
std::optional<std::string> snapshotInvariantProblem(const Snapshot& snapshot);

/// Port: where the Controller keeps its snapshot. Implementations are called
/// from any thread, one call at a time, without the Controller's state lock
/// (issue 19 item 7, review L13: a slow save holds up no read).
class SnapshotStore {
 public:
  virtual ~SnapshotStore() = default;
  /// Persists `snapshot` durably before returning. Throws std::runtime_error
  /// on I/O failure (the Controller logs it and keeps running).
  virtual void save(const Snapshot& snapshot) = 0;
  /// The last saved snapshot, or nullopt when none exists. Throws
  /// std::runtime_error when one exists but cannot be read or parsed.
  virtual std::optional<Snapshot> load() = 0;
};

/// snapshot.json in a directory, written atomically: temp file in the same
/// directory, fsync, rename over the old file, fsync the directory
/// (docs/DESIGN.md §9). Creates the directory (mode 0700) if missing.
class FileSnapshotStore final : public SnapshotStore {
 public:
  /// `directory`: the data directory (store.dir). Touches no file.
  explicit FileSnapshotStore(std::string directory);
  /// Writes snapshot.json atomically and durably (see class comment); a
  /// reader sees either the old or the new content, never a mix. Throws
  /// std::runtime_error naming the path on I/O failure; the old file is then
  /// left as it was.
  void save(const Snapshot& snapshot) override;
  /// Reads snapshot.json: nullopt when it does not exist. Throws
  /// std::runtime_error naming the path when it cannot be read, is not valid
  /// JSON, lacks a field or has a version newer than kSnapshotVersion. One
  /// that parses but breaks an invariant (snapshotInvariantProblem) is moved
  /// to `snapshot.json.invalid-<UTC ms>`, logged as an error on
  /// `antidrift.store`, and nullopt is returned: the daemon starts locked
  /// (issue 19 item 6). Never read through a symbolic link. Also removes
  /// temp files a crash left behind.
  std::optional<Snapshot> load() override;
  /// Full path of snapshot.json.
  const std::string& path() const { return path_; }

 private:
  /// Deletes `snapshot.json.tmp-*` left by a crash mid-save. Best effort.
  void removeStaleTempFiles();

  std::string directory_;
  std::string path_;
};

}  // namespace antidrift
