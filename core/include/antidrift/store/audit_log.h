/// @file audit_log.h
/// audit.jsonl: one SessionSummary per ended session, SHA-256 hash-chained
/// (docs/DESIGN.md §9).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "antidrift/domain/ai_cost.h"
#include "antidrift/domain/runtime.h"
#include "antidrift/evidence/focus_tally.h"
#include "antidrift/evidence/timeline.h"

namespace antidrift {

/// Which keys a record holds. Records written before issue 7 hold only the
/// basic keys; their canonical JSON (and so their hash) stays exactly what it
/// was, so old chains still verify.
enum class SummaryShape {
  Basic,     ///< id … drift_episodes, prev (docs/DESIGN.md §9 as first shipped)
  Detailed,  ///< the basic keys plus what the session was (issue 7)
};

/// Caps that keep one audit record small (issue 7 item 3).
inline constexpr std::size_t kMaxSummaryDriftReasons = 10;  ///< reasons kept, oldest first
inline constexpr std::size_t kMaxSummaryReasonChars = 200;  ///< per reason, characters
inline constexpr std::size_t kMaxSummarySpans = 200;        ///< timeline spans kept
inline constexpr std::size_t kMaxSummaryAppChars = 64;      ///< per span's app, characters
inline constexpr std::size_t kMaxSummaryTextChars = 500;    ///< note, recap, carry-forward
inline constexpr std::size_t kMaxSummarySites = 10;         ///< drift_by_site entries kept

/// One ended session as recorded in audit.jsonl.
struct SessionSummary {
  std::string id;  ///< the commitment's UUID
  std::int64_t startedAtMs = 0;
  std::int64_t endedAtMs = 0;  ///< UTC ms the session left active
  std::string nextAction;
  std::string successCondition;
  std::int64_t timeboxSecs = 0;
  Outcome outcome = Outcome::None;
  std::int64_t switches = 0;
  std::vector<std::pair<std::string, std::int64_t>> topBuckets;  ///< app, seconds; largest first
  std::int64_t driftEpisodes = 0;
  /// Basic for records read without the detail keys; new records are Detailed.
  SummaryShape shape = SummaryShape::Detailed;
  // ---- Detailed only (issue 7): what the session was.
  std::int64_t plannedSecs = 0;           ///< timebox plus extensions, seconds
  std::int64_t extendedSecs = 0;          ///< seconds added by Extend
  std::int64_t driftSecs = 0;             ///< seconds drifting
  std::int64_t awaySecs = 0;              ///< seconds away
  std::int64_t onTaskSecs = 0;            ///< seconds on task (timeline)
  std::int64_t corrections = 0;           ///< "This is on task" presses
  std::vector<std::string> driftReasons;  ///< the drift episodes' reasons, oldest first, capped
  std::string success;                    ///< "" | "yes" | "partly" | "no" (the person's answer)
  std::string note;                       ///< the person's one-line note
  std::string recap;                      ///< the Reviewer's recap, "" when none
  std::string carryForward;               ///< the Reviewer's carry-forward, "" when none
  std::vector<TimelineSpan> timeline;     ///< oldest first, capped
  // ---- Issue 17 item 5 (optional: records written before it have none, and
  // the views show them as unknown, never as 0).
  /// Where the drift went: most drifting time first, ≤ kMaxSummarySites;
  /// driftMs in whole seconds × 1000 once read back.
  std::optional<std::vector<SiteDrift>> driftBySite;
  /// The longest on-task stretch (FocusTally's rule; onTaskMs whole seconds × 1000 once read back).
  std::optional<OnTaskStretch> longestStretch;
  /// What the AI cost (issue 18 item 4); written as "ai_cost" only when a
  /// call was made, so older records and AI-less sessions hash as before.
  AiCost aiCost;
  std::string prev;  ///< hash of the previous record; 64 '0' for the first
  std::string hash;  ///< SHA-256 hex of the canonical JSON without "hash"
};

/// The `prev` of the first record: 64 zeros.
extern const std::string kGenesisHash;

/// Canonical JSON of `summary` without the "hash" field: compact, keys sorted
/// (Poco::JSON::Object default), UTF-8 (invalid sequences replaced by
/// U+FFFD). Keys: id, started_at, ended_at, next_action, success_condition,
/// timebox_secs, outcome (toString name), switches, top_buckets
/// ([{"app","secs"}] in order), drift_episodes, prev; a Detailed record adds
/// planned_secs, extended_secs, drift_secs, away_secs, on_task_secs,
/// corrections, drift_reasons, success, note, recap, carry_forward and
/// timeline ([{"start","end","app","status"}]); "drift_by_site"
/// ([{"where","drift_secs","visits"}]) and "longest_on_task" ({"secs",
/// "start","end"}) only when set (issue 17 item 5); and "ai_cost"
/// (ai_cost_json.h) when aiCost.calls > 0. The hash input. Pure.
std::string canonicalJson(const SessionSummary& summary);
/// SHA-256 (Poco::SHA2Engine) hex of canonicalJson(summary). Pure.
std::string computeHash(const SessionSummary& summary);
/// The full JSON line (with "hash") as written to audit.jsonl, no newline.
std::string toJsonLine(const SessionSummary& summary);
/// Parses one audit line (every basic field required, "hash" included; the
/// detail fields all present — shape Detailed — or none — shape Basic;
/// "drift_by_site" and "longest_on_task" optional, absent → nullopt). Throws
/// std::runtime_error starting "malformed JSON" when the text is not a JSON
/// object, or naming the field that is missing or of the wrong type. Pure.
SessionSummary summaryFromJsonLine(const std::string& line);

/// `summary` with the caps applied (kMaxSummary*): reasons, spans and text
/// fields cut on character boundaries. The Controller applies it before
/// append. Pure.
SessionSummary capSummary(SessionSummary summary);

/// Bytes read per step by recentSessions.
inline constexpr std::size_t kBackwardBlockBytes = 64 * 1024;
/// A line longer than this is skipped by recentSessions (no record is near it).
inline constexpr std::size_t kMaxAuditLineBytes = 4 * 1024 * 1024;

/// Up to `n` most recent well-formed records of the audit file at `path`,
/// newest first (issue 7 item 2): reads BACKWARDS from the end of the file in
/// blocks of kBackwardBlockBytes and stops once it has `n`, so its cost
/// depends on `n` and the records' size, not on the log's length. A torn tail
/// (a last line without '\n') and lines that do not parse are skipped; so is
/// a line over kMaxAuditLineBytes. Does not check the chain (verify() does).
/// A missing file or n = 0 gives none. Throws std::runtime_error naming the
/// path when the file exists but cannot be read. Thread-safe (reads only).
std::vector<SessionSummary> recentSessions(const std::string& path, std::size_t n);

/// Port: where the Controller appends summaries at End.
class AuditSink {
 public:
  virtual ~AuditSink() = default;
  /// Sets `prev` and `hash` on a copy of `summary`, appends it durably
  /// (fsync) and returns the stored record. Throws std::runtime_error on I/O
  /// failure. Thread-safe.
  virtual SessionSummary append(const SessionSummary& summary) = 0;
  /// Up to `n` most recent records, newest first. Thread-safe. Unreadable
  /// lines are skipped. Its cost must not grow with the log (recentSessions).
  virtual std::vector<SessionSummary> recent(std::size_t n) = 0;
};

/// Result of checking a chain.
struct AuditVerification {
  bool ok = true;
  std::size_t records = 0;                  ///< well-formed records read
  std::optional<std::size_t> firstBadLine;  ///< 1-based line number of the first problem
  std::string problem;                      ///< what is wrong with that line
};

/// Every record of the file at `path` that the chain vouches for, oldest
/// first, with the verification: the records before the first problem
/// (issue 7 item 6 — records after a broken link are never exported as
/// sound). A missing file is an empty, valid chain. Never throws: an
/// unreadable file gives no records and ok=false.
struct VerifiedHistory {
  std::vector<SessionSummary> sessions;  ///< sound records, oldest first
  AuditVerification verification;        ///< verify(path)
};
/// See VerifiedHistory. One streaming pass (memory: the records plus one
/// line). Thread-safe (reads only).
VerifiedHistory readVerifiedHistory(const std::string& path);

/// One line for people and logs, e.g. "ok: 3 records, chain intact" or
/// "broken at line 2: hash mismatch (record altered) (3 records well-formed)".
/// For `antidriftd --verify-audit` (docs/DESIGN.md §9). Pure.
std::string describeVerification(const AuditVerification& verification);

/// What AuditLog::open found and did.
/// Only the tail is read (issue 19 item 6): the chain before the last
/// record is checked by verify() (`antidriftd --verify-audit`, the export).
struct AuditOpenReport {
  std::optional<std::string> tornLineMovedTo;  ///< path the torn last line was moved to
  /// Whether the last line was a record this version parses (its hash is the chain head).
  bool lastRecordChecked = false;
  /// What is wrong with the last complete line, if anything: its hash does
  /// not match its content, it does not parse (corruption, left in place),
  /// or it is a newer version's record (left in place, chained after).
  std::optional<std::string> lastLineProblem;
};

/// audit.jsonl in a directory. Appends are serialised by an internal mutex.
class AuditLog final : public AuditSink {
 public:
  /// `directory`: the data directory (store.dir). Nothing is read until open().
  explicit AuditLog(std::string directory);

