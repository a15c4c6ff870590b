#include "antidrift/drift/title_normalizer.h"

#include <cctype>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/aw_export.h"

namespace antidrift::drift {
namespace {

// The window events of an ActivityWatch export as (app, title), oldest first:
// the real one (../shared/data, read by path, never copied) or the
// repository's own fixture (tests/data/aw-export-small.json).
std::vector<std::pair<std::string, std::string>> loadExport(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> windows;
  for (const auto& event : test::loadWindowEvents(path))
    windows.emplace_back(event.app, event.title);
  return windows;
}

// What differs between the two exports: the browser's class and the name it
// appends to its titles.
struct Browser {
  std::string app;     ///< the window class
  std::string suffix;  ///< the browser's own name at the end of its titles
};
const Browser kRealBrowser{"Firefox Developer Edition", "Firefox Developer Edition"};
const Browser kSmallBrowser{"firefox", "Mozilla Firefox"};

TEST(NormalizeTitle, DropsVsCodesUnsavedMarker) {
  EXPECT_EQ(normalizeTitle("● index.js — chango.dev — Visual Studio Code - Insiders"),
            normalizeTitle("index.js — chango.dev — Visual Studio Code - Insiders"));
  EXPECT_EQ(normalizeTitle("● index.js — chango.dev — Visual Studio Code - Insiders"),
            "index.js — chango.dev — visual studio code - insiders");
}

TEST(NormalizeTitle, DropsLeadingAndTrailingAsterisks) {
  EXPECT_EQ(normalizeTitle("*CV.svg - Inkscape"), "cv.svg - inkscape");
  EXPECT_EQ(normalizeTitle("notes.txt* - Mousepad"), "notes.txt* - mousepad");  // not at an end
  EXPECT_EQ(normalizeTitle("notes.txt *"), "notes.txt");
  EXPECT_EQ(normalizeTitle("*Untitled Document 1 - gedit"), "untitled document 1 - gedit");
}

TEST(NormalizeTitle, IsIdempotentWhenARemovalUncoversAnother) {
  // Found by tests/fuzz/text_fuzz.cpp: one pass left "\uFFFD*" for "\xFF**".
  for (const char* title : {"\xFF**", "notes.txt **", "Download - Firefox - Mozilla Firefox",
                            "(3) (12:30) [2/5] Inbox", "notes.txt * (3)"}) {
    const std::string key = normalizeTitle(title);
    EXPECT_EQ(normalizeTitle(key), key) << title;
  }
  EXPECT_EQ(normalizeTitle("notes.txt **"), "notes.txt");
  // Found next: 65 markers outlasted a fixed number of passes.
  EXPECT_EQ(normalizeTitle("4" + std::string(65, '*')), "4");
  EXPECT_EQ(normalizeTitle("** * draft.md"), "draft.md");
}

TEST(NormalizeTitle, DropsUnreadCounters) {
  EXPECT_EQ(normalizeTitle("(3) Facebook"), "facebook");
  EXPECT_EQ(normalizeTitle("(2) Facebook — Mozilla Firefox"),
            normalizeTitle("(5) Facebook — Mozilla Firefox"));
  EXPECT_EQ(normalizeTitle("(5) Facebook — Mozilla Firefox"), "facebook");
  EXPECT_EQ(normalizeTitle("[3] Slack"), "slack");
  EXPECT_EQ(normalizeTitle("Inbox (99+) - Gmail - Google Chrome"), "inbox - gmail");
}

TEST(NormalizeTitle, DropsTheBrowsersOwnSuffixWithEitherDash) {
  const std::vector<std::string> suffixes = {"Mozilla Firefox",
                                             "Firefox Developer Edition",
                                             "Mozilla Firefox Private Browsing",
                                             "Google Chrome",
                                             "Chromium",
                                             "Brave",
                                             "Microsoft Edge",
                                             "Vivaldi",
                                             "Opera",
                                             "Tor Browser",
                                             "LibreWolf",
                                             "Firefox Nightly"};
  for (const std::string& suffix : suffixes) {
    for (const std::string dash : {" - ", " — ", " – "}) {
      EXPECT_EQ(normalizeTitle("GitHub · Where software is built" + dash + suffix),
                "github · where software is built")
          << dash << suffix;
    }
  }
  EXPECT_EQ(normalizeTitle("Docs — LibreWolf"), "docs");
  EXPECT_EQ(normalizeTitle("Docs—LibreWolf"), "docs");
  EXPECT_EQ(normalizeTitle("Microsoft\u200B Edge help - Microsoft\u200B Edge"),
            "microsoft edge help");  // Edge writes its name with a zero-width space
}

TEST(NormalizeTitle, KeepsABrowserNameThatIsNotASuffix) {
  EXPECT_EQ(normalizeTitle("Mozilla Firefox"), "mozilla firefox");
  EXPECT_EQ(normalizeTitle("Opera tickets - Google Chrome"), "opera tickets");
  EXPECT_EQ(normalizeTitle("index.js - Visual Studio Code"), "index.js - visual studio code");
}

TEST(NormalizeTitle, DropsClockTimes) {
  EXPECT_EQ(normalizeTitle("user@host: ~/src — 12:34"), "user@host: ~/src");
  EXPECT_EQ(normalizeTitle("user@host: ~/src — 12:34:56"), "user@host: ~/src");
  EXPECT_EQ(normalizeTitle("Meeting at 9:05 PM - Calendar"), "meeting at - calendar");
  EXPECT_EQ(normalizeTitle("Meeting at 9:05 p.m. - Calendar"), "meeting at - calendar");
  EXPECT_EQ(normalizeTitle("[12:34] build"), "build");
}

TEST(NormalizeTitle, ATerminalWithATickingClockHasOneKey) {
  std::set<std::string> keys;
  for (int second = 0; second < 120; ++second) {
    const int minute = 58 + second / 60;
    char clock[16];
    std::snprintf(clock, sizeof clock, "%02d:%02d:%02d", 23 + minute / 60, minute % 60,
                  second % 60);
    keys.insert(normalizeTitle(std::string("user@host: ~/src/antidrift — ") + clock));
  }
  EXPECT_EQ(keys, std::set<std::string>{"user@host: ~/src/antidrift"});
}

TEST(NormalizeTitle, KeepsNumbersThatAreNotClocks) {
  EXPECT_EQ(normalizeTitle("0:0:git - \"dev-pc\""), "0:0:git - \"dev-pc\"");  // qterminal
  EXPECT_EQ(normalizeTitle("Python 3.11 docs"), "python 3.11 docs");
  EXPECT_EQ(normalizeTitle("Issue #3720 · gatsbyjs/gatsby"), "issue #3720 · gatsbyjs/gatsby");
  EXPECT_EQ(normalizeTitle("Score 25:61"), "score 25:61");  // not a time of day
}

TEST(NormalizeTitle, DropsPercentages) {
  EXPECT_EQ(normalizeTitle("Downloading 45% - Transmission"), "downloading - transmission");
  EXPECT_EQ(normalizeTitle("Downloading 45.5 % - Transmission"), "downloading - transmission");
  EXPECT_EQ(normalizeTitle("45% — Rendering"), "rendering");
}

TEST(NormalizeTitle, DropsProgressCountersButKeepsDates) {
  EXPECT_EQ(normalizeTitle("Lesson 3/10"), "lesson");
  EXPECT_EQ(normalizeTitle("[3/10] Building"), "building");
  EXPECT_EQ(normalizeTitle("(3 of 10) Course - Brave"), "course");
  EXPECT_EQ(normalizeTitle("Especial - 28/06/2020 - YouTube"), "especial - 28/06/2020 - youtube");
  EXPECT_EQ(normalizeTitle("gatsbyjs/gatsby-v2/3 - GitHub"), "gatsbyjs/gatsby-v2/3 - github");
}

TEST(NormalizeTitle, TrimsSeparatorsLeftDanglingOrDoubled) {
  EXPECT_EQ(normalizeTitle("12:34 — vim"), "vim");
  EXPECT_EQ(normalizeTitle("vim | 45%"), "vim");
  EXPECT_EQ(normalizeTitle("a - 12:34 - b"), "a - b");
  EXPECT_EQ(normalizeTitle("a · 3/10 · b"), "a · b");
}

TEST(NormalizeTitle, FoldsWhiteSpaceUnicodeAndCase) {
  EXPECT_EQ(normalizeTitle("  Caf\u0065\u0301\u200B \t  Menu  "), "caf\u00E9 menu");
  EXPECT_EQ(normalizeTitle("\u202EBANK\u202C\u00A0Login"), "bank login");
  EXPECT_EQ(normalizeTitle("Año — 中文"), "año — 中文");
}

TEST(NormalizeTitle, ATitleOfOnlyNoiseIsEmpty) {
  EXPECT_EQ(normalizeTitle(""), "");
  EXPECT_EQ(normalizeTitle("12:34:56"), "");
  EXPECT_EQ(normalizeTitle("(3) — Mozilla Firefox"), "");
  EXPECT_EQ(normalizeTitle("\u200B \u200F"), "");
}

TEST(NormalizeTitle, SurvivesInvalidUtf8AndHugeInput) {
  EXPECT_EQ(normalizeTitle("a\xff (3)"), "a\xEF\xBF\xBD");
  const std::string huge(100'000, '(');
  EXPECT_EQ(normalizeTitle(huge), huge);
  std::string digits;
  for (int i = 0; i < 5000; ++i) digits += "1 ";
  EXPECT_FALSE(normalizeTitle(digits).empty());
}

// The VS Code "● " marker and unread counters ("(2) Facebook") leave the key
// alone; at least `minMarked` marked titles and two counted ones are seen.
void expectMarkersAndCountersCollapse(
    const std::vector<std::pair<std::string, std::string>>& windows, const Browser& browser,
    std::size_t minMarked) {
  ASSERT_FALSE(windows.empty());
  std::size_t markedTitles = 0;
  std::size_t facebookTitles = 0;
  for (const auto& [app, title] : windows) {
    const std::string marker = "\u25CF ";
    if (title.rfind(marker, 0) == 0) {
      ++markedTitles;
      EXPECT_EQ(normalizeTitle(title), normalizeTitle(title.substr(marker.size()))) << title;
    }
    for (const std::string dash : {" - ", " \u2014 "}) {
      if (title.find(") Facebook" + dash + browser.suffix) != std::string::npos &&
          title.front() == '(') {
        ++facebookTitles;
        EXPECT_EQ(normalizeTitle(title), "facebook") << title;
      }
    }
  }
  EXPECT_GT(markedTitles, minMarked);
  EXPECT_GT(facebookTitles, 1u);
}

// The browser's own name is dropped from every one of its titles but a new
// tab's, and the key is idempotent.
void expectBrowserSuffixDropped(const std::vector<std::pair<std::string, std::string>>& windows,
                                const Browser& browser) {
  std::string name = browser.suffix;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t seen = 0;
  for (const auto& [app, title] : windows) {
    if (app != browser.app) continue;
    ++seen;
    const std::string key = normalizeTitle(title);
    if (title == browser.suffix) {  // a new tab: the name is all there is
      EXPECT_EQ(key, name);
      continue;
    }
    EXPECT_EQ(key.find(name), std::string::npos) << title;
    EXPECT_EQ(normalizeTitle(key), key) << title;  // idempotent
  }
  EXPECT_GT(seen, 0u);
}

// Normalising leaves at least 8 % fewer distinct titles and 15 % fewer changes.
void expectFarFewerKeys(const std::vector<std::pair<std::string, std::string>>& windows) {
  ASSERT_FALSE(windows.empty());
  std::set<std::string> rawTitles;
  std::set<std::string> keys;
  std::size_t rawChanges = 0;
  std::size_t keyChanges = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const auto& [app, title] = windows[i];
    rawTitles.insert(title);
    keys.insert(normalizeTitle(title));
    if (i > 0 && windows[i - 1].second != title) {
      ++rawChanges;
      if (normalizeTitle(windows[i - 1].second) != normalizeTitle(title)) ++keyChanges;
    }
  }
  std::cout << "distinct raw titles " << rawTitles.size() << ", distinct normalised titles "
            << keys.size() << "; title changes " << rawChanges << ", key changes " << keyChanges
            << "\n";
  EXPECT_LE(keys.size() * 100, rawTitles.size() * 92);  // at least 8 % fewer keys
  EXPECT_LE(keyChanges * 100, rawChanges * 85);         // at least 15 % fewer changes
}

TEST(NormalizeTitleOnRealData, VsCodeUnsavedMarkersAndCountersCollapse) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  expectMarkersAndCountersCollapse(loadExport(test::realExportPath()), kRealBrowser, 10);
}

TEST(NormalizeTitleOnRealData, FirefoxSuffixIsDroppedFromEveryBrowserTitle) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  expectBrowserSuffixDropped(loadExport(test::realExportPath()), kRealBrowser);
}

TEST(NormalizeTitleOnRealData, FarFewerKeysThanRawTitles) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  expectFarFewerKeys(loadExport(test::realExportPath()));
}

