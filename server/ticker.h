/// @file ticker.h
/// Drives the Controller's timers (docs/DESIGN.md §2 "timebox reached", §3 health):
/// sleeps until the next due time, then calls tick().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "antidrift/clock.h"

namespace antidrift {

/// One background thread ("ad-ticker") that waits on a condition variable until
/// `nextWake()` (monotonic ms of `clock`), or, when nothing is scheduled,
/// `idleWait` if given — by default it then sleeps until wake(), so an idle
/// daemon's ticker never wakes up (issue 8 item 3) — or until wake() is
/// called (after every state change or deferred write), and
/// then calls `tick()` when the due time has come. A due time that tick()
/// did not move is retried no sooner than 1 s later, so a stuck timer
/// cannot spin. While a due time may be on the boot clock (an active
/// session's deadline) no wait is longer than 5 s: monotonic time stops
/// during a suspend, and the schedule is re-read that often so a deadline
/// that passed while suspended is applied soon after the resume (issue 9
/// item 2).
/// start/stop/wake are thread-safe.
class Ticker {
 public:
  /// Monotonic ms at which tick() has work, or nullopt (Controller::nextWakeMonotonicMs).
  using NextWake = std::function<std::optional<std::int64_t>()>;
  /// Applies what is due (Controller::tick).
  using Tick = std::function<void()>;
  /// Whether the due time may be kept on the boot clock (the daemon: an
  /// active session's deadline); only then is a wait cut to 5 s.
  using BootClockPending = std::function<bool()>;

  /// `clock` must outlive the Ticker; `idleWait`: how long to wait when
  /// nothing is scheduled before re-reading nextWake(); nullopt (the
  /// daemon's choice) waits for wake() alone. `bootClockPending`: when it
  /// says false, a due time is waited for in one piece (all monotonic, so a
  /// suspend cannot make it late) and an idle daemon's ticker does not wake
  /// every 5 s; nullptr cuts every wait to 5 s.
  Ticker(const Clock& clock, NextWake nextWake, Tick tick,
         std::optional<std::chrono::milliseconds> idleWait = std::nullopt,
         BootClockPending bootClockPending = nullptr);
  ~Ticker();  ///< stops and joins
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

  /// Starts the thread. Call at most once.
  void start();
  /// Re-reads nextWake() now (call after every state change). Never blocks
  /// for long; safe from the Controller's change listener.
  void wake();
  /// wake(), but only when `dueMonotonicMs` (nextWake() as the caller just
  /// read it) is sooner than the time the thread is waiting for, or the thread
  /// is not waiting (it is reading the schedule or ticking). The daemon's
  /// change listener calls this: most changes (a window switch) move no due
  /// time earlier, and a wake-up of the thread per change cost a context
  /// switch and a contended Controller lock each (issue 8 item 2). A due time
  /// that moved later is found when the thread wakes for the earlier one.
  void wakeIfSooner(std::optional<std::int64_t> dueMonotonicMs);
  /// Stops and joins the thread. Idempotent.
  void stop();

  /// Tests only: waits at most `timeout` until the thread is in a timed wait
  /// (it has read the schedule and sleeps towards a due time); true if it is.
  bool waitForTimedWaitForTest(std::chrono::milliseconds timeout);

 private:
  void run();

  const Clock& clock_;
  NextWake nextWake_;
  Tick tick_;
  std::optional<std::chrono::milliseconds> idleWait_;
  BootClockPending bootClockPending_;

  std::mutex mutex_;
  std::condition_variable wakeUp_;
  std::condition_variable waitingChanged_;  ///< notified when a timed wait begins
  std::uint64_t generation_ = 0;
  /// Monotonic ms the thread's timed wait ends at; INT64_MAX while it is not
  /// in a timed wait (reading the schedule, ticking, or waiting for wake()).
  std::int64_t waitingUntil_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace antidrift
