// Tests for AsyncSlot and launchGuarded (core/include/antidrift/session/async_slot.h;
// docs/DESIGN.md §6, docs/CONVENTIONS.md "Concurrency"). Driven by a ManualExecutor: the test
// decides when each posted task runs.
#include "antidrift/session/async_slot.h"

#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "antidrift/ai/errors.h"
#include "mocks/manual_executor.h"

namespace antidrift {
namespace {

// True when another thread can take `mutex` right now (well-defined even if
// the calling thread is the one that holds it).
bool lockableFromAnotherThread(std::mutex& mutex) {
  bool locked = false;
  std::thread probe([&] {
    if (mutex.try_lock()) {
      locked = true;
      mutex.unlock();
    }
  });
  probe.join();
  return locked;
}

// Keeps posted tasks so a test can run them in any order.
struct CapturingExecutor final : Executor {
  std::vector<std::function<void()>> tasks;
  void post(std::function<void()> task) override { tasks.push_back(std::move(task)); }
};

struct Owner {
  std::mutex mutex;
  test::ManualExecutor executor;
  AsyncSlot<std::string> slot;
  int notifications = 0;
  bool notifiedUnderLock = false;

  // Does what a Controller method does: begin under the lock, launch after.
  template <class Work>
  AsyncToken request(Work work) {
    AsyncToken token;
    {
      std::lock_guard<std::mutex> lock(mutex);
      token = slot.begin();
    }
    launchGuarded(mutex, executor, slot, token, std::move(work), [this] {
      if (!lockableFromAnotherThread(mutex)) notifiedUnderLock = true;
      ++notifications;
    });
    return token;
  }
};

TEST(AsyncSlot, BeginApplyAndFailFollowTheToken) {
  AsyncSlot<int> slot;
  EXPECT_EQ(slot.status(), AsyncStatus::Idle);
  const AsyncToken first = slot.begin();
  EXPECT_EQ(slot.status(), AsyncStatus::Pending);
  const AsyncToken second = slot.begin();
  EXPECT_FALSE(slot.apply(first, 1));  // superseded
  EXPECT_EQ(slot.status(), AsyncStatus::Pending);
  EXPECT_FALSE(slot.value().has_value());
  EXPECT_TRUE(slot.apply(second, 2));
  EXPECT_EQ(slot.status(), AsyncStatus::Ready);
  EXPECT_EQ(slot.value(), 2);
  EXPECT_FALSE(slot.apply(second, 3));  // one result per request
  EXPECT_FALSE(slot.fail(second, "late"));
  EXPECT_EQ(slot.value(), 2);

  const AsyncToken third = slot.begin();
  EXPECT_FALSE(slot.value().has_value());  // begin clears the old value
  EXPECT_TRUE(slot.fail(third, "boom"));
  EXPECT_EQ(slot.status(), AsyncStatus::Error);
  EXPECT_EQ(slot.error(), "boom");

  const AsyncToken fourth = slot.begin();
  EXPECT_TRUE(slot.error().empty());  // and the old error
  slot.reset();
  EXPECT_EQ(slot.status(), AsyncStatus::Idle);
  EXPECT_FALSE(slot.apply(fourth, 4));
  EXPECT_FALSE(slot.fail(fourth, "x"));
  EXPECT_EQ(slot.status(), AsyncStatus::Idle);
  EXPECT_EQ(toString(AsyncStatus::Pending), "pending");
}

TEST(LaunchGuarded, AppliesTheResultOffTheLockAndNotifiesOnce) {
  Owner owner;
  bool workRanUnlocked = false;
  owner.request([&] {
    workRanUnlocked = lockableFromAnotherThread(owner.mutex);
    return std::string("proposal");
  });
  EXPECT_EQ(owner.executor.pending(), 1u);  // posted, not run inline
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Pending);
  EXPECT_EQ(owner.notifications, 0);

  EXPECT_EQ(owner.executor.runAll(), 1u);
  EXPECT_TRUE(workRanUnlocked);
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Ready);
  EXPECT_EQ(owner.slot.value(), "proposal");
  EXPECT_EQ(owner.notifications, 1);
  EXPECT_FALSE(owner.notifiedUnderLock);
}

