#include "antidrift/evidence/stats.h"

#include <algorithm>

namespace antidrift {

std::vector<std::pair<std::string, std::int64_t>> SessionStats::topBucketsSecs(
    std::size_t n) const {
  std::vector<std::pair<std::string, std::int64_t>> top;
  top.reserve(bucketsMs.size());
  for (const auto& [app, ms] : bucketsMs) top.emplace_back(app, ms / 1000);
  std::stable_sort(top.begin(), top.end(), [&](const auto& a, const auto& b) {
    const auto msA = bucketsMs.at(a.first);
    const auto msB = bucketsMs.at(b.first);
    return msA != msB ? msA > msB : a.first < b.first;
  });
  if (top.size() > n) top.resize(n);
  return top;
}

StatsAccumulator::StatsAccumulator(std::int64_t idleAfterMs) : idleAfterMs_(idleAfterMs) {}

void StatsAccumulator::resume(const SessionStats& stats) {
  stats_ = stats;
  last_.reset();
  creditedUntilMs_ = 0;
  away_ = false;
}

void StatsAccumulator::credit(std::int64_t untilMs) {
  if (untilMs <= creditedUntilMs_) return;
  if (last_ && !away_) {
    const std::int64_t gap = untilMs - creditedUntilMs_;
    stats_.bucketsMs[last_->app] += std::min(gap, idleAfterMs_);
  }
  creditedUntilMs_ = untilMs;
}

void StatsAccumulator::observe(const Observation& obs) {
  const std::int64_t at = std::max(obs.atMs, creditedUntilMs_);
  if (last_) {
    credit(at);
    if (last_->app != obs.app) stats_.switches += 1;
  } else {
    creditedUntilMs_ = at;
  }
  last_ = obs;
  last_->atMs = at;
}

void StatsAccumulator::setAway(bool away, std::int64_t atMs) {
  if (away == away_) return;
  if (away) {
    credit(atMs);
    away_ = true;
  } else {
    if (atMs > creditedUntilMs_) {
      stats_.awayMs += atMs - creditedUntilMs_;
      creditedUntilMs_ = atMs;
    }
    away_ = false;
  }
}

void StatsAccumulator::settle(std::int64_t atMs) {
  if (away_ && atMs > creditedUntilMs_) {
    stats_.awayMs += atMs - creditedUntilMs_;
    creditedUntilMs_ = atMs;
    return;
  }
  credit(atMs);
}

}  // namespace antidrift
