// When `watch --format` refreshes the countdown by itself (cli/bar_watch.h,
// issue 20 item 2): once a minute on the minute, each second in the last one.
#include "cli/bar_watch.h"

#include <gtest/gtest.h>

namespace antidrift::cli {
namespace {

TEST(BarWatch, TheCountdownIsRefreshedOnEachWholeMinute) {
  EXPECT_EQ(nextShownSecs(1500, 60), 1440);
  EXPECT_EQ(nextShownSecs(1441, 60), 1440);
  EXPECT_EQ(nextShownSecs(1440, 60), 1380);
  EXPECT_EQ(nextShownSecs(1439, 60), 1380);
  EXPECT_EQ(nextShownSecs(121, 60), 120);
}

TEST(BarWatch, TheLastMinuteIsCountedEachSecond) {
  EXPECT_EQ(nextShownSecs(119, 60), 60);
  EXPECT_EQ(nextShownSecs(75, 300), 60);
  EXPECT_EQ(nextShownSecs(60, 60), 59);
  EXPECT_EQ(nextShownSecs(1, 60), 0);
  EXPECT_EQ(nextShownSecs(0, 60), -1);
  EXPECT_EQ(nextShownSecs(-3, 60), -1);
}

TEST(BarWatch, OtherRefreshesAndNone) {
  EXPECT_EQ(nextShownSecs(1500, 1), 1499);
  EXPECT_EQ(nextShownSecs(1500, 300), 1200);
  EXPECT_EQ(nextShownSecs(1200, 300), 900);
  EXPECT_EQ(nextShownSecs(1500, 0), 60);
  EXPECT_EQ(nextShownSecs(30, 0), 29);
}

}  // namespace
}  // namespace antidrift::cli
