#include "server/notify/episode_tracker.h"

#include <algorithm>

namespace antidrift::notify {
namespace {

std::string ordinal(std::int64_t n) {
  const std::int64_t lastTwo = n % 100;
  const char* suffix = "th";
  if (lastTwo < 11 || lastTwo > 13) {
    switch (n % 10) {
      case 1:
        suffix = "st";
        break;
      case 2:
        suffix = "nd";
        break;
      case 3:
        suffix = "rd";
        break;
      default:
        break;
    }
  }
  return std::to_string(n) + suffix;
}

}  // namespace

std::string EpisodeTracker::runLine(const std::string& name, std::int64_t count,
                                    std::int64_t spanMs) {
  std::string shown = name.rfind("www.", 0) == 0 ? name.substr(4) : name;
  if (!shown.empty() && shown[0] >= 'a' && shown[0] <= 'z') shown[0] = char(shown[0] - 'a' + 'A');
  const std::int64_t minutes = std::max<std::int64_t>(1, (spanMs + 59'999) / 60'000);
  return shown + " — " + ordinal(count) + " drift in " + std::to_string(minutes) + " min";
}

std::string EpisodeTracker::driftTimeLine(std::int64_t driftMs) {
  if (driftMs <= 0) return "";
  const std::int64_t seconds = std::max<std::int64_t>(1, driftMs / 1000);
  if (seconds < 60) return "Drifted " + std::to_string(seconds) + " s this session.";
  return "Drifted " + std::to_string(seconds / 60) + " min this session.";
}

std::optional<std::string> EpisodeTracker::newDriftReason(const State& state, std::int64_t nowMs) {
  const std::string id = state.commitment ? state.commitment->id : std::string();
  if (id != commitmentId_) {
    commitmentId_ = id;
    lastReportedEpisodes_ = 0;
    runCount_ = 0;
  }
  drifting_ =
      state.runtime == RuntimeState::Active && state.drift.status == drift::DriftStatus::Drifting;
  reason_ = drifting_ ? state.drift.reason : std::string();
  if (!drifting_ || state.stats.driftEpisodes <= lastReportedEpisodes_) {
    return std::nullopt;
  }
  lastReportedEpisodes_ = state.stats.driftEpisodes;
  const bool sameRun = notifiedAny_ && runCount_ > 0 && nowMs - lastNotifiedMs_ < runGapMs_;
  if (sameRun) {
    ++runCount_;
  } else {
    runCount_ = 1;
    runStartMs_ = nowMs;
  }
  notifiedAny_ = true;
  lastNotifiedMs_ = nowMs;
  std::string body = state.drift.reason;
  if (runCount_ > 1) {
    const std::string name = !state.drift.site.empty() ? state.drift.site : state.drift.app;
    body = runLine(name.empty() ? std::string("Another distraction") : name, runCount_,
                   nowMs - runStartMs_) +
           (body.empty() ? std::string() : "\n" + body);
  }
  const std::string drifted = driftTimeLine(state.stats.driftMs);
  if (!drifted.empty()) body += (body.empty() ? "" : "\n") + drifted;
  return body;
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
