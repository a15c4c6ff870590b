// Tests for the session timeline (core/include/antidrift/evidence/timeline.h;
// issue 7 item 3): merging, the per-app split, the bound — also on the real
// ActivityWatch export replayed as one long session.
#include "antidrift/evidence/timeline.h"

#include <fstream>

#include <gtest/gtest.h>

#include "support/aw_export.h"

#include "antidrift/evidence/observation.h"

namespace antidrift {
namespace {

// The spans cover [first start, last end] with no gap and no overlap.
void expectContiguous(const std::vector<TimelineSpan>& spans) {
  for (std::size_t index = 0; index < spans.size(); ++index) {
    EXPECT_LE(spans[index].startMs, spans[index].endMs) << index;
    if (index > 0) {
      EXPECT_EQ(spans[index - 1].endMs, spans[index].startMs) << index;
      const bool same = spans[index - 1].app == spans[index].app &&
                        spans[index - 1].status == spans[index].status &&
                        spans[index - 1].headsUp == spans[index].headsUp;
      EXPECT_FALSE(same) << "neighbours " << index - 1 << " and " << index << " not merged";
    }
  }
}

TEST(Timeline, StatusNamesRoundTrip) {
  for (SpanStatus status :
       {SpanStatus::OnTask, SpanStatus::Drifting, SpanStatus::Unknown, SpanStatus::Away}) {
    EXPECT_EQ(parseSpanStatus(toString(status)), status);
  }
  EXPECT_EQ(toString(SpanStatus::OnTask), "ontask");
  EXPECT_FALSE(parseSpanStatus("judging"));
}

TEST(Timeline, SameAppAndStatusGrowsOneSpan) {
  Timeline timeline;
  timeline.record(1'000, "code", SpanStatus::OnTask, false);
  timeline.record(5'000, "code", SpanStatus::OnTask, false);
  timeline.record(9'000, "code", SpanStatus::OnTask, false);
  ASSERT_EQ(timeline.spans().size(), 1u);
  EXPECT_EQ(timeline.spans()[0], (TimelineSpan{1'000, 9'000, "code", SpanStatus::OnTask}));
}

TEST(Timeline, ChangesStartSpansAndSplitCountsOnTaskAndDrifting) {
  Timeline timeline;
  timeline.record(0, "code", SpanStatus::OnTask, false);
  timeline.record(10'000, "firefox", SpanStatus::Unknown, false);
  timeline.record(12'000, "firefox", SpanStatus::Drifting, false);
  timeline.record(20'000, "firefox", SpanStatus::Away, false);
  timeline.record(50'000, "code", SpanStatus::OnTask, false);
  timeline.extendTo(60'000);
  const std::vector<TimelineSpan> expected = {
      {0, 10'000, "code", SpanStatus::OnTask},
      {10'000, 12'000, "firefox", SpanStatus::Unknown},
      {12'000, 20'000, "firefox", SpanStatus::Drifting},
      {20'000, 50'000, "firefox", SpanStatus::Away},
      {50'000, 60'000, "code", SpanStatus::OnTask},
  };
  EXPECT_EQ(timeline.spans(), expected);
  EXPECT_EQ(timeline.split().at("code").onTaskMs, 20'000);
  EXPECT_EQ(timeline.split().at("code").driftingMs, 0);
  EXPECT_EQ(timeline.split().at("firefox").driftingMs, 8'000);
  EXPECT_EQ(timeline.split().at("firefox").onTaskMs, 0);
  EXPECT_EQ(timeline.onTaskMs(), 20'000);
}

TEST(Timeline, AStatusChangeAtTheSameInstantReplacesTheEmptySpan) {
  Timeline timeline;
  timeline.record(0, "code", SpanStatus::OnTask, false);
  timeline.record(5'000, "firefox", SpanStatus::Unknown, false);
  timeline.record(5'000, "firefox", SpanStatus::Drifting, false);  // judged at once
  ASSERT_EQ(timeline.spans().size(), 2u);
  EXPECT_EQ(timeline.spans()[1].status, SpanStatus::Drifting);
  timeline.record(5'000, "code", SpanStatus::OnTask, false);  // back before any time passed
  ASSERT_EQ(timeline.spans().size(), 1u);
}

TEST(Timeline, AHeadsUpStartsAndEndsASpanOfTheSameAppAndStatus) {
  Timeline timeline;
  timeline.record(0, "code", SpanStatus::OnTask, false);
  timeline.record(30'000, "code", SpanStatus::OnTask, true);  // the Nudger advised
  timeline.record(40'000, "code", SpanStatus::OnTask, true);
  timeline.record(90'000, "code", SpanStatus::OnTask, false);  // the advisory cleared
  timeline.extendTo(100'000);
  const std::vector<TimelineSpan> expected = {
      {0, 30'000, "code", SpanStatus::OnTask, false},
      {30'000, 90'000, "code", SpanStatus::OnTask, true},
      {90'000, 100'000, "code", SpanStatus::OnTask, false},
  };
  EXPECT_EQ(timeline.spans(), expected);
  EXPECT_EQ(timeline.split().at("code").onTaskMs, 100'000) << "the split ignores the heads-up";
}

TEST(Timeline, TheBoundKeepsTheLongerSpansHeadsUpAndCoverage) {
  Timeline timeline(3);
  timeline.record(0, "code", SpanStatus::OnTask, false);
  timeline.record(1'000, "code", SpanStatus::OnTask, true);  // 1 s without, 50 s with
  timeline.record(51'000, "firefox", SpanStatus::Drifting, false);
  timeline.record(52'000, "code", SpanStatus::OnTask, false);  // a fourth span: merge
  timeline.extendTo(60'000);
  // The shortest adjacent closed pair is [0,1 s) + [1 s,51 s): one span, the longer one's
  // heads-up (shown).
  const std::vector<TimelineSpan> expected = {
      {0, 51'000, "code", SpanStatus::OnTask, true},
      {51'000, 52'000, "firefox", SpanStatus::Drifting, false},
      {52'000, 60'000, "code", SpanStatus::OnTask, false},
  };
  EXPECT_EQ(timeline.spans(), expected);
}

TEST(Timeline, TimeGoingBackwardsNeverMakesNegativeSpans) {
  Timeline timeline;
  timeline.record(10'000, "code", SpanStatus::OnTask, false);
  timeline.record(4'000, "firefox", SpanStatus::Drifting, false);
  timeline.extendTo(3'000);
  expectContiguous(timeline.spans());
  EXPECT_EQ(timeline.spans().back().startMs, 10'000);
}

TEST(Timeline, BoundMergesTheShortestNeighboursAndKeepsCoverage) {
  Timeline timeline(10);
  std::int64_t at = 0;
  for (int index = 0; index < 100; ++index) {
    // Alternating apps with varying lengths; every 7th stretch is long.
    timeline.record(at, index % 2 ? "firefox" : "code",
                    index % 2 ? SpanStatus::Drifting : SpanStatus::OnTask, false);
    at += index % 7 == 0 ? 60'000 : 1'000 + index;
  }
  timeline.extendTo(at);
  ASSERT_LE(timeline.spans().size(), 10u);
  expectContiguous(timeline.spans());
  EXPECT_EQ(timeline.spans().front().startMs, 0);
  EXPECT_EQ(timeline.spans().back().endMs, at);
  // The open span is exact: the last record's app and status.
  EXPECT_EQ(timeline.spans().back().app, "firefox");
  // The split is exact however the spans were merged.
  EXPECT_EQ(timeline.split().at("code").onTaskMs + timeline.split().at("firefox").driftingMs, at);
}

TEST(Timeline, RestoreDoesNotCountTheTimeTheDaemonWasDown) {
  Timeline first;
  first.record(0, "code", SpanStatus::OnTask, false);
  first.extendTo(10'000);
  Timeline resumed;
  resumed.restore(first.spans(), first.split());
  resumed.record(100'000, "code", SpanStatus::OnTask, false);
  resumed.extendTo(105'000);
  ASSERT_EQ(resumed.spans().size(), 2u);
  EXPECT_EQ(resumed.spans()[1].startMs, 100'000);
  EXPECT_EQ(resumed.split().at("code").onTaskMs, 15'000);
}

// Window events (oldest first) as one long session: the bound holds at every
// step and the whole time stays covered. The browser's time is drifting.
void expectBoundHolds(const std::vector<test::WindowEvent>& events) {
  Timeline timeline;
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::size_t most = 0;
  for (const auto& event : events) {
    const std::int64_t at = event.atMs;
    const std::string app = normalizeApp(event.app);
    if (first == 0) first = at;
    last = std::max(last, at);
    timeline.record(
        at, app,
        app.find("firefox") != std::string::npos ? SpanStatus::Drifting : SpanStatus::OnTask,
        false);
    most = std::max(most, timeline.spans().size());
  }
  timeline.extendTo(last);
  EXPECT_LE(most, Timeline::kMaxSpans);
  EXPECT_GT(timeline.spans().size(), Timeline::kMaxSpans / 2);
  expectContiguous(timeline.spans());
  EXPECT_EQ(timeline.spans().front().startMs, first);
  EXPECT_EQ(timeline.spans().back().endMs, last);
  std::int64_t split = 0;
  for (const auto& entry : timeline.split())
    split += entry.second.onTaskMs + entry.second.driftingMs;
  EXPECT_EQ(split, last - first);
}

// The real export (3512 window events over days, ../shared/data).
TEST(Timeline, BoundHoldsOnTheRealExportReplayedAsOneSession) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  const auto events = test::loadWindowEvents(test::realExportPath());
  ASSERT_GT(events.size(), 3000u);
  expectBoundHolds(events);
}

// The repository's small export, played ten times back to back (an hour
// apart) so that the session outgrows the bound several times over.
TEST(Timeline, BoundHoldsOnTheSmallExportReplayedTenTimesAsOneSession) {
  const auto once = test::loadWindowEvents(test::smallExportPath());
  ASSERT_FALSE(once.empty());
  std::vector<test::WindowEvent> events;
  for (int round = 0; round < 10; ++round) {
    for (auto event : once) {
      event.atMs += round * 3'600'000LL;
      events.push_back(event);
    }
  }
  ASSERT_GT(events.size(), 2 * Timeline::kMaxSpans);
  expectBoundHolds(events);
}

}  // namespace
}  // namespace antidrift
