/// @file fake_clock.h
/// A Clock for tests: time moves only when the test says so.
#pragma once

#include <atomic>
#include <cstdint>

#include "antidrift/clock.h"

namespace antidrift::test {

/// Wall, monotonic and boot time that advance together on advance();
/// setUtcMs() jumps the wall clock alone (as a clock change would);
/// suspend() moves wall and boot time but not monotonic time (as a laptop
/// suspend does). Thread-safe.
class FakeClock final : public Clock {
 public:
  /// Starts at `utcMs` (UTC ms) and monotonic `monoMs`.
  explicit FakeClock(std::int64_t utcMs = 1'780'000'000'000, std::int64_t monoMs = 1'000'000)
      : utc_(utcMs), mono_(monoMs), boot_(monoMs) {}
  std::int64_t nowUtcMs() const override { return utc_.load(); }
  std::int64_t monotonicMs() const override { return mono_.load(); }
  std::int64_t bootMs() const override { return boot_.load(); }
  /// Moves all clocks forward by `ms` milliseconds.
  void advance(std::int64_t ms) {
    utc_ += ms;
    mono_ += ms;
    boot_ += ms;
  }
  /// The machine sleeps `ms` milliseconds: monotonic time stands still.
  void suspend(std::int64_t ms) {
    utc_ += ms;
    boot_ += ms;
  }
  /// Sets the wall clock only.
  void setUtcMs(std::int64_t utcMs) { utc_ = utcMs; }

 private:
  std::atomic<std::int64_t> utc_;
  std::atomic<std::int64_t> mono_;
  std::atomic<std::int64_t> boot_;
};

}  // namespace antidrift::test