TEST(LaunchGuarded, ResultArrivingAfterResetIsDiscarded) {
  Owner owner;
  owner.request([] { return std::string("stale"); });
  {
    std::lock_guard<std::mutex> lock(owner.mutex);
    owner.slot.reset();  // e.g. the person left planning
  }
  owner.executor.runAll();
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Idle);
  EXPECT_FALSE(owner.slot.value().has_value());
  EXPECT_EQ(owner.notifications, 0);
}

TEST(LaunchGuarded, OlderResultArrivingFirstIsDiscarded) {
  Owner owner;
  owner.request([] { return std::string("older"); });
  owner.request([] { return std::string("newer"); });
  ASSERT_TRUE(owner.executor.runOne());  // the older task completes first
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Pending);
  EXPECT_EQ(owner.notifications, 0);
  ASSERT_TRUE(owner.executor.runOne());
  EXPECT_EQ(owner.slot.value(), "newer");
  EXPECT_EQ(owner.notifications, 1);
}

TEST(LaunchGuarded, OlderResultArrivingLastIsDiscarded) {
  std::mutex mutex;
  CapturingExecutor executor;
  AsyncSlot<std::string> slot;
  int notifications = 0;
  for (const char* result : {"older", "newer"}) {
    AsyncToken token;
    {
      std::lock_guard<std::mutex> lock(mutex);
      token = slot.begin();
    }
    launchGuarded(
        mutex, executor, slot, token, [result] { return std::string(result); },
        [&] { ++notifications; });
  }
  ASSERT_EQ(executor.tasks.size(), 2u);
  executor.tasks[1]();  // newer completes first
  executor.tasks[0]();  // then the older one
  EXPECT_EQ(slot.status(), AsyncStatus::Ready);
  EXPECT_EQ(slot.value(), "newer");
  EXPECT_EQ(notifications, 1);
}

TEST(LaunchGuarded, ErrorResultFailsTheSlotAndNotifies) {
  Owner owner;
  owner.request([]() -> ai::Expected<std::string> {
    return ai::AiError{ai::AiErrorKind::NoJson, "no JSON in the answer"};
  });
  owner.executor.runAll();
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Error);
  EXPECT_EQ(owner.slot.error(), "no JSON in the answer");
  EXPECT_FALSE(owner.slot.value().has_value());
  EXPECT_EQ(owner.notifications, 1);
  EXPECT_FALSE(owner.notifiedUnderLock);
}

TEST(LaunchGuarded, ExpectedValueIsApplied) {
  Owner owner;
  owner.request([]() -> ai::Expected<std::string> { return std::string("ok"); });
  owner.executor.runAll();
  EXPECT_EQ(owner.slot.value(), "ok");
  EXPECT_EQ(owner.notifications, 1);
}

TEST(LaunchGuarded, ThrowingWorkFailsTheSlotInsteadOfEscaping) {
  Owner owner;
  owner.request([]() -> std::string { throw std::runtime_error("disk on fire"); });
  EXPECT_NO_THROW(owner.executor.runAll());
  EXPECT_EQ(owner.slot.status(), AsyncStatus::Error);
  EXPECT_EQ(owner.slot.error(), std::string(kAsyncWorkFailed));
  EXPECT_EQ(owner.notifications, 1);
}

TEST(LaunchGuarded, AfterApplyRunsUnderTheLockAndFeedsNotify) {
  std::mutex mutex;
  test::ManualExecutor executor;
  AsyncSlot<int> slot;
  int version = 0;
  bool afterApplyHeldLock = false;
  std::vector<int> notified;
  AsyncToken token;
  {
    std::lock_guard<std::mutex> lock(mutex);
    token = slot.begin();
  }
  launchGuarded(
      mutex, executor, slot, token, [] { return 7; },
      [&] {
        afterApplyHeldLock = !lockableFromAnotherThread(mutex);
        return ++version * 100 + *slot.value();
      },
      [&](int snapshot) {
        EXPECT_TRUE(lockableFromAnotherThread(mutex));
        notified.push_back(snapshot);
      });
  executor.runAll();
  EXPECT_TRUE(afterApplyHeldLock);
  EXPECT_EQ(notified, std::vector<int>{107});

  // A stale result runs neither step.
  {
    std::lock_guard<std::mutex> lock(mutex);
    token = slot.begin();
    slot.reset();
  }
  launchGuarded(
      mutex, executor, slot, token, [] { return 8; }, [&] { return ++version; },
      [&](int snapshot) { notified.push_back(snapshot); });
  executor.runAll();
  EXPECT_EQ(version, 1);
  EXPECT_EQ(notified.size(), 1u);
}

