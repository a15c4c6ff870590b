#include "antidrift/evidence/stats.h"

#include <algorithm>
#include <string_view>

namespace antidrift {
namespace {

// What normalizeApp() names an empty window class.
constexpr std::string_view kUnknownApp = "unknown";

}  // namespace

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
  lastKnownApp_.reset();
  creditedUntilMs_ = 0;
  away_ = false;
}

void StatsAccumulator::credit(std::int64_t untilMs) {
  if (untilMs <= creditedUntilMs_) return;
  const std::int64_t gap = untilMs - creditedUntilMs_;
  if (away_) {
    stats_.awayMs += gap;  // the person was away: never a bucket, never dropped
  } else if (last_) {
    stats_.bucketsMs[bucketFor(stats_.bucketsMs, last_->app)] += std::min(gap, idleAfterMs_);
  }
  creditedUntilMs_ = untilMs;
}

void StatsAccumulator::observe(const Observation& obs) {
  const std::int64_t at = std::max(obs.atMs, creditedUntilMs_);
  if (obs.app != kUnknownApp) {  // an unreadable window is no switch, to or from it
    if (lastKnownApp_ && *lastKnownApp_ != obs.app) stats_.switches += 1;
    lastKnownApp_ = obs.app;
  }
  if (last_ || away_) {
    credit(at);
  } else {
    creditedUntilMs_ = at;  // the first evidence: nothing before it to credit
  }
  last_ = obs;
  last_->atMs = at;
}

void StatsAccumulator::setAway(bool away, std::int64_t atMs) {
  if (away == away_) return;
  credit(atMs);  // up to now the time belongs to the state we are leaving
  away_ = away;
}

void StatsAccumulator::settle(std::int64_t atMs) {
  credit(atMs);
}

}  // namespace antidrift
