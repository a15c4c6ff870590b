/// @file stats.h
/// Time-per-app buckets and switch counts for the active session (docs/DESIGN.md §3 "Stats").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "antidrift/domain/ai_cost.h"
#include "antidrift/evidence/observation.h"

namespace antidrift {

/// Distinct apps with a bucket of their own per session (issue 19 item 7,
/// review L12): time in any further app goes to kOtherApp, so a watcher that
/// invents classes cannot grow memory, every State or every snapshot, and
/// the buckets still add up to the time credited.
inline constexpr std::size_t kMaxSessionApps = 256;
/// The bucket that takes the time of apps beyond kMaxSessionApps.
inline constexpr const char* kOtherApp = "other";

/// Drift reasons kept per session (SessionStats::driftReasons).
inline constexpr std::size_t kMaxDriftReasons = 20;

/// Statistics of one session. Values are plain data, copied freely.
struct SessionStats {
  /// app → time spent, ms (away excluded); at most kMaxSessionApps apps plus
  /// kOtherApp.
  std::map<std::string, std::int64_t> bucketsMs;
  std::int64_t switches = 0;       ///< changes of known app (an "unknown" window is none)
  std::int64_t driftEpisodes = 0;  ///< times drift status became "drifting"
  std::int64_t driftMs = 0;        ///< time spent drifting, ms
  std::int64_t awayMs = 0;         ///< time the person was away, ms
  /// Time the machine was suspended during the session, ms (CLOCK_BOOTTIME −
  /// CLOCK_MONOTONIC; issue 9 item 2): counted in no bucket, not as drift.
  std::int64_t suspendedMs = 0;
  /// "This is on task" presses: drift verdicts the person corrected (the
  /// false-positive count, issue 6 item 6).
  std::int64_t corrections = 0;
  /// The reasons of the drift episodes, oldest first; at most kMaxDriftReasons.
  std::vector<std::string> driftReasons;
  /// AI calls made this session by role ("coach", "judge", "nudge", "reviewer").
  std::map<std::string, std::int64_t> aiCalls;
  /// What those calls cost: tokens and wall time summed (issue 18 item 4).
  AiCost aiCost;

  /// The `n` largest buckets, largest first, in whole seconds (ties by name).
  std::vector<std::pair<std::string, std::int64_t>> topBucketsSecs(std::size_t n) const;
};

/// The key `app`'s time goes to in `buckets`: `app` itself when it has a
/// bucket or there are fewer than kMaxSessionApps apps besides kOtherApp,
/// else kOtherApp (issue 19 item 7). Works for any app → value map. Pure.
template <typename Value>
std::string bucketFor(const std::map<std::string, Value>& buckets, const std::string& app) {
  if (buckets.count(app) != 0) return app;
  const std::size_t own = buckets.size() - buckets.count(kOtherApp);
  return own < kMaxSessionApps ? app : std::string(kOtherApp);
}

/// Accumulates SessionStats from a stream of observations (docs/DESIGN.md §3).
///
/// Time between two observations is credited to the earlier one's app, but
/// only up to `idleAfterMs`: a longer gap means the evidence was gone, and
/// the excess is not counted. Time while away goes to `awayMs`, never into a
/// bucket (docs/DESIGN.md §3), so buckets + away add up to the session wherever
/// evidence was fresh. A switch is a change of *known* app: an observation
/// whose app is "unknown" (an empty class) is never a switch, and the next
/// known app is compared with the last known one, so code → unknown → code is
/// no switch and code → unknown → firefox is one (issue 6 item 3: a class that
/// appears a moment after an empty one on the same window is not a switch).
/// Not thread-safe: the Controller owns one under its mutex.
class StatsAccumulator {
 public:
  /// `idleAfterMs`: the largest gap credited to a bucket (evidence.idle_after_s × 1000).
  explicit StatsAccumulator(std::int64_t idleAfterMs);

  /// Starts from earlier stats (restore after a restart). Nothing is
  /// credited until the next observation: the time the daemon was down is
  /// not counted.
  void resume(const SessionStats& stats);

  /// Records an observation at `obs.atMs` (UTC ms); counts a switch when its
  /// known app differs from the last known app. Observations older than the
  /// last one are ignored for time credit.
  void observe(const Observation& obs);

  /// Marks the person away (`away` true) or back at `atMs` (UTC ms). Time up
  /// to `atMs` is credited to the state being left: the current app before
  /// going away, `awayMs` before coming back.
  void setAway(bool away, std::int64_t atMs);

  /// Credits the current app up to `atMs` without a new observation (used
  /// when the session ends). Idempotent for the same `atMs`.
  void settle(std::int64_t atMs);

  /// Adds drift bookkeeping (called by the Controller).
  void addDriftEpisode() { stats_.driftEpisodes += 1; }
  void addDriftMs(std::int64_t ms) { stats_.driftMs += ms; }
  /// Keeps the reason of a new drift episode (the first kMaxDriftReasons).
  void addDriftReason(const std::string& reason) {
    if (stats_.driftReasons.size() < kMaxDriftReasons) stats_.driftReasons.push_back(reason);
  }
  /// Counts one "This is on task" correction.
  void addCorrection() { stats_.corrections += 1; }
  /// Sets the time suspended during the session so far, ms (the Controller
  /// measures it from its Clock; issue 9 item 2).
  void setSuspendedMs(std::int64_t ms) { stats_.suspendedMs = ms; }
  /// Counts one AI call of `role` (e.g. "judge").
  void addAiCall(const std::string& role) { stats_.aiCalls[role] += 1; }
  /// Adds what one AI call cost (tokens, wall time; issue 18 item 4).
  void addAiCost(const CallCost& call) { stats_.aiCost.add(call); }
  /// Adds the sums of several calls (the coach's, made while planning).
  void addAiCost(const AiCost& cost) { stats_.aiCost.add(cost); }

  const SessionStats& stats() const { return stats_; }
  bool away() const { return away_; }

 private:
  void credit(std::int64_t untilMs);

  std::int64_t idleAfterMs_;
  SessionStats stats_;
  std::optional<Observation> last_;
  std::optional<std::string> lastKnownApp_;  ///< the last app that was not "unknown"
  std::int64_t creditedUntilMs_ = 0;
  bool away_ = false;
};

}  // namespace antidrift
