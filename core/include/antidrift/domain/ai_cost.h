/// @file ai_cost.h
/// What the AI cost: one role call's tokens and wall time, and their sum per
/// session (issue 18 item 4; docs/DESIGN.md §8 "What the AI costs"). Plain values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace antidrift {

/// What one role call to the model used. Filled by the AI roles (coach,
/// judge, nudge, reviewer) from the backend's Usage and their own stopwatch.
struct CallCost {
  std::int64_t inputTokens = -1;   ///< prompt tokens; -1 when unknown (the call failed)
  std::int64_t outputTokens = -1;  ///< answer tokens; -1 when unknown
  /// True when the counts are the characters / 4 estimate (the CLIs), false
  /// when the model's server reported them.
  bool estimated = false;
  std::int64_t wallMs = 0;  ///< wall time of the call, ms (≥ 0), failures included
};

/// The AI cost of one session: every role call's tokens and wall time summed
/// (issue 18 item 4). State `stats.ai_cost`, the snapshot, the review, the
/// history and the export carry it. Not thread-safe; guarded by its owner.
struct AiCost {
  std::int64_t calls = 0;         ///< role calls that reached the backend (failed ones too)
  std::int64_t inputTokens = 0;   ///< sum of the known prompt tokens
  std::int64_t outputTokens = 0;  ///< sum of the known answer tokens
  /// True when any summed count was an estimate (characters / 4).
  bool estimated = false;
  std::int64_t wallMs = 0;  ///< sum of the calls' wall time, ms

  /// Adds one call: calls + 1, its known token counts (unknown, -1, adds
  /// nothing), its wall time (negative counts as 0); `estimated` becomes true
  /// when the call's counts are estimated and known. Never throws.
  void add(const CallCost& call) {
    calls += 1;
    if (call.inputTokens > 0) inputTokens += call.inputTokens;
    if (call.outputTokens > 0) outputTokens += call.outputTokens;
    if (call.estimated && (call.inputTokens >= 0 || call.outputTokens >= 0)) estimated = true;
    if (call.wallMs > 0) wallMs += call.wallMs;
  }

  /// Adds another session's (or replay run's) sums. Never throws.
  void add(const AiCost& other) {
    calls += other.calls;
    inputTokens += other.inputTokens;
    outputTokens += other.outputTokens;
    estimated = estimated || other.estimated;
    wallMs += other.wallMs;
  }

  /// Field-wise equality (tests, snapshots).
  bool operator==(const AiCost& other) const {
    return calls == other.calls && inputTokens == other.inputTokens &&
           outputTokens == other.outputTokens && estimated == other.estimated &&
           wallMs == other.wallMs;
  }
  /// Field-wise inequality.
  bool operator!=(const AiCost& other) const { return !(*this == other); }
};

/// The nearest-rank `percent` percentile (1…100) of `valuesMs`: the smallest
/// value with at least `percent` % of the values at or below it; 0 for an
/// empty list. For the replay's judge latency p50/p99 (issue 18 item 4). Pure.
inline std::int64_t percentileMs(std::vector<std::int64_t> valuesMs, int percent) {
  if (valuesMs.empty()) return 0;
  std::sort(valuesMs.begin(), valuesMs.end());
  const int clamped = std::clamp(percent, 1, 100);
  // rank = ceil(percent / 100 × n), 1-based
  const std::size_t rank = (static_cast<std::size_t>(clamped) * valuesMs.size() + 99) / 100;
  return valuesMs[std::max<std::size_t>(rank, 1) - 1];
}

}  // namespace antidrift
