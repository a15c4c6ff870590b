#include "antidrift/drift/nudge_ring.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "antidrift/drift/title_normalizer.h"

namespace antidrift::drift {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Adds a title the way the drift engine does: keyed by its normalised form.
bool addTitle(NudgeRing& ring, const std::string& title) {
  return ring.add(normalizeTitle(title), title);
}

TEST(NudgeRing, StartsEmpty) {
  const NudgeRing ring;
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_THAT(ring.titles(), IsEmpty());
}

TEST(NudgeRing, KeepsDistinctTitlesOldestFirst) {
  NudgeRing ring;
  EXPECT_TRUE(ring.add("a", "A"));
  EXPECT_TRUE(ring.add("b", "B"));
  EXPECT_TRUE(ring.add("c", "C"));
  EXPECT_THAT(ring.titles(), ElementsAre("A", "B", "C"));
  EXPECT_EQ(ring.size(), 3u);
}

TEST(NudgeRing, IgnoresAnEmptyKey) {
  NudgeRing ring;
  EXPECT_FALSE(ring.add("", "12:34:56"));
  EXPECT_EQ(ring.size(), 0u);
  ring.add("a", "A");
  EXPECT_FALSE(ring.add("", ""));
  EXPECT_THAT(ring.titles(), ElementsAre("A"));
}

TEST(NudgeRing, TheSameKeyAsTheNewestOnlyRefreshesItsDisplayTitle) {
  NudgeRing ring;
  ring.add("a", "A");
  ring.add("index.js", "index.js - chango.dev");
  EXPECT_FALSE(ring.add("index.js", "● index.js - chango.dev"));
  EXPECT_THAT(ring.titles(), ElementsAre("A", "● index.js - chango.dev"));
  EXPECT_EQ(ring.size(), 2u);
}

TEST(NudgeRing, AKeyFurtherBackMovesToTheNewestPlace) {
  NudgeRing ring;
  ring.add("a", "A");
  ring.add("b", "B");
  ring.add("c", "C");
  EXPECT_TRUE(ring.add("a", "A again"));
  EXPECT_THAT(ring.titles(), ElementsAre("B", "C", "A again"));
  EXPECT_EQ(ring.size(), 3u);
}

TEST(NudgeRing, DropsTheOldestPastTenTitles) {
  NudgeRing ring;
  for (int i = 0; i < 12; ++i) {
    EXPECT_TRUE(ring.add("k" + std::to_string(i), "T" + std::to_string(i)));
  }
  EXPECT_EQ(ring.size(), NudgeRing::kCapacity);
  EXPECT_THAT(ring.titles(),
              ElementsAre("T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11"));
}

TEST(NudgeRing, MovingAnEntryWhenFullDropsNothing) {
  NudgeRing ring;
  for (int i = 0; i < 10; ++i) ring.add("k" + std::to_string(i), "T" + std::to_string(i));
  EXPECT_TRUE(ring.add("k0", "T0"));
  EXPECT_EQ(ring.size(), 10u);
  EXPECT_THAT(ring.titles(),
              ElementsAre("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T0"));
}

TEST(NudgeRing, TitlesIsACopy) {
  NudgeRing ring;
  ring.add("a", "A");
  std::vector<std::string> copy = ring.titles();
  copy.push_back("mutated");
  ring.add("b", "B");
  EXPECT_THAT(copy, ElementsAre("A", "mutated"));
  EXPECT_THAT(ring.titles(), ElementsAre("A", "B"));
}

TEST(NudgeRing, ClearForgetsEverything) {
  NudgeRing ring;
  ring.add("a", "A");
  ring.add("b", "B");
  ring.clear();
  EXPECT_EQ(ring.size(), 0u);
  EXPECT_THAT(ring.titles(), IsEmpty());
  EXPECT_TRUE(ring.add("a", "A"));
}

TEST(NudgeRing, AFlickeringTitleOccupiesOneEntry) {
  NudgeRing ring;
  for (int second = 0; second < 60; ++second) {
    addTitle(ring, (second % 2 == 0 ? "● " : "") + std::string("index.js — chango.dev"));
    addTitle(ring, "user@host: ~ — 12:34:" + std::string(second < 10 ? "0" : "") +
                       std::to_string(second));
  }
  EXPECT_EQ(ring.size(), 2u);
}

}  // namespace
}  // namespace antidrift::drift
