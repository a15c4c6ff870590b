#include "antidrift/drift/rules.h"
#include "antidrift/drift/verdict_cache.h"

#include <stdexcept>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift::drift {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

Observation window(const std::string& rawApp, const std::string& title) {
  return Observation{1'000, normalizeApp(rawApp), sanitizeTitle(title), "test", ""};
}

TEST(Rules, AnOrdinaryWindowIsNormalAndNotBlocked) {
  const Rules rules{Settings{}};
  EXPECT_EQ(rules.classify(window("code", "index.js - chango.dev")), WindowKind::Normal);
  EXPECT_EQ(rules.blockedReason(window("code", "index.js")), std::nullopt);
}

TEST(Rules, ABlockedAppDriftsWithItsName) {
  Settings settings;
  settings.blockedApps = {"Steam", "Discord"};
  const Rules rules{settings};
  EXPECT_THAT(rules.blockedReason(window("steam", "Library")),
              Optional(std::string("steam is blocked during focus")));
  EXPECT_THAT(rules.blockedReason(window(" DISCORD ", "")),
              Optional(std::string("discord is blocked during focus")));
  EXPECT_EQ(rules.blockedReason(window("code", "steam")), std::nullopt);
}

TEST(Rules, AppListsMatchOnTheOneNormalForm) {
  Settings settings;
  settings.blockedApps = {"Co\u200Bd\u0065\u0301"};  // zero-width space, decomposed é
  settings.neverSendApps = {"KeePass\u200EXC"};
  settings.titleSensitiveApps = {"FIREFOX\u00A0DEVELOPER  EDITION"};
  settings.lockScreenApps = {"\uFEFFi3lock"};
  const Rules rules{settings};
  EXPECT_THAT(rules.blockedReason(window("cod\u00E9", "")),
              Optional(std::string("cod\u00E9 is blocked during focus")));
  EXPECT_TRUE(rules.neverSend(normalizeApp("keepassxc")));
  EXPECT_TRUE(rules.isTitleSensitive(normalizeApp("Firefox Developer Edition")));
  EXPECT_EQ(rules.classify(window("i3lock", "")), WindowKind::LockScreen);
}

TEST(Rules, BlankListEntriesAreIgnoredNotReadAsUnknown) {
  Settings settings;
  settings.blockedApps = {"", "  ", "\u200B"};
  settings.neverSendApps = {""};
  const Rules rules{settings};
  EXPECT_EQ(rules.blockedReason(window("", "a title")), std::nullopt);
  EXPECT_FALSE(rules.neverSend("unknown"));
}

TEST(Rules, ABlockedTitleDriftsNamingWhatMatchedAndTheRule) {
  // Issue 17 item 4: the reason says what matched, not only the rule's name.
  Settings settings;
  settings.blockedTitles = {{"social", "facebook|twitter"}, {"video", R"(\byoutube\b)"}};
  const Rules rules{settings};
  EXPECT_THAT(
      rules.blockedReason(window("firefox", "(2) Facebook - Mozilla Firefox")),
      Optional(std::string("\"Facebook\" in the title is blocked (drift.blocked_titles.social)")));
  EXPECT_THAT(
      rules.blockedReason(window("chromium", "Cats - YOUTUBE")),
      Optional(std::string("\"YOUTUBE\" in the title is blocked (drift.blocked_titles.video)")));
  EXPECT_EQ(rules.blockedReason(window("firefox", "YouTubers of note")), std::nullopt);
}

TEST(Rules, TheBlockedAppRuleComesBeforeTitlesAndPatternsGoInNameOrder) {
  Settings settings;
  settings.blockedApps = {"steam"};
  settings.blockedTitles = {{"b-second", "game"}, {"a-first", "game"}};
  const Rules rules{settings};
  EXPECT_THAT(rules.blockedReason(window("steam", "game")),
              Optional(std::string("steam is blocked during focus")));
  EXPECT_THAT(
      rules.blockedReason(window("firefox", "game")),
      Optional(std::string("\"game\" in the title is blocked (drift.blocked_titles.a-first)")));
}

TEST(Rules, APrivateWindowOrAnEmptyOrLongMatchIsNamedByItsRuleOnly) {
  Settings settings;
  settings.blockedTitles = {{"a-long", "x{61}"}, {"b-empty", "^(?=quiet)"}, {"c-video", "youtube"}};
  const Rules rules{settings};
  EXPECT_THAT(rules.blockedReason(window("firefox", std::string(70, 'x'))),
              Optional(std::string("the title matches the blocked pattern \"a-long\"")));
  EXPECT_THAT(rules.blockedReason(window("firefox", "quiet room")),
              Optional(std::string("the title matches the blocked pattern \"b-empty\"")));
  Observation hidden = window("firefox", "Secret clip - YouTube");
  hidden.privateWindow = true;
  EXPECT_THAT(rules.blockedReason(hidden),
              Optional(std::string("the title matches the blocked pattern \"c-video\"")));
}

TEST(Rules, BlockedTitlesMatchUnicodeCaseInsensitivelyOnTheNormalForm) {
  Settings settings;
  settings.blockedTitles = {{"news", "caf\u00E9 news"}};
  const Rules rules{settings};
  EXPECT_TRUE(rules.blockedReason(window("firefox", "CAF\u00C9 NEWS")).has_value());
  EXPECT_TRUE(rules.blockedReason(window("firefox", "Cafe\u0301\u200B  news")).has_value());
}

TEST(Rules, AnEmptyPatternIsOff) {
  Settings settings;
  settings.blockedTitles = {{"off", ""}};
  const Rules rules{settings};
  EXPECT_EQ(rules.blockedReason(window("firefox", "anything")), std::nullopt);
  EXPECT_EQ(rules.blockedReason(window("firefox", "")), std::nullopt);
}

TEST(Rules, APatternThatDoesNotCompileIsAClearErrorNamingTheKey) {
  Settings settings;
  settings.blockedTitles = {{"fine", "ok"}, {"broken", "(unclosed"}};
  try {
    const Rules rules{settings};
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("drift.blocked_titles.broken: "));
    EXPECT_GT(std::string(error.what()).size(),
              std::string("drift.blocked_titles.broken: ").size());
  }
}

