/// @file episode_tracker.h
/// When a drift deserves a desktop notification (DESIGN §4, last
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
  /// The reason of a new drift episode (`state.drift.reason`, verbatim) when
  /// `state` is active, its drift status is "drifting" and
  /// `state.stats.driftEpisodes` is above the last episode reported for
  /// this session; nullopt otherwise. A new session (another commitment id)
  /// starts counting again.
  std::optional<std::string> newDriftReason(const State& state);

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
};

}  // namespace antidrift::notify