// The same checks on the repository's own export (tests/data/README.md).
TEST(NormalizeTitleOnSmallExport, VsCodeUnsavedMarkersAndCountersCollapse) {
  expectMarkersAndCountersCollapse(loadExport(test::smallExportPath()), kSmallBrowser, 5);
}

TEST(NormalizeTitleOnSmallExport, FirefoxSuffixIsDroppedFromEveryBrowserTitle) {
  expectBrowserSuffixDropped(loadExport(test::smallExportPath()), kSmallBrowser);
}

TEST(NormalizeTitleOnSmallExport, FarFewerKeysThanRawTitles) {
  expectFarFewerKeys(loadExport(test::smallExportPath()));
}

// ---- siteOf (issue 8 item 5) -------------------------------------------------------------------

TEST(SiteOf, IsTheNameAfterTheLastSeparator) {
  EXPECT_EQ(siteOf(normalizeTitle("Learn Gatsby: How to Build Your First Gatsby Blog - YouTube - "
                                  "Firefox Developer Edition")),
            "youtube");
  EXPECT_EQ(siteOf(normalizeTitle("gatsby-plugin-scroll-reveal | GatsbyJS - Firefox Developer "
                                  "Edition")),
            "gatsbyjs");
  EXPECT_EQ(siteOf(normalizeTitle("Pentagram Page Transitions – A deep dive - DEV")), "dev");
  EXPECT_EQ(siteOf("a — b · github"), "github");
}