TEST(Rules, APathologicalTitleIsNoMatchNotACrash) {
  Settings settings;
  settings.blockedTitles = {{"backtrack", "(a+)+$"}};
  const Rules rules{settings};
  EXPECT_EQ(rules.blockedReason(window("firefox", std::string(200, 'a') + "!")), std::nullopt);
  EXPECT_EQ(rules.blockedReason(window("firefox", "\xff\xfe")), std::nullopt);
}

TEST(Rules, AnEmptyClassWithAnEmptyTitleIsUnreadable) {
  const Rules rules{Settings{}};
  EXPECT_EQ(rules.classify(window("", "")), WindowKind::Unreadable);
  EXPECT_EQ(rules.classify(window("", " \u200B ")), WindowKind::Unreadable);
  EXPECT_EQ(rules.classify(window("", "Save Document?")), WindowKind::Normal);
  EXPECT_EQ(rules.classify(window("code", "")), WindowKind::Normal);
}

TEST(Rules, LockScreensHaveDefaultsForX11AndWindows) {
  const Rules rules{Settings{}};
  for (const char* locker : {"i3lock", "XScreenSaver", "light-locker", "LockApp.exe",
                             "kscreenlocker_greet", "xsecurelock", "LogonUI.exe"}) {
    EXPECT_EQ(rules.classify(window(locker, "")), WindowKind::LockScreen) << locker;
  }
  Settings settings;
  settings.lockScreenApps = {"my-locker"};
  const Rules custom{settings};
  EXPECT_EQ(custom.classify(window("my-locker", "Locked")), WindowKind::LockScreen);
  EXPECT_EQ(custom.classify(window("i3lock", "")), WindowKind::Normal);
}

// The tag of the served page in these tests (drift::ownPageTag of a token).
Settings withPageTag() {
  Settings settings;
  settings.ownPageTag = ownPageTag("0123456789abcdef0123456789abcdef");
  return settings;
}

TEST(Rules, AntiDriftsOwnPageInABrowserIsNeutral) {
  const Settings settings = withPageTag();
  const std::string tag = settings.ownPageTag;
  const Rules rules{settings};
  EXPECT_EQ(rules.classify(window("firefox", "AntiDrift " + tag + " — Mozilla Firefox")),
            WindowKind::OwnPage);
  EXPECT_EQ(rules.classify(window("Chromium", "AntiDrift " + tag + " - Chromium")),
            WindowKind::OwnPage);
  EXPECT_EQ(
      rules.classify(window("firefox", "(1) Drifting · AntiDrift " + tag + " - Mozilla Firefox")),
      WindowKind::OwnPage);
  EXPECT_EQ(rules.classify(window("firefox", "NotAntiDrift " + tag + " - Mozilla Firefox")),
            WindowKind::Normal);
  EXPECT_EQ(rules.classify(window("firefox", "AntiDrift issues - Mozilla Firefox")),
            WindowKind::Normal);
  EXPECT_EQ(rules.classify(window("code", "antidrift " + tag)), WindowKind::Normal);  // no browser
}

