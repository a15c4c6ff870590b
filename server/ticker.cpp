#include "server/ticker.h"

#include <algorithm>
#include <limits>

#include "antidrift/thread_name.h"

namespace antidrift {

namespace {
/// Least wait before retrying a due time that tick() left unchanged.
constexpr std::int64_t kRetryMs = 1000;
/// Longest wait while a due time may be on the boot clock (an active
/// session's deadline): monotonic time stands still while the machine is suspended,
/// so a wait towards a monotonic due time would outlast a resume by the whole
/// suspend; re-reading the schedule this often lets a deadline that passed
/// during a suspend (the Controller keeps it on the boot clock) expire within
/// this long of the resume (issue 9 item 2).
constexpr std::chrono::milliseconds kLongestWait{5000};
/// Ticker::waitingUntil_ when the thread is not in a timed wait.
constexpr std::int64_t kNotWaiting = std::numeric_limits<std::int64_t>::max();
}  // namespace

Ticker::Ticker(const Clock& clock, NextWake nextWake, Tick tick,
               std::optional<std::chrono::milliseconds> idleWait, BootClockPending bootClockPending)
    : clock_(clock),
      nextWake_(std::move(nextWake)),
      tick_(std::move(tick)),
      idleWait_(idleWait),
      bootClockPending_(std::move(bootClockPending)),
      waitingUntil_(kNotWaiting) {}

Ticker::~Ticker() {
  stop();
}

void Ticker::start() {
  thread_ = std::thread([this] {
    setCurrentThreadName("ad-ticker");
    run();
  });
}

void Ticker::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++generation_;
  }
  wakeUp_.notify_all();
}

void Ticker::wakeIfSooner(std::optional<std::int64_t> dueMonotonicMs) {
  if (!dueMonotonicMs) {
    return;  // nothing scheduled: the thread's own wait re-reads the schedule soon enough
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (*dueMonotonicMs >= waitingUntil_) {
      return;
    }
    ++generation_;
  }
  wakeUp_.notify_all();
}

bool Ticker::waitForTimedWaitForTest(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return waitingChanged_.wait_for(lock, timeout, [this] { return waitingUntil_ != kNotWaiting; });
}

void Ticker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wakeUp_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) {
    thread_.join();
  }
}

void Ticker::run() {
  std::optional<std::int64_t> lastTickedDue;
  while (true) {
    std::uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) {
        return;
      }
      generation = generation_;
    }
    // Read the schedule without holding our mutex: the Controller may call
    // wake() from its listener at any time.
    const std::optional<std::int64_t> due = nextWake_();
    std::optional<std::chrono::milliseconds> delay = idleWait_;
    if (due) {
      std::int64_t waitMs = std::max<std::int64_t>(0, *due - clock_.monotonicMs());
      if (lastTickedDue && *lastTickedDue == *due) {
        waitMs = std::max(waitMs, kRetryMs);
      }
      if (!bootClockPending_ || bootClockPending_()) {
        waitMs = std::min<std::int64_t>(waitMs, kLongestWait.count());
      }
      delay = delay ? std::min(*delay, std::chrono::milliseconds(waitMs))
                    : std::chrono::milliseconds(waitMs);
    }
    bool changed = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto woken = [&] { return stopping_ || generation_ != generation; };
      if (delay) {
        waitingUntil_ = clock_.monotonicMs() + delay->count();
        waitingChanged_.notify_all();
        changed = wakeUp_.wait_for(lock, *delay, woken);
      } else {
        wakeUp_.wait(lock, woken);  // nothing scheduled: no timer at all
        changed = true;
      }
      waitingUntil_ = kNotWaiting;
      if (stopping_) {
        return;
      }
    }
    if (changed) {
      continue;  // state changed: re-read the schedule
    }
    if (due && clock_.monotonicMs() >= *due) {
      lastTickedDue = due;
      tick_();
    }
  }
}

}  // namespace antidrift
