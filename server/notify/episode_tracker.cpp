#include "server/notify/episode_tracker.h"

namespace antidrift::notify {

std::optional<std::string> EpisodeTracker::newDriftReason(const State& state) {
  const std::string id = state.commitment ? state.commitment->id : std::string();
  if (id != commitmentId_) {
    commitmentId_ = id;
    lastReportedEpisodes_ = 0;
  }
  if (state.runtime != RuntimeState::Active || state.drift.status != "drifting" ||
      state.stats.driftEpisodes <= lastReportedEpisodes_) {
    return std::nullopt;
  }
  lastReportedEpisodes_ = state.stats.driftEpisodes;
  return state.drift.reason;
}

std::optional<std::string> EpisodeTracker::timeUpAction(const State& state) {
  const std::string id = state.commitment ? state.commitment->id : std::string();
  const bool wasActive = id == timeUpSessionId_ && timeUpLastRuntime_ == RuntimeState::Active;
  timeUpSessionId_ = id;
  timeUpLastRuntime_ = state.runtime;
  if (!wasActive || state.runtime != RuntimeState::Review || state.outcome != Outcome::Expired) {
    return std::nullopt;
  }
  return state.commitment->nextAction;
}

}  // namespace antidrift::notify
