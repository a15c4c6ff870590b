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

TEST(Ticker, StopIsIdempotentAndWorksBeforeStart) {
  test::FakeClock clock;
  Ticker ticker(
      clock, [] { return std::optional<std::int64_t>(); }, [] {}, 1h);
  ticker.stop();
  ticker.stop();
}

}  // namespace
}  // namespace antidrift
