#include "server/notify/episode_tracker.h"

#include <gtest/gtest.h>

namespace antidrift::notify {
namespace {

State drifting(const std::string& commitmentId, std::int64_t episodes, const std::string& reason) {
  State state;
  state.runtime = RuntimeState::Active;
  state.commitment = Commitment{};
  state.commitment->id = commitmentId;
  state.drift.status = "drifting";
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
  onTask.drift.status = "ontask";
  EXPECT_EQ(tracker.newDriftReason(onTask), std::nullopt);
  State judging = drifting("a", 1, "r");
  judging.drift.status = "judging";
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

}  // namespace
}  // namespace antidrift::notify
