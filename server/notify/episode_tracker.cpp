#include "server/notify/episode_tracker.h"

namespace antidrift::notify {

std::optional<std::string> EpisodeTracker::newDriftReason(const State& state, std::int64_t nowMs) {
  const std::string id = state.commitment ? state.commitment->id : std::string();
  if (id != commitmentId_) {
    commitmentId_ = id;
    lastReportedEpisodes_ = 0;
  }
  drifting_ =
      state.runtime == RuntimeState::Active && state.drift.status == drift::DriftStatus::Drifting;
  reason_ = drifting_ ? state.drift.reason : std::string();
  if (!drifting_ || state.stats.driftEpisodes <= lastReportedEpisodes_) {
    return std::nullopt;
  }
  lastReportedEpisodes_ = state.stats.driftEpisodes;
  if (notifiedAny_ && nowMs - lastNotifiedMs_ < minGapMs_) {
    return std::nullopt;  // rate limit: the reminder covers it
  }
  notifiedAny_ = true;
  lastNotifiedMs_ = nowMs;
  return state.drift.reason;
}

std::optional<std::int64_t> EpisodeTracker::nextReminderMs() const {
  if (!drifting_ || repeatMs_ <= 0 || !notifiedAny_) return std::nullopt;
  return lastNotifiedMs_ + repeatMs_;
}

std::optional<std::string> EpisodeTracker::reminder(std::int64_t nowMs) {
  const std::optional<std::int64_t> due = nextReminderMs();
  if (!due || nowMs < *due) return std::nullopt;
  lastNotifiedMs_ = nowMs;
  return reason_;
}

std::optional<std::string> EpisodeTracker::newHeadsUp(const State& state) {
  const std::string id = state.commitment ? state.commitment->id : std::string();
  if (id != headsUpSessionId_) {
    headsUpSessionId_ = id;
    lastHeadsUp_.clear();
  }
  if (state.runtime != RuntimeState::Active || state.drift.nudge.empty() ||
      state.drift.nudge == lastHeadsUp_) {
    return std::nullopt;
  }
  lastHeadsUp_ = state.drift.nudge;
  return lastHeadsUp_;
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
