/// @file epoch.h
/// The generation guard of every asynchronous call (docs/DESIGN.md §6, issue 15
/// item 4): a counter whose advance makes results launched earlier stale. It
/// lives at the top of core so that the drift engine and the session layer can
/// both use it without the drift engine depending on session/ (the launch
/// itself, launchGuarded and AsyncSlot, stays in session/async_slot.h).
#pragma once

#include <atomic>
#include <cstdint>

namespace antidrift {

/// The generation guard: a counter that, once advanced, makes every result
/// launched under an older value stale. NOT synchronised: call it with the
/// owner's mutex held (the mutex given to launchGuarded).
///
/// Generations are drawn from one process-wide counter, so a value is never
/// handed out twice: when the owner rolls its state back to a copy taken
/// earlier (the Controller does when a snapshot write fails, issue 9), work
/// launched after that copy can never match a later generation.
class Epoch {
 public:
  /// The current generation; capture it when launching.
  std::uint64_t current() const { return value_; }
  /// Makes every in-flight result stale; returns the new generation, one no
  /// Epoch in the process held before. Thread-safe counter.
  std::uint64_t advance() {
    static std::atomic<std::uint64_t> next{0};
    value_ = ++next;
    return value_;
  }
  /// True while nothing advanced the epoch since `token` was taken.
  bool isCurrent(std::uint64_t token) const { return token == value_; }

 private:
  std::uint64_t value_ = 0;
};

}  // namespace antidrift