// ---- The generic launch over an Epoch (one guard for many keys: the drift judge).

TEST(Epoch, AdvanceMakesEveryOlderTokenStale) {
  Epoch epoch;
  const std::uint64_t first = epoch.current();
  EXPECT_TRUE(epoch.isCurrent(first));
  const std::uint64_t second = epoch.advance();
  EXPECT_FALSE(epoch.isCurrent(first));
  EXPECT_TRUE(epoch.isCurrent(second));
  EXPECT_EQ(epoch.current(), second);
}

TEST(Epoch, AnEpochSetBackToAnEarlierCopyNeverMatchesWorkLaunchedAfterTheCopy) {
  Epoch epoch;
  const Epoch before = epoch;  // a rollback checkpoint (issue 9)
  const std::uint64_t launched = epoch.advance();
  epoch = before;  // the change is rolled back
  EXPECT_FALSE(epoch.isCurrent(launched));
  EXPECT_NE(epoch.advance(), launched);  // the next launch gets a generation never seen
  EXPECT_FALSE(epoch.isCurrent(launched));
}

TEST(LaunchGuardedEpoch, AppliesUnderTheLockAndNotifiesWithItReleased) {
  std::mutex mutex;
  test::ManualExecutor executor;
  Epoch epoch;
  bool appliedUnderLock = false;
  bool notifiedUnderLock = true;
  std::vector<std::string> notified;
  launchGuarded(
      mutex, executor, epoch, epoch.current(), [] { return std::string("verdict"); },
      [&](std::optional<std::string>&& result) -> std::optional<std::string> {
        appliedUnderLock = !lockableFromAnotherThread(mutex);
        return "applied " + result.value();
      },
      [&](std::string state) {
        notifiedUnderLock = !lockableFromAnotherThread(mutex);
        notified.push_back(std::move(state));
      });
  EXPECT_TRUE(notified.empty());  // nothing runs before the executor does
  executor.runAll();
  EXPECT_TRUE(appliedUnderLock);
  EXPECT_FALSE(notifiedUnderLock);
  EXPECT_EQ(notified, std::vector<std::string>{"applied verdict"});
}

TEST(LaunchGuardedEpoch, TwoKeysInFlightAreBothDiscardedByOneAdvance) {
  std::mutex mutex;
  test::ManualExecutor executor;
  Epoch epoch;
  int applied = 0;
  int notified = 0;
  const auto apply = [&](std::optional<int>&&) -> std::optional<int> { return ++applied; };
  const auto notify = [&](int) { ++notified; };
  launchGuarded(
      mutex, executor, epoch, epoch.current(), [] { return 1; }, apply, notify);
  launchGuarded(
      mutex, executor, epoch, epoch.current(), [] { return 2; }, apply, notify);
  {
    std::lock_guard<std::mutex> lock(mutex);
    epoch.advance();  // e.g. the session ended while both judge calls ran
  }
  executor.runAll();
  EXPECT_EQ(applied, 0);
  EXPECT_EQ(notified, 0);
}

TEST(LaunchGuardedEpoch, ThrowingWorkArrivesAsNulloptAndAnEmptyApplyNotifiesNobody) {
  std::mutex mutex;
  test::ManualExecutor executor;
  Epoch epoch;
  bool sawNullopt = false;
  int notified = 0;
  launchGuarded(
      mutex, executor, epoch, epoch.current(),
      []() -> int { throw std::runtime_error("backend exploded"); },
      [&](std::optional<int>&& result) -> std::optional<int> {
        sawNullopt = !result.has_value();
        return std::nullopt;  // e.g. the nudger failed: the advisory stays as it was
      },
      [&](int) { ++notified; });
  executor.runAll();
  EXPECT_TRUE(sawNullopt);
  EXPECT_EQ(notified, 0);
}

}  // namespace
}  // namespace antidrift
