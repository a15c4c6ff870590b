/// @file clock.h
/// The injected clock port (docs/DESIGN.md §1 "Rules of the house"): all time in the
/// core comes through a Clock so tests never sleep.
#pragma once

#include <cstdint>

namespace antidrift {

/// Source of wall-clock and monotonic time. Implementations must be safe to
/// call from any thread.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Wall-clock time, UTC milliseconds since the Unix epoch. May jump.
  virtual std::int64_t nowUtcMs() const = 0;
  /// Monotonic time in milliseconds from an arbitrary origin; never goes
  /// backwards and stops while the machine is suspended (CLOCK_MONOTONIC).
  /// Used for session durations (issue 9 item 2), health age (docs/DESIGN.md §3) and
  /// debounces.
  virtual std::int64_t monotonicMs() const = 0;
  /// Like monotonicMs() but also counting time the machine was suspended
  /// (CLOCK_BOOTTIME), from the same origin at boot: bootMs() − monotonicMs()
  /// grows by exactly the time spent suspended. Used for the timebox deadline,
  /// which a suspend does not postpone (issue 9 item 2). The default, for a
  /// clock that knows no suspend, is monotonicMs().
  virtual std::int64_t bootMs() const { return monotonicMs(); }
};

/// The real clock: std::chrono::system_clock, steady_clock (CLOCK_MONOTONIC
/// on Linux) and clock_gettime(CLOCK_BOOTTIME). Thread-safe.
class SystemClock final : public Clock {
 public:
  std::int64_t nowUtcMs() const override;
  std::int64_t monotonicMs() const override;
  std::int64_t bootMs() const override;
};

}  // namespace antidrift
