/// @file focus_tally.h
/// Where the drift went and the longest on-task stretch of one session (issue
/// 17 item 5, "a review that teaches"; docs/DESIGN.md §7 "What the review shows"):
/// drifting time and visits per site or app, accumulated exactly as time
/// passes (the timeline's spans are merged and bounded, so they cannot say
/// it). I/O-free; the Controller owns one beside its Timeline and feeds it
/// at the same points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "antidrift/evidence/timeline.h"

namespace antidrift {

/// Drift at one site or app over a session.
struct SiteDrift {
  std::string where;         ///< the site ("youtube.com", "youtube") or, with none, the app
  std::int64_t driftMs = 0;  ///< ms drifting there
  std::int64_t visits = 0;   ///< times drifting arrived there from anything else

  bool operator==(const SiteDrift& other) const {
    return where == other.where && driftMs == other.driftMs && visits == other.visits;
  }
};

/// An on-task stretch: on-task time not broken by drift or by being away.
struct OnTaskStretch {
  std::int64_t onTaskMs = 0;  ///< on-task ms counted in it (paused time not included)
  std::int64_t startMs = 0;   ///< UTC ms its first on-task time began; 0 when empty
  std::int64_t endMs = 0;     ///< UTC ms its last on-task time ended; 0 when empty

  bool operator==(const OnTaskStretch& other) const {
    return onTaskMs == other.onTaskMs && startMs == other.startMs && endMs == other.endMs;
  }
};

/// What a FocusTally holds, as plain data (the snapshot keeps it across a
/// restart; the session summary keeps sites and longest).
struct FocusState {
  std::vector<SiteDrift> sites;  ///< in the order first drifted to
  OnTaskStretch longest;         ///< the longest stretch so far
  OnTaskStretch current;         ///< the stretch still open (may become the longest)
  /// false: the session began before the tally existed (restored from an
  /// older snapshot), so its figures are unknown, not 0.
  bool complete = true;

  bool operator==(const FocusState& other) const {
    return sites == other.sites && longest == other.longest && current == other.current &&
           complete == other.complete;
  }
};

/// The rule (docs/DESIGN.md §7 "What the review shows", issue 17 item 5):
/// - drifting time goes to the site or app the drift was about; a visit is
///   counted when drifting begins there — from on task, unknown, neutral,
///   away or drifting elsewhere — and a heartbeat or another page of the
///   same site is the same visit;
/// - an on-task stretch counts on-task time only; drifting or away ends it;
///   neutral time (AntiDrift's own page) and unknown time (judging, evidence
///   not ok) pause it: they neither end it nor count in it.
/// Not thread-safe: the Controller owns one under its mutex. Times are UTC ms;
/// a time earlier than the last one counts as the last one.
class FocusTally {
 public:
  /// Distinct sites kept; the drift of any further one goes to kOtherSite.
  static constexpr std::size_t kMaxSites = 64;
  /// The entry that takes the drift of sites beyond kMaxSites.
  static constexpr const char* kOtherSite = "other";

  /// From `atMs` on the person is in `status`, drifting at `where` when
  /// `status` is Drifting (ignored otherwise): the time since the last
  /// record is credited to what it was, then the new status starts.
  /// `continuing`: this drift goes on from before a restart (the window the
  /// daemon stopped in, drift::Engine::continuesStay; issue 17 item 4), so
  /// it is no new visit.
  void record(std::int64_t atMs, SpanStatus status, const std::string& where,
              bool continuing = false);
  /// Credits the time up to `atMs` (the session ends or stops); no new status.
  void extendTo(std::int64_t atMs);
  /// Starts from stored state (restore after a restart): nothing is credited
  /// for the time the daemon was down; the next record() starts the clock.
  void restore(FocusState state);
  /// Empty again.
  void clear();

  /// Everything, for the snapshot.
  const FocusState& state() const { return state_; }
  /// Per-site drift, most drifting time first (ties: most visits, then name),
  /// at most `n`.
  std::vector<SiteDrift> topSites(std::size_t n) const;
  /// The longest on-task stretch (the open one included).
  const OnTaskStretch& longest() const { return state_.longest; }

 private:
  void credit(std::int64_t untilMs);
  SiteDrift& siteFor(const std::string& where);

  FocusState state_;
  bool open_ = false;  ///< a status is running since lastMs_
  std::int64_t lastMs_ = 0;
  SpanStatus status_ = SpanStatus::Unknown;
  std::string where_;
  /// Where a drift was when AntiDrift's own page came in front (neutral):
  /// going back there is the same visit, not a new one.
  std::string pausedWhere_;
};

}  // namespace antidrift
