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

TEST(Relevance, OneRareWordAndThePhraseItStandsInIsEnough) {
  // "swup page": a phrase of the next action; "page" alone says nothing.
  const Relevance relevance(
      commitment("Set up the swup page loader", "Pages fade between routes with framer-motion"));
  EXPECT_TRUE(relevance.score("Swup page demos - YouTube").relevant);
  EXPECT_FALSE(relevance.score("Swup - Wikipedia").relevant);
  EXPECT_FALSE(relevance.score("Page 2 of the forum - YouTube").relevant);
}

TEST(Relevance, CommonWordsAloneAreNotEnoughEvenAsThePhrase) {
  // Two common words of the commitment, even next to each other as in it,
  // say less of which work a page serves than a name does: the judge (or
  // the heads-up) decides such a page, not the words.
  EXPECT_TRUE(isCommonWord("quarterly"));
  EXPECT_TRUE(isCommonWord("transition"));
  EXPECT_FALSE(isCommonWord("gatsby")) << "a name";
  EXPECT_FALSE(isCommonWord("markdown")) << "a rare, technical word";
  const Relevance report(commitment("Write the quarterly report", ""));
  EXPECT_FALSE(report.score("Funniest quarterly report fails compilation - YouTube").relevant);
  const Relevance portfolio(commitment("Add page transitions to the portfolio site",
                                       "Pages fade between routes with framer-motion"));
  EXPECT_FALSE(portfolio.score("Smooth Page Transitions in 10 minutes - YouTube").relevant);
  EXPECT_TRUE(portfolio.score("Page transitions with Framer Motion - YouTube").relevant)
      << "framer is specific";
  const RelevanceResult words = report.score("Quarterly report template - Google Docs");
  EXPECT_FALSE(words.relevant);
  EXPECT_THAT(words.shared, ElementsAre("quarterly", "report")) << "still shared, for the list";
}

TEST(Relevance, PhrasesComeFromTheNextActionAndNeverSpanAStopWord) {
  // The success condition names a tool: its pairs would make any page about
  // the tool relevant ("sharp plugin" in "sharp-plugin-resize | Docs").
  const Relevance relevance(commitment("Add image resizing to the photo gallery",
                                       "Thumbnails render with sharp-plugin-resize"));
  EXPECT_FALSE(relevance.score("sharp-plugin-blur | Docs").relevant);
  EXPECT_TRUE(relevance.score("sharp-plugin-resize | Docs").relevant);  // two words
  // "with sharp": a stop word does not make a phrase.
  EXPECT_FALSE(relevance.score("Cooking with sharp knives - YouTube").relevant);
  EXPECT_TRUE(relevance.score("Image resizing in Node - YouTube").relevant);  // a phrase
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
