/// @file ai_cost.h
/// What the AI cost: one role call's tokens and wall time, and their sum per
/// session (issue 18 item 4; docs/DESIGN.md §8 "What the AI costs"). Plain values.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace antidrift {

/// The largest token count one call is believed to have used (docs/SECURITY.md
/// N3): a backend's reported usage is clamped to 0..kMaxCallTokens, so a
/// server that says 2^63 - 1 cannot overflow a session's sum. A real call
/// uses a few thousand.
inline constexpr std::int64_t kMaxCallTokens = 1000000000;

/// `a + b` for counts ≥ 0, saturating at the int64 maximum instead of
/// overflowing (signed overflow is undefined behaviour; docs/SECURITY.md N3).
/// A negative operand counts as 0. Pure; never throws.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  a = std::max<std::int64_t>(a, 0);
  b = std::max<std::int64_t>(b, 0);
  return a > std::numeric_limits<std::int64_t>::max() - b ? std::numeric_limits<std::int64_t>::max()
                                                          : a + b;
}

/// A token count a backend reported, made believable: negative becomes 0,
/// more than kMaxCallTokens becomes kMaxCallTokens (docs/SECURITY.md N3).
/// Pure; never throws.
inline std::int64_t boundedCallTokens(std::int64_t count) {
  return std::clamp<std::int64_t>(count, 0, kMaxCallTokens);
}

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
  /// nothing; each clamped to kMaxCallTokens), its wall time (negative counts
  /// as 0); `estimated` becomes true when the call's counts are estimated and
  /// known. Every sum saturates, never overflows (docs/SECURITY.md N3). Never
  /// throws.
  void add(const CallCost& call) {
    calls = saturatingAdd(calls, 1);
    if (call.inputTokens > 0)
      inputTokens = saturatingAdd(inputTokens, boundedCallTokens(call.inputTokens));
    if (call.outputTokens > 0)
      outputTokens = saturatingAdd(outputTokens, boundedCallTokens(call.outputTokens));
    if (call.estimated && (call.inputTokens >= 0 || call.outputTokens >= 0)) estimated = true;
    if (call.wallMs > 0) wallMs = saturatingAdd(wallMs, call.wallMs);
  }

  /// Adds another session's (or replay run's) sums, saturating (negative
  /// sums count as 0; docs/SECURITY.md N3). Never throws.
  void add(const AiCost& other) {
    calls = saturatingAdd(calls, other.calls);
    inputTokens = saturatingAdd(inputTokens, other.inputTokens);
    outputTokens = saturatingAdd(outputTokens, other.outputTokens);
    estimated = estimated || other.estimated;
    wallMs = saturatingAdd(wallMs, other.wallMs);
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