TEST(SiteOf, AShortTitleWithoutSeparatorIsItsOwnSite) {
  EXPECT_EQ(siteOf(normalizeTitle("(2) Facebook - Firefox Developer Edition")), "facebook");
  EXPECT_EQ(siteOf("youtube"), "youtube");
}

TEST(SiteOf, ASentenceIsNoSite) {
  EXPECT_EQ(siteOf("el montaje más ordinario de todos los tiempos"), "");
  EXPECT_EQ(siteOf("news - resentidos, nunca doblegados ni sometidos"), "");
  EXPECT_EQ(siteOf(""), "");
  EXPECT_EQ(siteOf("x - " + std::string(41, 'a')), "");
}

}  // namespace
}  // namespace antidrift::drift

namespace antidrift::drift {
namespace {

TEST(EditorWorkspace, IsTheFolderBeforeTheEditorsName) {
  EXPECT_EQ(editorWorkspace("● navbar.js - chango.dev - Visual Studio Code - Insiders"),
            "chango.dev");
  EXPECT_EQ(editorWorkspace("stripe.ts - bakery-shop - Visual Studio Code"), "bakery-shop");
  EXPECT_EQ(editorWorkspace("main.rs \xE2\x80\x94 Tools \xE2\x80\x94 VSCodium"), "tools");
  EXPECT_EQ(editorWorkspace("a - b - c.py - my-repo - Cursor"), "my-repo");
}

TEST(EditorWorkspace, NothingWithoutAFileBesideAFolderOrForAnotherApp) {
  EXPECT_EQ(editorWorkspace("Welcome - Visual Studio Code"), "");
  EXPECT_EQ(editorWorkspace("Visual Studio Code"), "");
  EXPECT_EQ(editorWorkspace("notes.md - chango.dev - Mozilla Firefox"), "");
  EXPECT_EQ(editorWorkspace("Learn Visual Studio Code - YouTube"), "");
}

}  // namespace
}  // namespace antidrift::drift
