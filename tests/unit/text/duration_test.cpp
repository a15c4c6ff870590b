// The one duration formatter (core/include/antidrift/text/duration.h; issue
// 17 items 1 and 3 of the number walk).
#include "antidrift/text/duration.h"

#include <gtest/gtest.h>

namespace antidrift::text {
namespace {

TEST(ShortDurationText, SecondsUnderAMinuteElseWholeMinutes) {
  EXPECT_EQ(shortDurationText(0), "0 s");
  EXPECT_EQ(shortDurationText(45), "45 s");
  EXPECT_EQ(shortDurationText(59), "59 s");
  EXPECT_EQ(shortDurationText(60), "1 min");
  EXPECT_EQ(shortDurationText(89), "1 min");
  EXPECT_EQ(shortDurationText(90), "2 min");
  EXPECT_EQ(shortDurationText(-5), "0 s");
}

TEST(MinutesText, WholeMinutesRoundedHalfUp) {
  EXPECT_EQ(minutesText(29), "0 min");
  EXPECT_EQ(minutesText(30), "1 min");
  EXPECT_EQ(minutesText(360), "6 min");
  EXPECT_EQ(minutesText(-60), "0 min");
}

TEST(CountText, SingularOnlyForOne) {
  EXPECT_EQ(countText(0, "drift"), "0 drifts");
  EXPECT_EQ(countText(1, "drift"), "1 drift");
  EXPECT_EQ(countText(4, "record"), "4 records");
}

}  // namespace
}  // namespace antidrift::text