  /// Recovers the file on start (docs/DESIGN.md §9) reading only its tail, in
  /// bounded time and memory whatever its size (issue 19 item 6, review L4):
  /// a last line with no trailing newline (crash mid-append) is moved to
  /// `audit.jsonl.torn-<UTC ms>` and cut off; a complete last line that does
  /// not parse is reported in `lastLineProblem` and left in place (never
  /// truncated). The chain head is the last record's hash (a newer version's
  /// record with a `hash` field counts; after corruption, the last record
  /// that parses). The rest of the chain is not read (verify() does).
  /// Creates the directory if missing. The file is opened without following
  /// a symbolic link and tightened to 0600 (review L1). Throws
  /// std::runtime_error on I/O failure, a symbolic link, a non-regular file
  /// or another user's file.
  AuditOpenReport open();

  /// Appends `summary` with `prev` = the last record's hash (kGenesisHash
  /// for the first) and `hash` = computeHash, as one line + '\n', then
  /// fsyncs. Runs open()'s recovery first if open() was not called (its
  /// report is then dropped). On a failed write the partial line is cut off
  /// again. Throws std::runtime_error naming the path on I/O failure.
  /// Thread-safe.
  SessionSummary append(const SessionSummary& summary) override;
  /// Up to `n` most recent well-formed records, newest first; fewer when the
  /// file holds fewer, none when it is missing (recentSessions: read
  /// backwards, bounded). Throws std::runtime_error when the file exists but
  /// cannot be read. Thread-safe.
  std::vector<SessionSummary> recent(std::size_t n) override;