// Issue 19 item 3 (review M3): any page can end its title in "AntiDrift"; only
// the served page knows the tag.
TEST(Rules, AForeignTitleEndingInAntiDriftIsNotTheOwnPage) {
  const Settings settings = withPageTag();
  const Rules rules{settings};
  for (const char* title :
       {"AntiDrift — Mozilla Firefox", "Funny cats · AntiDrift — Mozilla Firefox",
        "Reddit · AntiDrift - Chromium", "Drifting · AntiDrift 00000000 — Mozilla Firefox",
        "Drifting · AntiDrift deadbeef — Mozilla Firefox"}) {
    EXPECT_EQ(rules.classify(window("firefox", title)), WindowKind::Normal) << title;
  }
  // Another token's tag is not this daemon's.
  const std::string other = ownPageTag("another token of 32 or more characters");
  ASSERT_NE(other, settings.ownPageTag);
  EXPECT_EQ(rules.classify(window("firefox", "AntiDrift " + other + " — Mozilla Firefox")),
            WindowKind::Normal);
  // No tag (a replay, a test): no window is the own page.
  const Rules untagged{Settings{}};
  EXPECT_EQ(untagged.classify(window("firefox", "AntiDrift — Mozilla Firefox")),
            WindowKind::Normal);
}

TEST(OwnPageTag, IsEightHexDigitsFixedPerToken) {
  const std::string tag = ownPageTag("0123456789abcdef0123456789abcdef");
  EXPECT_EQ(tag.size(), 8u);
  EXPECT_EQ(tag.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(ownPageTag("0123456789abcdef0123456789abcdef"), tag);
  EXPECT_NE(ownPageTag("0123456789abcdef0123456789abcdee"), tag);
  EXPECT_EQ(ownPageTag(""), "");
}

// Issue 19 item 7 (review L5): a catastrophic pattern against a crafted title
// gives up on its budget (counted, no match) instead of backtracking 10^7 steps.
TEST(Rules, APathologicalPatternGivesUpOnItsBudget) {
  Settings settings;
  settings.blockedTitles = {{"nested", "(a+)+$"}, {"video", "youtube"}};
  const Rules rules{settings};
  ASSERT_EQ(rules.matchesGivenUp(), 0u);
  const std::string crafted = std::string(300, 'a') + "!";  // under kMaxTitleBytes
  EXPECT_EQ(rules.blockedReason(window("firefox", crafted)), std::nullopt);
  EXPECT_EQ(rules.matchesGivenUp(), 1u);
  // The budget leaves ordinary matches alone, the nested pattern's included.
  EXPECT_TRUE(rules.blockedReason(window("firefox", "aaaa")));
  EXPECT_TRUE(rules.blockedReason(window("firefox", "Cats - YouTube")));
  EXPECT_EQ(rules.matchesGivenUp(), 1u);
}

TEST(Rules, TitleSensitiveAppsDefaultToBrowsers) {
  const Rules rules{Settings{}};
  for (const char* browser :
       {"firefox", "firefox-esr", "navigator", "chromium", "google-chrome", "brave-browser",
        "tor browser", "firefox developer edition", "firefoxdeveloperedition"}) {
    EXPECT_TRUE(rules.isTitleSensitive(browser)) << browser;
  }
  // The class ActivityWatch reports for Firefox Developer Edition (the real export,
  // docs/TECH-NOTES.md §9).
  EXPECT_TRUE(rules.isTitleSensitive(normalizeApp("Firefox Developer Edition")));
  EXPECT_FALSE(rules.isTitleSensitive("code"));
  EXPECT_FALSE(rules.isTitleSensitive("unknown"));
}

TEST(Rules, NeverSendAppsDefaultToPasswordManagers) {
  const Rules rules{Settings{}};
  EXPECT_TRUE(rules.neverSend("keepassxc"));
  EXPECT_TRUE(rules.neverSend("bitwarden"));
  EXPECT_FALSE(rules.neverSend("code"));
}

TEST(Rules, IsSafeForConcurrentConstUseAndCheapToCopy) {
  Settings settings = withPageTag();
  settings.blockedTitles = {{"social", "facebook"}};
  const std::string ownTitle = "AntiDrift " + settings.ownPageTag;
  const Rules original{settings};
  const Rules rules = original;  // copies share the compiled patterns
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        if (!rules.blockedReason(window("firefox", "Facebook"))) ++wrong[t];
        if (rules.classify(window("firefox", ownTitle)) != WindowKind::OwnPage) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int count : wrong) EXPECT_EQ(count, 0);
}

