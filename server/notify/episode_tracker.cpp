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

}  // namespace antidrift::notify
