// Known distractions (issue 16 item 3): the data file's format, the config's
// lists, and matching on a page's domain, the site its title names, and an
// app's window class. Titles are our own.
#include "antidrift/drift/distractions.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#ifndef ANTIDRIFT_SOURCE_DIR
#define ANTIDRIFT_SOURCE_DIR "."
#endif

namespace antidrift::drift {
namespace {

using ::testing::HasSubstr;

std::vector<DistractionSite> parse(const std::string& text) {
  std::istringstream in(text);
  return parseDistractions(in, "test.txt");
}

Settings settingsWith(const std::string& text) {
  Settings settings;
  settings.distractionSites = parse(text);
  return settings;
}

Observation page(const std::string& title, const std::string& domain = "") {
  Observation obs;
  obs.app = "firefox";
  obs.title = title;
  obs.domain = domain;
  return obs;
}

const char* kSites =
    "# a comment\n"
    "\n"
    "video  | youtube.com, youtu.be | YouTube\n"
    "social | twitter.com, x.com    | Twitter, X\n"
    "social | facebook.com          | Facebook\n"
    "news   | windy.com             | Windy\n"
    "adult  | example-adult.com     |\n"
    "chat   | discord.com           | Discord\n"
    "shopping | shop.example.org    | Mega Shop\n";

TEST(DistractionsFile, ParsesCategoriesDomainsAndNames) {
  const std::vector<DistractionSite> sites = parse(kSites);
  ASSERT_EQ(sites.size(), 7u);
  EXPECT_EQ(sites[0].category, "video");
  EXPECT_THAT(sites[0].domains, ::testing::ElementsAre("youtube.com", "youtu.be"));
  EXPECT_THAT(sites[0].names, ::testing::ElementsAre("YouTube"));
  EXPECT_TRUE(sites[4].names.empty());
  EXPECT_THAT(sites[6].names, ::testing::ElementsAre("Mega Shop"));
}

TEST(DistractionsFile, RefusesALineOfAnotherShapeNamingIt) {
  try {
    parse("video | youtube.com | YouTube\nthis line has no bars\n");
    FAIL() << "a line without fields was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("test.txt line 2"));
  }
  EXPECT_THROW(parse("video | | \n"), std::invalid_argument);
  EXPECT_THROW(parse(" | youtube.com | YouTube\n"), std::invalid_argument);
  EXPECT_THROW(parse("video | not a domain | YouTube\n"), std::invalid_argument);
  EXPECT_THROW(parse("video | a.com | A | extra\n"), std::invalid_argument);
}

TEST(DistractionsFile, TheShippedFileParsesAndCoversEveryCategory) {
  std::ifstream in(std::string(ANTIDRIFT_SOURCE_DIR) + "/data/distractions.txt");
  ASSERT_TRUE(in) << "data/distractions.txt is missing";
  const std::vector<DistractionSite> sites = parseDistractions(in, "distractions.txt");
  std::set<std::string> categories;
  for (const DistractionSite& site : sites) categories.insert(site.category);
  for (const char* category : {"video", "social", "news", "adult", "shopping", "games", "chat"}) {
    EXPECT_EQ(categories.count(category), 1u) << category;
  }
  EXPECT_GT(sites.size(), 50u);
}

TEST(DistractionsConfig, AListSplitsDomainsFromNames) {
  const DistractionSite site = distractionFromList("Forums", " www.Forum.example.net , My Board ,");
  EXPECT_EQ(site.category, "forums");
  EXPECT_THAT(site.domains, ::testing::ElementsAre("forum.example.net"));
  EXPECT_THAT(site.names, ::testing::ElementsAre("My Board"));
}

TEST(DistractionsMatch, TheSiteATitleNamesAtItsEnd) {
  const Distractions distractions(settingsWith(kSites));
  const auto video =
      distractions.match(page("Cat compilation 2019 - YouTube - Mozilla Firefox"), true);
  ASSERT_TRUE(video);
  EXPECT_EQ(video->category, "video");
  EXPECT_EQ(video->site, "YouTube");
  EXPECT_EQ(video->how, "the title names YouTube");
  ASSERT_TRUE(distractions.match(page("(12) Facebook"), true));
  ASSERT_TRUE(distractions.match(page("Home / X — Mozilla Firefox"), true));
  ASSERT_TRUE(distractions.match(page("Cheap lamps | Mega Shop"), true));
  EXPECT_EQ(distractions.match(page("Windy: rain radar for Lisbon"), true)->category, "news");
  EXPECT_EQ(distractions.match(page("Jane Doe on Twitter: \"what a day\""), true)->site, "Twitter");
  // Edge names the profile after the page, and the other tabs of its window.
  EXPECT_TRUE(distractions.match(
      page("Street food tour - YouTube and 3 more pages - Work - Microsoft\u200b Edge"), true));
}

TEST(DistractionsMatch, ATitleThatOnlyMentionsASiteIsNotIt) {
  const Distractions distractions(settingsWith(kSites));
  EXPECT_FALSE(
      distractions.match(page("How to embed a YouTube player in React - Stack Overflow"), true));
  EXPECT_FALSE(distractions.match(page("Facebook SDK reference | Meta for Developers"), true));
  EXPECT_FALSE(distractions.match(page("Chapter X - Notes"), true));
  EXPECT_FALSE(distractions.match(page("Windy weather in the mountains: a story"), true));
}

TEST(DistractionsMatch, ANameOnlyWhereTheSiteWritesIt) {
  const Distractions distractions(settingsWith(kSites));
  // The site suffix is another site's: the name is the page's own words.
  EXPECT_FALSE(distractions.match(page("Twitter - Google Docs - Mozilla Firefox"), true));
  EXPECT_FALSE(distractions.match(page("YouTube · Issue #3 · owner/repo"), true));
  EXPECT_FALSE(distractions.match(page("#twitter - Slack"), true));
  EXPECT_FALSE(distractions.match(page("Facebook | Notes on the launch | Wiki"), true));
  EXPECT_FALSE(distractions.match(page("Notes on Twitter: the plan - Google Docs"), true));
  EXPECT_FALSE(distractions.match(page("Windy: forecast notes - Google Docs"), true));
  // Only Edge writes a profile's name after the site's.
  EXPECT_FALSE(distractions.match(page("Clip - YouTube - Notes - Mozilla Firefox"), true));
  EXPECT_TRUE(distractions.match(page("Clip - YouTube - Personal - Microsoft Edge"), true));
  // The site's own writing, each way it writes its name.
  EXPECT_TRUE(distractions.match(page("Google Docs - YouTube"), true));
  EXPECT_TRUE(distractions.match(page("Facebook"), true));
  EXPECT_TRUE(distractions.match(page("(2) Facebook"), true));
  EXPECT_TRUE(distractions.match(page("Home / X"), true));
  EXPECT_TRUE(distractions.match(page("Jane on X: \"a - b\" / X"), true));
  EXPECT_TRUE(distractions.match(page("Jane Doe on Twitter: \"deadline - done\""), true));
}

TEST(DistractionsMatch, TheDomainOfURLEvidenceAndItsParents) {
  const Distractions distractions(settingsWith(kSites));
  const auto match = distractions.match(page("Some clip", "m.youtube.com"), true);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->how, "the page is on youtube.com");
  EXPECT_TRUE(distractions.match(page("", "www.example-adult.com"), true));
  // URL evidence is exact: a page elsewhere is not second-guessed by its title.
  EXPECT_FALSE(distractions.match(page("Funny - YouTube", "docs.example.org"), true));
  // Down to the registrable domain by the public suffix list, never past it.
  const Distractions media(
      settingsWith("social | reddit.com, redd.it | Reddit\n"
                   "news | bbc.co.uk | BBC\n"));
  EXPECT_EQ(media.match(page("", "i.redd.it"), true)->site, "Reddit");
  EXPECT_EQ(media.match(page("", "preview.redd.it"), true)->how, "the page is on redd.it");
  EXPECT_TRUE(media.match(page("", "www.bbc.co.uk"), true));
  EXPECT_FALSE(media.match(page("", "shop.co.uk"), true));
  EXPECT_FALSE(media.match(page("", "redd.it.example.org"), true));
  // A title that is a domain.
  EXPECT_TRUE(distractions.match(page("Example-Adult.com"), true));
}

TEST(DistractionsMatch, AnAppByItsWindowClassAndNoTitlesOfOtherApps) {
  const Distractions distractions(settingsWith(kSites));
  Observation discord;
  discord.app = "discord";
  discord.title = "#general - Friends";
  const auto match = distractions.match(discord, false);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->how, "the app is Discord");
  Observation editor;
  editor.app = "code";
  editor.title = "notes.md - YouTube";  // an editor's file, not a page
  EXPECT_FALSE(distractions.match(editor, false));
}

TEST(DistractionsMatch, OnlyTheActiveCategoriesCount) {
  Settings settings = settingsWith(kSites);
  settings.distractionCategories = {"Social"};
  const Distractions distractions(settings);
  EXPECT_FALSE(distractions.match(page("A - YouTube"), true));
  EXPECT_TRUE(distractions.match(page("Facebook"), true));
  EXPECT_TRUE(distractions.match(page("(2) Facebook"), true));
  EXPECT_TRUE(distractions.match(page("Home / X"), true));
  EXPECT_EQ(distractions.size(), 2u);
}

}  // namespace
}  // namespace antidrift::drift
