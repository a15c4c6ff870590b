// FocusTally (issue 17 item 5; docs/DESIGN.md §7 "What the review shows"): drift per
// site or app aggregated over spans with the same site, visits, and the
// longest on-task stretch — ended by drift and by being away, paused (not
// ended) by neutral and unknown time.
#include "antidrift/evidence/focus_tally.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift {
namespace {

using ::testing::ElementsAre;

constexpr std::int64_t kT0 = 1'780'000'000'000;
constexpr std::int64_t kMin = 60'000;

TEST(FocusTally, DriftIsAggregatedPerSiteOverSeparateSpansWithVisits) {
  FocusTally tally;
  tally.record(kT0, SpanStatus::OnTask, "");
  tally.record(kT0 + 1 * kMin, SpanStatus::Drifting, "youtube.com");
  // Another page of the same site, and a heartbeat: the same visit.
  tally.record(kT0 + 2 * kMin, SpanStatus::Drifting, "youtube.com");
  tally.record(kT0 + 3 * kMin, SpanStatus::OnTask, "");
  tally.record(kT0 + 4 * kMin, SpanStatus::Drifting, "reddit.com");
  tally.record(kT0 + 5 * kMin, SpanStatus::Drifting, "youtube.com");  // straight from reddit
  tally.record(kT0 + 8 * kMin, SpanStatus::Unknown, "");
  tally.record(kT0 + 9 * kMin, SpanStatus::Drifting, "youtube.com");  // back after unknown
  tally.extendTo(kT0 + 10 * kMin);
  EXPECT_THAT(tally.topSites(10), ElementsAre(SiteDrift{"youtube.com", 6 * kMin, 3},
                                              SiteDrift{"reddit.com", 1 * kMin, 1}));
  EXPECT_THAT(tally.topSites(1), ElementsAre(SiteDrift{"youtube.com", 6 * kMin, 3}));
}

TEST(FocusTally, TheLongestStretchIsBrokenByDriftButNotByNeutralOrUnknownTime) {
  FocusTally tally;
  tally.record(kT0, SpanStatus::OnTask, "");
  tally.record(kT0 + 3 * kMin, SpanStatus::Neutral, "");  // a look at the timer: a pause
  tally.record(kT0 + 4 * kMin, SpanStatus::OnTask, "");
  tally.record(kT0 + 6 * kMin, SpanStatus::Unknown, "");  // judging: a pause
  tally.record(kT0 + 7 * kMin, SpanStatus::OnTask, "");
  tally.record(kT0 + 8 * kMin, SpanStatus::Drifting, "slack");  // ends it: 3 + 2 + 1 = 6 min
  tally.record(kT0 + 9 * kMin, SpanStatus::OnTask, "");
  tally.extendTo(kT0 + 14 * kMin);  // 5 min: shorter
  EXPECT_EQ(tally.longest(), (OnTaskStretch{6 * kMin, kT0, kT0 + 8 * kMin}));
}

TEST(FocusTally, AwayEndsTheStretchAndALaterLongerOneWins) {
  FocusTally tally;
  tally.record(kT0, SpanStatus::OnTask, "");
  tally.record(kT0 + 2 * kMin, SpanStatus::Away, "");
  tally.record(kT0 + 10 * kMin, SpanStatus::OnTask, "");
  tally.record(kT0 + 12 * kMin, SpanStatus::OnTask, "");  // a heartbeat
  tally.extendTo(kT0 + 13 * kMin);
  EXPECT_EQ(tally.longest(), (OnTaskStretch{3 * kMin, kT0 + 10 * kMin, kT0 + 13 * kMin}));
}

TEST(FocusTally, NothingYetIsEmptyNotAFabricatedZeroSite) {
  FocusTally tally;
  EXPECT_TRUE(tally.topSites(10).empty());
  EXPECT_EQ(tally.longest(), OnTaskStretch{});
  tally.record(kT0, SpanStatus::OnTask, "");
  tally.record(kT0 - kMin, SpanStatus::OnTask, "");  // an earlier time counts as the last one
  tally.extendTo(kT0 + kMin);
  EXPECT_EQ(tally.longest().onTaskMs, kMin);
}

// The re-walk of issue 17 item 4: the drift a restart interrupted goes on
// (drift::Engine::continuesStay) — no new visit, though the tally restarted.
TEST(FocusTally, ADriftThatContinuesTheStayOfBeforeARestartIsNoNewVisit) {
  FocusTally tally;
  tally.record(kT0, SpanStatus::Drifting, "catflix");
  tally.extendTo(kT0 + kMin);
  FocusTally restarted;
  restarted.restore(tally.state());
  restarted.record(kT0 + 2 * kMin, SpanStatus::Unknown, "");  // evidence not ok yet
  restarted.record(kT0 + 2 * kMin, SpanStatus::Drifting, "catflix", true);
  restarted.extendTo(kT0 + 3 * kMin);
  EXPECT_THAT(restarted.topSites(10), ElementsAre(SiteDrift{"catflix", 2 * kMin, 1}));
  restarted.record(kT0 + 3 * kMin, SpanStatus::OnTask, "");
  restarted.record(kT0 + 4 * kMin, SpanStatus::Drifting, "catflix");  // back again: a visit
  EXPECT_THAT(restarted.topSites(10), ElementsAre(SiteDrift{"catflix", 2 * kMin, 2}));
}

TEST(FocusTally, ARestoreCreditsNothingForTheTimeDown) {
  FocusTally tally;
  tally.record(kT0, SpanStatus::Drifting, "youtube.com");
  tally.extendTo(kT0 + kMin);
  FocusTally restored;
  restored.restore(tally.state());
  restored.record(kT0 + 60 * kMin, SpanStatus::Drifting, "youtube.com");  // an hour later
  restored.extendTo(kT0 + 61 * kMin);
  ASSERT_EQ(restored.topSites(10).size(), 1u);
  EXPECT_EQ(restored.topSites(10)[0].driftMs, 2 * kMin);
}

TEST(FocusTally, SitesBeyondTheCapGoToOther) {
  FocusTally tally;
  for (std::size_t index = 0; index < FocusTally::kMaxSites + 3; ++index) {
    tally.record(kT0 + static_cast<std::int64_t>(index) * kMin, SpanStatus::Drifting,
                 "site" + std::to_string(index));
  }
  tally.extendTo(kT0 + static_cast<std::int64_t>(FocusTally::kMaxSites + 3) * kMin);
  EXPECT_EQ(tally.state().sites.size(), FocusTally::kMaxSites + 1);
  EXPECT_EQ(tally.state().sites.back(), (SiteDrift{FocusTally::kOtherSite, 3 * kMin, 3}));
}

}  // namespace
}  // namespace antidrift