TEST(IsPrivateWindow, SpotsEachBrowsersPrivateMode) {
  EXPECT_TRUE(isPrivateWindow("firefox", "Bank — Mozilla Firefox Private Browsing"));
  EXPECT_TRUE(isPrivateWindow("firefox", "Bank - Mozilla Firefox (Private\u00A0Browsing)"));
  EXPECT_TRUE(isPrivateWindow("chromium", "New Tab - Chromium (Incognito)"));
  EXPECT_TRUE(isPrivateWindow("microsoft-edge", "Bank - [InPrivate] - Microsoft Edge"));
  EXPECT_TRUE(isPrivateWindow("Tor Browser", "Anything"));
  EXPECT_TRUE(isPrivateWindow("torbrowser", ""));
  EXPECT_TRUE(isPrivateWindow(normalizeApp("Tor Browser"), "Anything"));
}

TEST(IsPrivateWindow, APagesOwnWordsAreNotTheBrowsersMarker) {
  // Issue 19 item 3: a title cannot make its window private, and so unjudged.
  EXPECT_FALSE(isPrivateWindow("firefox", "INCOGNITO"));
  EXPECT_FALSE(
      isPrivateWindow("firefox", "I went incognito for 24 hours - YouTube — Mozilla Firefox"));
  EXPECT_FALSE(isPrivateWindow("firefox", "Private Browsing explained — Mozilla Firefox"));
  EXPECT_FALSE(isPrivateWindow("chromium", "What InPrivate means - Chromium"));
  EXPECT_TRUE(isPrivateWindow("chromium", "I went incognito - YouTube - Chromium (Incognito)"));
}

TEST(IsPrivateWindow, LeavesOrdinaryWindowsAlone) {
  EXPECT_FALSE(isPrivateWindow("firefox", "Privacy settings - Mozilla Firefox"));
  EXPECT_FALSE(isPrivateWindow("code", "browsing.js"));
  EXPECT_FALSE(isPrivateWindow("tor", "tor.log"));
  EXPECT_FALSE(isPrivateWindow("", ""));
}

TEST(IsPrivateWindow, ThePlaceholderStillReadsAsPrivateSoReplacingTwiceIsHarmless) {
  EXPECT_EQ(kPrivateWindowTitle, "Private browsing window");
  EXPECT_TRUE(isPrivateWindow("firefox", std::string(kPrivateWindowTitle)));
}

// Issue 16 item 2: a browser is recognised by what its windows say, not only
// by drift.title_sensitive_apps.
TEST(Rules, ABrowserIsRecognisedByItsWindowsClassOrTitleSuffix) {
  Settings settings;
  settings.titleSensitiveApps = {};  // no name list at all
  const Rules rules(settings);
  EXPECT_TRUE(rules.isPerPage(window("firefox.exe", "Inbox")));
  EXPECT_TRUE(rules.isPerPage(window("MSEDGE.EXE", "Weather")));
  EXPECT_TRUE(rules.isPerPage(window("chrome.exe", "News")));
  EXPECT_TRUE(rules.isPerPage(window("brave.exe", "News")));
  EXPECT_TRUE(rules.isPerPage(window("somebrowser", "Recipes for bread - Mozilla Firefox")));
  EXPECT_TRUE(rules.isPerPage(window("x", "Recipes \xE2\x80\x94 Firefox Developer Edition")));
  EXPECT_TRUE(rules.isPerPage(window("x", "Recipes - Google Chrome")));
  EXPECT_TRUE(rules.isPerPage(window("x", "Recipes - Chromium")));
  EXPECT_TRUE(rules.isPerPage(window("x", "Recipes - Microsoft\xE2\x80\x8B Edge")));
  EXPECT_FALSE(rules.isPerPage(window("code", "main.cpp - project - Visual Studio Code")));
  EXPECT_FALSE(rules.isPerPage(window("x", "GoogleChrome")));  // no dash before it
  EXPECT_FALSE(rules.isPerPage(window("explorer.exe", "Downloads")));
}

TEST(Rules, AWindowsBrowserGetsOneVerdictKeyPerPage) {
  const Rules rules(Settings{});
  const std::string news =
      verdictKey(rules, window("firefox.exe", "Some news - BBC - Mozilla Firefox"));
  const std::string code =
      verdictKey(rules, window("firefox.exe", "Docs of a library - Mozilla Firefox"));
  EXPECT_NE(news, code);
  EXPECT_EQ(verdictKey(rules, window("notepad.exe", "a.txt - Notepad")), "notepad.exe");
}

}  // namespace
}  // namespace antidrift::drift
