#include "server/notify/episode_tracker.h"

#include <gtest/gtest.h>

namespace antidrift::notify {
namespace {

State drifting(const std::string& commitmentId, std::int64_t episodes, const std::string& reason) {
  State state;
  state.runtime = RuntimeState::Active;
  state.commitment = Commitment{};
  state.commitment->id = commitmentId;
  state.drift.status = drift::DriftStatus::Drifting;
  state.drift.reason = reason;
  state.stats.driftEpisodes = episodes;
  return state;
}

TEST(EpisodeTracker, ANewDriftEpisodeIsReportedOnceWithItsReasonVerbatim) {
  EpisodeTracker tracker;
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "steam is blocked during focus")),
            "steam is blocked during focus");
  // The same episode, State after State (a tick, a title change): no repeat.
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "steam is blocked during focus")),
            std::nullopt);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "another reason")), std::nullopt);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 2, "back to \"$(games)\"")),
            "back to \"$(games)\"");
}

TEST(EpisodeTracker, OnlyADriftingActiveSessionIsReported) {
  EpisodeTracker tracker;
  State onTask = drifting("a", 1, "r");
  onTask.drift.status = drift::DriftStatus::OnTask;
  EXPECT_EQ(tracker.newDriftReason(onTask), std::nullopt);
  State judging = drifting("a", 1, "r");
  judging.drift.status = drift::DriftStatus::Judging;
  EXPECT_EQ(tracker.newDriftReason(judging), std::nullopt);
  State review = drifting("a", 1, "r");
  review.runtime = RuntimeState::Review;
  EXPECT_EQ(tracker.newDriftReason(review), std::nullopt);
  State noEpisodeCounted = drifting("a", 0, "r");
  EXPECT_EQ(tracker.newDriftReason(noEpisodeCounted), std::nullopt);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "r")), "r");
}

TEST(EpisodeTracker, ANewSessionCountsFromZeroAgain) {
  EpisodeTracker tracker;
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 3, "first")), "first");
  State locked;
  EXPECT_EQ(tracker.newDriftReason(locked), std::nullopt);
  EXPECT_EQ(tracker.newDriftReason(drifting("b", 1, "second session")), "second session");
  // Without a reset the old session's count would have hidden it: 1 <= 3.
  EXPECT_EQ(tracker.newDriftReason(drifting("b", 1, "second session")), std::nullopt);
}

State sessionIn(RuntimeState runtime, const std::string& id, Outcome outcome = Outcome::None) {
  State state;
  state.runtime = runtime;
  state.commitment = Commitment{};
  state.commitment->id = id;
  state.commitment->nextAction = "Draft the report";
  state.outcome = outcome;
  return state;
}

TEST(EpisodeTrackerTimeUp, AnnouncesAnActiveSessionThatExpiredOnce) {
  EpisodeTracker tracker;
  EXPECT_FALSE(tracker.timeUpAction(sessionIn(RuntimeState::Active, "s1")));
  EXPECT_EQ(tracker.timeUpAction(sessionIn(RuntimeState::Review, "s1", Outcome::Expired)),
            std::optional<std::string>("Draft the report"));
  EXPECT_FALSE(tracker.timeUpAction(sessionIn(RuntimeState::Review, "s1", Outcome::Expired)));
}

TEST(EpisodeTrackerTimeUp, CompletedAbandonedAndRestoredSessionsAreNotAnnounced) {
  EpisodeTracker tracker;
  tracker.timeUpAction(sessionIn(RuntimeState::Active, "s1"));
  EXPECT_FALSE(tracker.timeUpAction(sessionIn(RuntimeState::Review, "s1", Outcome::Completed)));
  tracker.timeUpAction(sessionIn(RuntimeState::Active, "s2"));
  EXPECT_FALSE(tracker.timeUpAction(sessionIn(RuntimeState::Review, "s2", Outcome::Abandoned)));
  // Restored straight into review (it expired while the daemon was down).
  EpisodeTracker restarted;
  EXPECT_FALSE(restarted.timeUpAction(sessionIn(RuntimeState::Review, "s3", Outcome::Expired)));
}

