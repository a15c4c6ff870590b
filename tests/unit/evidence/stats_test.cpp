#include "antidrift/evidence/stats.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/aw_export.h"

namespace antidrift {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

Observation at(std::int64_t ms, const std::string& app) {
  return Observation{ms, app, "", "test", ""};
}

TEST(StatsAccumulator, TenThousandDistinctAppsStayBoundedAndTotalsStayRight) {
  // Issue 19 item 7 (review L12): a watcher inventing classes gets
  // kMaxSessionApps buckets and "other"; every credited second is kept.
  StatsAccumulator stats(60'000);
  for (int index = 0; index < 10'000; ++index) {
    stats.observe(at(index * 1'000, "app-" + std::to_string(index)));
  }
  stats.observe(at(10'000'000, "app-0"));  // an app with a bucket keeps it
  stats.settle(10'001'000);
  const SessionStats& result = stats.stats();
  EXPECT_EQ(result.bucketsMs.size(), kMaxSessionApps + 1);
  ASSERT_EQ(result.bucketsMs.count(kOtherApp), 1u);
  std::int64_t total = 0;
  for (const auto& [app, ms] : result.bucketsMs) total += ms;
  EXPECT_EQ(total, 10'001'000);  // 1 s for each app, then 1 s back in app-0
  EXPECT_EQ(result.bucketsMs.at("app-0"), 2'000);
  EXPECT_EQ(result.bucketsMs.at("app-255"), 1'000);
  EXPECT_EQ(result.bucketsMs.count("app-256"), 0u);
  EXPECT_EQ(result.bucketsMs.at(kOtherApp), (10'000 - 256) * 1'000);
}

TEST(StatsAccumulator, CreditsGapsToTheEarlierAppAndCountsSwitches) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "a"));
  stats.observe(at(10'000, "a"));
  stats.observe(at(15'000, "b"));
  stats.observe(at(100'000, "a"));  // 85 s gap, capped at 60 s
  stats.settle(101'000);
  EXPECT_THAT(stats.stats().topBucketsSecs(9), ElementsAre(Pair("b", 60), Pair("a", 16)));
  EXPECT_EQ(stats.stats().switches, 2);
}

TEST(StatsAccumulator, AnUnknownWindowBetweenTwoOfTheSameAppIsNoSwitch) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "code"));
  stats.observe(at(1'000, "unknown"));
  stats.observe(at(1'200, "code"));
  EXPECT_EQ(stats.stats().switches, 0);
}

TEST(StatsAccumulator, AnUnknownWindowBetweenTwoAppsIsOneSwitch) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "code"));
  stats.observe(at(1'000, "unknown"));
  stats.observe(at(1'200, "firefox"));
  EXPECT_EQ(stats.stats().switches, 1);
}

TEST(StatsAccumulator, UnknownWindowsAloneOrFirstAreNoSwitch) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "unknown"));
  stats.observe(at(1'000, "code"));
  stats.observe(at(2'000, "unknown"));
  stats.observe(at(3'000, "unknown"));
  stats.observe(at(4'000, "code"));
  EXPECT_EQ(stats.stats().switches, 0);
  stats.observe(at(5'000, "firefox"));
  stats.observe(at(6'000, "unknown"));
  stats.observe(at(7'000, "code"));
  EXPECT_EQ(stats.stats().switches, 2);
}

TEST(StatsAccumulator, TimeInAnUnknownWindowIsStillCredited) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "code"));
  stats.observe(at(10'000, "unknown"));
  stats.observe(at(12'000, "code"));
  stats.settle(20'000);
  EXPECT_THAT(stats.stats().topBucketsSecs(9), ElementsAre(Pair("code", 18), Pair("unknown", 2)));
}

TEST(StatsAccumulator, ResumeForgetsTheLastKnownApp) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "code"));
  stats.resume(stats.stats());
  stats.observe(at(1'000, "unknown"));
  stats.observe(at(2'000, "firefox"));
  EXPECT_EQ(stats.stats().switches, 0);  // nothing known since the restart
}

TEST(StatsAccumulator, OutOfOrderObservationsAddNoTime) {
  StatsAccumulator stats(60'000);
  stats.observe(at(10'000, "a"));
  stats.observe(at(5'000, "b"));
  stats.settle(20'000);
  EXPECT_THAT(stats.stats().topBucketsSecs(9), ElementsAre(Pair("b", 10)));
}

TEST(StatsAccumulator, SettleIsIdempotentAndResumeDoesNotCountDowntime) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "a"));
  stats.settle(5'000);
  stats.settle(5'000);
  EXPECT_EQ(stats.stats().bucketsMs.at("a"), 5'000);
  StatsAccumulator resumed(60'000);
  resumed.resume(stats.stats());
  resumed.observe(at(1'000'000, "a"));
  resumed.settle(1'002'000);
  EXPECT_EQ(resumed.stats().bucketsMs.at("a"), 7'000);
}

TEST(StatsAccumulator, ObservationsWhileAwayAddToAwayTimeNotToNothing) {
  StatsAccumulator stats(60'000);
  stats.setAway(true, 0);  // away from the start of the session
  stats.observe(at(2'000, "a"));
  stats.observe(at(5'000, "b"));  // windows switch (a script, a notification)
  stats.setAway(false, 6'000);
  stats.observe(at(9'000, "a"));
  stats.settle(10'000);
  EXPECT_EQ(stats.stats().awayMs, 6'000);
  EXPECT_THAT(stats.stats().topBucketsSecs(9), ElementsAre(Pair("b", 3), Pair("a", 1)));
  EXPECT_EQ(stats.stats().switches, 2);
  std::int64_t total = stats.stats().awayMs;
  for (const auto& [app, ms] : stats.stats().bucketsMs) total += ms;
  EXPECT_EQ(total, 10'000);  // every millisecond of the session is accounted for
}

TEST(StatsAccumulator, SettlingWhileAwayCountsAwayTime) {
  StatsAccumulator stats(60'000);
  stats.observe(at(0, "a"));
  stats.setAway(true, 4'000);
  stats.observe(at(7'000, "a"));
  stats.settle(9'000);
  EXPECT_EQ(stats.stats().awayMs, 5'000);
  EXPECT_EQ(stats.stats().bucketsMs.at("a"), 4'000);
}

// Replays the window events of an export (oldest first) and checks that the
// accumulator's total equals an independent sum of the same capped gaps, and
// that the given apps got time.
void expectReplayAddsUp(const std::vector<test::WindowEvent>& events,
                        const std::vector<std::string>& appsWithTime) {
  std::vector<Observation> observations;
  for (const auto& event : events) observations.push_back(at(event.atMs, normalizeApp(event.app)));
  const std::int64_t cap = 180'000;
  StatsAccumulator stats(cap);
  std::int64_t expectedMs = 0;
  std::int64_t expectedSwitches = 0;
  std::string lastKnownApp;
  for (std::size_t i = 0; i < observations.size(); ++i) {
    stats.observe(observations[i]);
    if (i > 0) {
      const auto gap = observations[i].atMs - observations[i - 1].atMs;
      expectedMs += std::min(std::max<std::int64_t>(gap, 0), cap);
    }
    if (observations[i].app == "unknown") continue;
    if (!lastKnownApp.empty() && observations[i].app != lastKnownApp) ++expectedSwitches;
    lastKnownApp = observations[i].app;
  }
  std::int64_t totalMs = 0;
  for (const auto& [app, ms] : stats.stats().bucketsMs) totalMs += ms;
  EXPECT_EQ(totalMs, expectedMs);
  EXPECT_EQ(stats.stats().switches, expectedSwitches);
  EXPECT_GT(expectedSwitches, 0);
  for (const std::string& app : appsWithTime) {
    ASSERT_EQ(stats.stats().bucketsMs.count(app), 1u) << app;
    EXPECT_GT(stats.stats().bucketsMs.at(app), 0) << app;
  }
}

// The real ActivityWatch export (../shared/data, read by path).
TEST(StatsAccumulator, ReplayOfRealActivityWatchDataAddsUp) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  const auto events = test::loadWindowEvents(test::realExportPath());
  ASSERT_EQ(events.size(), 3512u);
  expectReplayAddsUp(events, {"code - insiders", "firefox developer edition"});
}

// The repository's own export (tests/data/README.md): zero-duration flickers,
// "unknown" windows and a gap of six minutes (over the cap) included.
TEST(StatsAccumulator, ReplayOfTheSmallExportAddsUp) {
  const auto events = test::loadWindowEvents(test::smallExportPath());
  ASSERT_EQ(events.size(), 61u);
  expectReplayAddsUp(events, {"code", "firefox", "kitty", "zoom", "libreoffice-writer"});
}

}  // namespace
}  // namespace antidrift