  /// Checks every line of the file at `path`: parse, `prev` link (line 1
  /// against kGenesisHash), `hash`. Stops at nothing: `records` counts every
  /// well-formed line, `firstBadLine`/`problem` name the first problem
  /// ("malformed JSON: ...", "malformed record: ...", "hash mismatch (record
  /// altered)", "prev does not match line N-1's hash", or both joined by
  /// "; "). A last line with no trailing '\n' is not counted and, when
  /// nothing before it is wrong, is the problem "torn last line (a crash
  /// mid-append; the daemon moves it aside on its next start)"; a complete
  /// line that does not parse is malformed wherever it is (issue 19 item 6).
  /// Streams the file: memory is bounded by kMaxAuditLineBytes.
  /// A missing file is an empty, valid chain. Never throws: an
  /// unreadable file gives ok=false, no line, and the reason in `problem`.
  /// Thread-safe (reads only).
  /// With `cancel`, setting it ends the check early (the result is then
  /// partial and should be ignored).
  static AuditVerification verify(const std::string& path,
                                  const std::atomic<bool>* cancel = nullptr);

  /// Full path of audit.jsonl.
  const std::string& path() const { return path_; }

 private:
  /// open() without taking the mutex; the caller holds it.
  AuditOpenReport recoverLocked();

  std::mutex mutex_;
  std::string directory_;
  std::string path_;
  std::string lastHash_;
  bool lastHashKnown_ = false;
};

}  // namespace antidrift
