/// @file clock.h
/// The injected clock port (DESIGN §1 "Rules of the house"): all time in the
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
  /// backwards. Used for timebox deadlines (DESIGN §2) and health age (§3).
  virtual std::int64_t monotonicMs() const = 0;
};

/// The real clock: std::chrono::system_clock and steady_clock. Thread-safe.
class SystemClock final : public Clock {
 public:
  std::int64_t nowUtcMs() const override;
  std::int64_t monotonicMs() const override;
};

}  // namespace antidrift
