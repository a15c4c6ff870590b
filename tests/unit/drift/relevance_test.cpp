// Relevance to the commitment (issue 16 item 3): the words a title shares
// with the commitment's distinctive words and phrases. Titles are our own.
#include "antidrift/drift/relevance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift::drift {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

Commitment commitment(const std::string& next, const std::string& done,
                      std::vector<std::string> apps = {}) {
  Commitment c;
  c.nextAction = next;
  c.successCondition = done;
  c.allowedApps = std::move(apps);
  return c;
}

TEST(RelevanceWords, FoldsSplitsStemsAndDropsShortAndNumericWords) {
  EXPECT_THAT(relevanceWords("Caching Libraries: 2 HTTP-Proxies, v12 & Ünïcode!"),
              ElementsAre("caching", "library", "http", "proxy", "v12", "ünïcode"));
  EXPECT_THAT(relevanceWords("class status analysis 2024"),
              ElementsAre("class", "status", "analysis"));
  EXPECT_THAT(relevanceWords("日本語のテキスト"), ElementsAre("日本語のテキスト"));
}

TEST(Relevance, TheDistinctiveWordsLeaveStopAndGenericWordsOut) {
  const Relevance relevance(commitment("Fix the login redirect in the Django admin",
                                       "Admins land on the dashboard after login", {"code"}));
  EXPECT_THAT(relevance.words(),
              UnorderedElementsAre("login", "redirect", "django", "admin", "land", "dashboard"));
}

TEST(Relevance, ATitleSharingTwoDistinctiveWordsIsRelevant) {
  const Relevance relevance(commitment("Fix the login redirect in the Django admin",
                                       "Admins land on the dashboard after login"));
  const RelevanceResult result =
      relevance.score("Django admin: custom login view - Stack Overflow - Mozilla Firefox");
  EXPECT_TRUE(result.relevant);
  EXPECT_THAT(result.shared, ElementsAre("django", "admin", "login"));
  EXPECT_FALSE(relevance.score("Django girls tutorial - YouTube").relevant);  // one word
  EXPECT_FALSE(relevance.score("Cooking pasta at home - YouTube").relevant);
}

TEST(Relevance, OneWordAndThePhraseItStandsInIsEnough) {
  // "page transitions": a phrase of the next action; "page" alone says nothing.
  const Relevance relevance(commitment("Add page transitions to the portfolio site",
                                       "Pages fade between routes with framer-motion"));
  EXPECT_TRUE(relevance.score("Smooth Page Transitions in 10 minutes - YouTube").relevant);
  EXPECT_FALSE(relevance.score("Page 2 of the forum - YouTube").relevant);
  EXPECT_FALSE(relevance.score("Transitions of power: a history - YouTube").relevant);
}

TEST(Relevance, ACommitmentWithOneDistinctiveWordNeedsOnlyThatWord) {
  const Relevance relevance(commitment("Write the quarterly report", ""));
  EXPECT_THAT(relevance.words(), UnorderedElementsAre("quarterly", "report"));
  const Relevance single(commitment("Write the report", "Done and sent"));
  EXPECT_THAT(single.words(), ElementsAre("report"));
  EXPECT_TRUE(single.score("report-final.odt - LibreOffice Writer").relevant);
  EXPECT_FALSE(single.score("Inbox - Mail").relevant);
}

TEST(Relevance, TheBrowsersOwnNameIsNotAWordOfThePage) {
  const Relevance relevance(commitment("Profile Firefox startup", "", {"firefox"}));
  EXPECT_THAT(relevance.words(), UnorderedElementsAre("profile", "startup"));
  EXPECT_FALSE(relevance.score("News of the day - Mozilla Firefox").relevant);
}

TEST(Relevance, NoDistinctiveWordsMeansNothingIsRelevant) {
  const Relevance relevance(commitment("Work on the project", "Done"));
  EXPECT_TRUE(relevance.words().empty());
  EXPECT_FALSE(relevance.score("Work on the project - YouTube").relevant);
}

}  // namespace
}  // namespace antidrift::drift
