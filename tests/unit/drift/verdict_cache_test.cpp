#include "antidrift/drift/verdict_cache.h"

#include <string>

#include <gtest/gtest.h>

namespace antidrift::drift {
namespace {

Observation window(const std::string& rawApp, const std::string& title) {
  return Observation{1'000, normalizeApp(rawApp), sanitizeTitle(title), "test", ""};
}

TEST(SiteVerdictKey, IsNeverASiteTheTitleNames) {
  // Issue 19 item 4: a title names whatever site its author likes.
  const Rules rules{Settings{}};
  EXPECT_EQ(siteVerdictKey(rules, window("firefox",
                                         "Barba JS Page Transitions - YouTube — "
                                         "Mozilla Firefox")),
            "");
  EXPECT_EQ(siteVerdictKey(rules, window("firefox", "Anything - GitHub — Mozilla Firefox")), "");
  EXPECT_EQ(siteVerdictKey(rules, window("Code", "index.js - chango.dev")), "");  // not a browser
  EXPECT_EQ(siteVerdictKey(rules, window("firefox", "")), "");
}

TEST(SiteVerdictKey, IsTheDomainWhenURLEvidenceGaveIt) {
  // Issue 16 item 4: the domain names the site exactly, whatever the title says.
  const Rules rules{Settings{}};
  Observation obs = window("firefox", "Some clip - YouTube — Mozilla Firefox");
  obs.domain = "m.youtube.com";
  EXPECT_EQ(siteVerdictKey(rules, obs), "firefox\ndomain:m.youtube.com");
  obs.app = "code";  // not a browser: no site scope at all
  obs.title = "index.js - shop";
  EXPECT_EQ(siteVerdictKey(rules, obs), "");
}

TEST(VerdictKey, IsTheAppForAnAppThatIsNotTitleSensitive) {
  const Rules rules{Settings{}};
  EXPECT_EQ(verdictKey(rules, window("Code", "● index.js - chango.dev")), "code");
  EXPECT_EQ(verdictKey(rules, window("Code", "other.js")), "code");
}

TEST(VerdictKey, IsTheAppAndTheNormalizedTitleForATitleSensitiveApp) {
  const Rules rules{Settings{}};
  EXPECT_EQ(verdictKey(rules, window("firefox", "(2) Facebook — Mozilla Firefox")),
            "firefox\nfacebook");
  EXPECT_EQ(verdictKey(rules, window("firefox", "(2) Facebook — Mozilla Firefox")),
            verdictKey(rules, window("firefox", "(5) Facebook - Mozilla Firefox")));
  EXPECT_NE(verdictKey(rules, window("firefox", "Facebook")),
            verdictKey(rules, window("firefox", "GitHub")));
  EXPECT_NE(verdictKey(rules, window("firefox", "Facebook")),
            verdictKey(rules, window("chromium", "Facebook")));
}

TEST(VerdictKey, FollowsTheConfiguredTitleSensitiveApps) {
  Settings settings;
  settings.titleSensitiveApps = {"Code"};
  const Rules rules{settings};
  EXPECT_EQ(verdictKey(rules, window("code", "● index.js")), "code\nindex.js");
  EXPECT_EQ(verdictKey(rules, window("firefox", "Facebook")), "firefox");
}

TEST(VerdictCache, FindsWhatWasPutAndNothingElse) {
  VerdictCache cache;
  EXPECT_EQ(cache.find("code"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
  cache.put("firefox\nfacebook", CachedVerdict{false, "Facebook is not the Gatsby site"});
  const CachedVerdict* verdict = cache.find("firefox\nfacebook");
  ASSERT_NE(verdict, nullptr);
  EXPECT_FALSE(verdict->onTask);
  EXPECT_EQ(verdict->reason, "Facebook is not the Gatsby site");
  EXPECT_EQ(cache.find("firefox\ngithub"), nullptr);
  EXPECT_EQ(cache.find("firefox"), nullptr);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(VerdictCache, PutReplacesAnExistingVerdict) {
  VerdictCache cache;
  cache.put("slack", CachedVerdict{false, "chat"});
  cache.put("slack", CachedVerdict{true, ""});  // "This is on task"
  ASSERT_NE(cache.find("slack"), nullptr);
  EXPECT_TRUE(cache.find("slack")->onTask);
  EXPECT_EQ(cache.find("slack")->reason, "");
  EXPECT_EQ(cache.size(), 1u);
}

TEST(VerdictCache, ClearForgetsEverything) {
  VerdictCache cache;
  cache.put("a", CachedVerdict{true, ""});
  cache.put("b", CachedVerdict{false, "b"});
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find("a"), nullptr);
  cache.put("a", CachedVerdict{false, "again"});
  EXPECT_EQ(cache.size(), 1u);
}

TEST(VerdictCache, EvictsTheOldestInsertedPastTheCap) {
  VerdictCache cache;
  for (std::size_t i = 0; i < VerdictCache::kMaxEntries; ++i) {
    cache.put("key" + std::to_string(i), CachedVerdict{true, ""});
  }
  EXPECT_EQ(cache.size(), VerdictCache::kMaxEntries);
  cache.put("key0", CachedVerdict{false, "replaced"});  // a replacement keeps its age
  EXPECT_EQ(cache.size(), VerdictCache::kMaxEntries);
  cache.put("one more", CachedVerdict{false, "new"});
  EXPECT_EQ(cache.size(), VerdictCache::kMaxEntries);
  EXPECT_EQ(cache.find("key0"), nullptr);
  EXPECT_NE(cache.find("key1"), nullptr);
  EXPECT_NE(cache.find("one more"), nullptr);
  cache.put("and another", CachedVerdict{false, "new"});
  EXPECT_EQ(cache.find("key1"), nullptr);
  EXPECT_NE(cache.find("key2"), nullptr);
  EXPECT_EQ(cache.size(), VerdictCache::kMaxEntries);
}

TEST(VerdictCache, StaysBoundedUnderManyKeys) {
  VerdictCache cache;
  for (std::size_t i = 0; i < 5 * VerdictCache::kMaxEntries; ++i) {
    cache.put("key" + std::to_string(i), CachedVerdict{i % 2 == 0, "r"});
  }
  EXPECT_EQ(cache.size(), VerdictCache::kMaxEntries);
  EXPECT_NE(cache.find("key" + std::to_string(5 * VerdictCache::kMaxEntries - 1)), nullptr);
  EXPECT_EQ(cache.find("key" + std::to_string(4 * VerdictCache::kMaxEntries - 1)), nullptr);
}

}  // namespace
}  // namespace antidrift::drift
