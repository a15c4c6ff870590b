/// @file episode_tracker.h
/// When a drift deserves a desktop notification (docs/DESIGN.md §4, last
/// paragraph): once per new drift episode of a session. Pure decision, no
/// I/O, so DesktopNotifier's rule is tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "antidrift/session/state.h"

namespace antidrift::notify {

/// Follows the States of the Controller and says which one starts a new
/// drift episode. Not thread-safe: one owner feeds it in order.
class EpisodeTracker {
 public:
  /// `repeatMs`: a drift that lasts is reminded this long after the last
  /// drift notification (notify.repeat_s; 0 = never). `minGapMs`: the rate
  /// limit — a new episode that starts less than this after the last drift
  /// notification is not reported (the reminder still comes). Issue 17 item 2.
  explicit EpisodeTracker(std::int64_t repeatMs = 0, std::int64_t minGapMs = 0)
      : repeatMs_(repeatMs), minGapMs_(minGapMs) {}

  /// The reason of a new drift episode (`state.drift.reason`, verbatim) when
  /// `state` is active, its drift status is "drifting",
  /// `state.stats.driftEpisodes` is above the last episode reported for
  /// this session and the rate limit allows; nullopt otherwise. A new
  /// session (another commitment id) starts counting again. `nowMs`: any
  /// monotonic milliseconds, the same clock as reminder()'s.
  std::optional<std::string> newDriftReason(const State& state, std::int64_t nowMs = 0);

  /// The reason to remind when the last State fed was drifting and
  /// `repeatMs` has passed since the last drift notification (which this
  /// call then counts as now); nullopt otherwise.
  std::optional<std::string> reminder(std::int64_t nowMs);

  /// When reminder() will next answer (the same clock); nullopt when no
  /// reminder is coming (not drifting, or repeat off).
  std::optional<std::int64_t> nextReminderMs() const;

  /// The heads-up text (`state.drift.nudge`) when `state` is active and it
  /// differs from the last heads-up reported in this session; nullopt
  /// otherwise (notify.heads_up, issue 17 item 2).
  std::optional<std::string> newHeadsUp(const State& state);

  /// The next action of a session whose timebox just ran out (issue 7 item
  /// 5): `state` is review with outcome expired and the previous State fed
  /// here was the same session while active. Once per session; a session
  /// that expired while the daemon was down (restored straight into review)
  /// is not announced. Feed every State through both methods, in order.
  std::optional<std::string> timeUpAction(const State& state);

 private:
  std::string timeUpSessionId_;  ///< the session last seen by timeUpAction
  RuntimeState timeUpLastRuntime_ = RuntimeState::Locked;  ///< its runtime then
  std::string commitmentId_;                               ///< the session last seen ("" = none)
  std::int64_t lastReportedEpisodes_ = 0;                  ///< driftEpisodes last reported in it
  std::int64_t repeatMs_ = 0;
  std::int64_t minGapMs_ = 0;
  bool drifting_ = false;            ///< the last State fed was an active drift
  std::string reason_;               ///< its reason
  bool notifiedAny_ = false;         ///< a drift notification was reported
  std::int64_t lastNotifiedMs_ = 0;  ///< when (nowMs of newDriftReason or reminder)
  std::string headsUpSessionId_;     ///< the session last seen by newHeadsUp
  std::string lastHeadsUp_;          ///< the heads-up last reported in it
};

}  // namespace antidrift::notify
