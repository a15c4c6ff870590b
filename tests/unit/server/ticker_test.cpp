#include "server/ticker.h"

#include <atomic>
#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

#include "mocks/fake_clock.h"

namespace antidrift {
namespace {

using namespace std::chrono_literals;

/// Counts tick() calls and lets the test wait for them.
class TickCounter {
 public:
  void tick() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++ticks_;
    }
    changed_.notify_all();
  }
  bool waitForTicks(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, 5s, [&] { return ticks_ >= count; });
  }
  int ticks() {
    std::lock_guard<std::mutex> lock(mutex_);
    return ticks_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int ticks_ = 0;
};

TEST(Ticker, TicksWhenTheDueTimeHasCome) {
  test::FakeClock clock;
  TickCounter counter;
  std::atomic<std::int64_t> due{clock.monotonicMs()};
  Ticker ticker(
      clock, [&]() -> std::optional<std::int64_t> { return due.load(); },
      [&] {
        due = clock.monotonicMs() + 3'600'000;  // the next deadline is an hour away
        counter.tick();
      },
      1h);
  ticker.start();
  EXPECT_TRUE(counter.waitForTicks(1));
  ticker.stop();
  EXPECT_EQ(counter.ticks(), 1);
}

TEST(Ticker, WakeRereadsTheSchedule) {
  test::FakeClock clock;
  TickCounter counter;
  std::mutex mutex;
  std::optional<std::int64_t> due;  // nothing scheduled at first
  Ticker ticker(
      clock,
      [&] {
        std::lock_guard<std::mutex> lock(mutex);
        return due;
      },
      [&] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          due.reset();
        }
        counter.tick();
      },
      1h);
  ticker.start();
  {
    std::lock_guard<std::mutex> lock(mutex);
    due = clock.monotonicMs();
  }
  ticker.wake();  // without this the ticker would sleep for the idle hour
  EXPECT_TRUE(counter.waitForTicks(1));
}

/// Counts the ticker's readings of a schedule whose due time is an hour away
/// (on a FakeClock that does not move) and lets the test wait for them.
class ScheduleReadings {
 public:
  explicit ScheduleReadings(const test::FakeClock& clock) : due_(clock.monotonicMs() + 3'600'000) {}
  std::optional<std::int64_t> read() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++readings_;
    }
    changed_.notify_all();
    return due_;
  }
  bool waitForReadings(int count, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return readings_ >= count; });
  }

 private:
  const std::int64_t due_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int readings_ = 0;
};

TEST(Ticker, WhileADeadlineMayBeOnTheBootClockAFarDueTimeIsReReadEveryFiveSeconds) {
  test::FakeClock clock;
  ScheduleReadings schedule(clock);
  Ticker ticker(
      clock, [&] { return schedule.read(); }, [] {}, std::nullopt, [] { return true; });
  ticker.start();
  ASSERT_TRUE(schedule.waitForReadings(1, 5s));
  // A suspend stops monotonic time: the schedule is read again after 5 s, not an hour.
  EXPECT_TRUE(schedule.waitForReadings(2, 7s));
}

TEST(Ticker, OtherwiseAFarDueTimeIsWaitedForInOnePieceWithoutWakingUp) {
  test::FakeClock clock;
  ScheduleReadings schedule(clock);
  Ticker ticker(
      clock, [&] { return schedule.read(); }, [] {}, std::nullopt, [] { return false; });
  ticker.start();
  ASSERT_TRUE(schedule.waitForReadings(1, 5s));
  // All due times are monotonic (health, writes): no re-read every 5 s (issue 8).
  EXPECT_FALSE(schedule.waitForReadings(2, 5500ms));
}

TEST(Ticker, WakeIfSoonerWakesOnlyForAnEarlierDueTime) {
  test::FakeClock clock;
  TickCounter counter;
  std::mutex mutex;
  std::condition_variable readChanged;
  int readings = 0;
  std::optional<std::int64_t> due = clock.monotonicMs() + 3'600'000;  // an hour away
  const auto waitForReadings = [&](int count, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex);
    return readChanged.wait_for(lock, timeout, [&] { return readings >= count; });
  };
  Ticker ticker(
      clock,
      [&] {
        std::optional<std::int64_t> now;
        {
          std::lock_guard<std::mutex> lock(mutex);
          ++readings;
          now = due;
        }
        readChanged.notify_all();
        return now;
      },
      [&] {
        {
          std::lock_guard<std::mutex> lock(mutex);
          due.reset();
        }
        counter.tick();
      },
      std::nullopt, [] { return false; });
  ticker.start();
  ASSERT_TRUE(waitForReadings(1, 5s));
  // While it reads the schedule any due time wakes it; once it sleeps towards the hour:
  ASSERT_TRUE(ticker.waitForTimedWaitForTest(5s));
  // a later due time, or none, is no reason to wake (a window switch).
  ticker.wakeIfSooner(clock.monotonicMs() + 7'200'000);
  ticker.wakeIfSooner(std::nullopt);
  EXPECT_FALSE(waitForReadings(2, 500ms));
  // An earlier one is: the schedule is read again and the tick comes now.
  {
    std::lock_guard<std::mutex> lock(mutex);
    due = clock.monotonicMs();
  }
  ticker.wakeIfSooner(clock.monotonicMs());
  EXPECT_TRUE(counter.waitForTicks(1));
}

TEST(Ticker, StopIsIdempotentAndWorksBeforeStart) {
  test::FakeClock clock;
  Ticker ticker(
      clock, [] { return std::optional<std::int64_t>(); }, [] {}, 1h);
  ticker.stop();
  ticker.stop();
}

}  // namespace
}  // namespace antidrift
