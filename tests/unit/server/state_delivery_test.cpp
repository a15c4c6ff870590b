// The one delivery point of States (server/state_delivery.h, issue 15 item 3).
#include "server/state_delivery.h"

#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift {
namespace {

using ::testing::ElementsAre;

State withVersion(std::uint64_t version, RuntimeState runtime = RuntimeState::Planning) {
  State state;
  state.version = version;
  state.runtime = runtime;
  return state;
}

TEST(StateDelivery, AStateDeliveredLateReachesNoSink) {
  // What the SSE version check, DesktopNotifier's and DoNotDisturb's guards
  // did each for themselves: an older State after a newer one is dropped once,
  // here, for every sink.
  StateDelivery delivery;
  std::vector<std::uint64_t> sse;
  std::vector<std::uint64_t> notifier;
  delivery.addSink("sse", [&sse](const State& state) { sse.push_back(state.version); });
  delivery.addSink("notifier",
                   [&notifier](const State& state) { notifier.push_back(state.version); });
  EXPECT_TRUE(delivery.deliver(withVersion(5)));
  EXPECT_FALSE(delivery.deliver(withVersion(4)));
  EXPECT_FALSE(delivery.deliver(withVersion(5)));  // the same version twice: once
  EXPECT_TRUE(delivery.deliver(withVersion(8)));
  EXPECT_THAT(sse, ElementsAre(5u, 8u));
  EXPECT_THAT(notifier, ElementsAre(5u, 8u));
}

TEST(StateDelivery, TheFirstStateIsDeliveredWhateverItsVersion) {
  StateDelivery delivery;
  std::vector<std::uint64_t> seen;
  delivery.addSink("sink", [&seen](const State& state) { seen.push_back(state.version); });
  EXPECT_TRUE(delivery.deliver(withVersion(0)));  // a fresh daemon's restored State
  EXPECT_TRUE(delivery.deliver(withVersion(1)));
  EXPECT_THAT(seen, ElementsAre(0u, 1u));
}

TEST(StateDelivery, SinksRunInTheOrderAddedWithWhatTheyNeedCarriedInTheState) {
  StateDelivery delivery;
  std::vector<std::string> calls;
  delivery.addSink("evidence sources", [&calls](const State& state) {
    calls.push_back(state.runtime == RuntimeState::Active ? "heartbeat on" : "heartbeat off");
  });
  delivery.addSink("ticker", [&calls](const State& state) {
    calls.push_back("wake at " + std::to_string(state.nextWakeMonotonicMs.value_or(-1)));
  });
  State active = withVersion(3, RuntimeState::Active);
  active.nextWakeMonotonicMs = 1500;
  delivery.deliver(active);
  EXPECT_THAT(delivery.sinkNames(), ElementsAre("evidence sources", "ticker"));
  EXPECT_THAT(calls, ElementsAre("heartbeat on", "wake at 1500"));
}

TEST(StateDelivery, EverySinkSeesStrictlyIncreasingVersionsWhenManyThreadsDeliver) {
  // As the Controller does: a version is taken under its lock, the State is
  // delivered after the lock is released, on the thread that made the change,
  // so threads race to the delivery with versions out of order.
  constexpr int kThreads = 4;
  constexpr int kChangesPerThread = 400;
  std::mutex controllerMutex;
  std::uint64_t version = 0;

  StateDelivery delivery;
  constexpr int kSinks = 4;
  std::vector<std::vector<std::uint64_t>> seen(kSinks);
  for (int sink = 0; sink < kSinks; ++sink) {
    delivery.addSink("sink " + std::to_string(sink), [&seen, sink](const State& state) {
      seen[static_cast<std::size_t>(sink)].push_back(state.version);
    });
  }
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&] {
      for (int change = 0; change < kChangesPerThread; ++change) {
        State state;
        {
          std::lock_guard<std::mutex> lock(controllerMutex);
          state = withVersion(++version);
        }
        delivery.deliver(state);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  const std::uint64_t newest = kThreads * kChangesPerThread;
  for (const std::vector<std::uint64_t>& versions : seen) {
    ASSERT_FALSE(versions.empty());
    for (std::size_t index = 1; index < versions.size(); ++index) {
      ASSERT_LT(versions[index - 1], versions[index]) << "at " << index;
    }
    EXPECT_EQ(versions.back(), newest);  // the newest State always arrives
    EXPECT_EQ(versions, seen.front());   // and every sink saw the same sequence
  }
}

}  // namespace
}  // namespace antidrift