TEST(EpisodeTracker, ALastingDriftIsRemindedEveryRepeatAndStopsWhenItEnds) {
  EpisodeTracker tracker(/*repeatMs=*/300'000, /*minGapMs=*/30'000);
  EXPECT_EQ(tracker.nextReminderMs(), std::nullopt);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "YouTube"), 1'000), "YouTube");
  EXPECT_EQ(tracker.nextReminderMs(), 301'000);
  EXPECT_EQ(tracker.reminder(300'999), std::nullopt);
  EXPECT_EQ(tracker.reminder(301'000), "YouTube");
  EXPECT_EQ(tracker.nextReminderMs(), 601'000);
  State onTask = drifting("a", 1, "YouTube");
  onTask.drift.status = drift::DriftStatus::OnTask;
  EXPECT_EQ(tracker.newDriftReason(onTask, 400'000), std::nullopt);
  EXPECT_EQ(tracker.nextReminderMs(), std::nullopt);
  EXPECT_EQ(tracker.reminder(900'000), std::nullopt);
}

TEST(EpisodeTracker, RepeatZeroNeverReminds) {
  EpisodeTracker tracker(0, 0);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "r"), 0), "r");
  EXPECT_EQ(tracker.nextReminderMs(), std::nullopt);
  EXPECT_EQ(tracker.reminder(10'000'000), std::nullopt);
}

TEST(EpisodeTracker, EveryEpisodeIsReportedAndOneSoonAfterTheLastNamesItsPlaceInTheRun) {
  EpisodeTracker tracker(300'000, 60'000);
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 1, "first"), 0), "first");
  State facebook = drifting("a", 2, "facebook.com is a known distraction (social)");
  facebook.drift.site = "facebook.com";
  facebook.stats.driftMs = 4'000;
  EXPECT_EQ(tracker.newDriftReason(facebook, 4'000),
            "Facebook.com — 2nd drift in 1 min\nfacebook.com is a known distraction (social)\n"
            "Drifted 4 s this session.");
  State steam = drifting("a", 3, "steam is blocked during focus");
  steam.drift.app = "steam";
  steam.stats.driftMs = 130'000;
  EXPECT_EQ(
      tracker.newDriftReason(steam, 61'000),
      "Steam — 3rd drift in 2 min\nsteam is blocked during focus\nDrifted 2 min this session.");
  // A minute after the last drift notification a new run starts.
  EXPECT_EQ(tracker.newDriftReason(drifting("a", 4, "fourth"), 200'000), "fourth");
  EXPECT_EQ(tracker.reminder(500'000), "fourth");
}

TEST(EpisodeTracker, RunLinesUseEnglishOrdinals) {
  EXPECT_EQ(EpisodeTracker::runLine("youtube", 11, 0), "Youtube — 11th drift in 1 min");
  EXPECT_EQ(EpisodeTracker::runLine("x", 21, 61'000), "X — 21st drift in 2 min");
  EXPECT_EQ(EpisodeTracker::driftTimeLine(0), "");
}

TEST(EpisodeTracker, AHeadsUpIsReportedOncePerTextAndSession) {
  EpisodeTracker tracker;
  State state = drifting("a", 0, "");
  state.drift.status = drift::DriftStatus::OnTask;
  EXPECT_EQ(tracker.newHeadsUp(state), std::nullopt);
  state.drift.nudge = "Three videos in a row";
  EXPECT_EQ(tracker.newHeadsUp(state), "Three videos in a row");
  EXPECT_EQ(tracker.newHeadsUp(state), std::nullopt);
  state.drift.nudge = "Another one";
  EXPECT_EQ(tracker.newHeadsUp(state), "Another one");
  State next = drifting("b", 0, "");
  next.drift.nudge = "Another one";
  EXPECT_EQ(tracker.newHeadsUp(next), "Another one");
}

}  // namespace
}  // namespace antidrift::notify
