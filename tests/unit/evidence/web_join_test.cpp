// Browser URL evidence (issue 16 item 4): the domain of a tab's URL and the
// rule that joins a tab to the browser window it describes.
#include "antidrift/evidence/web_join.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace antidrift {
namespace {

using ::testing::ElementsAre;

TEST(RegistrableDomain, ComesFromThePublicSuffixList) {
  EXPECT_EQ(registrableDomain("m.youtube.com"), "youtube.com");
  EXPECT_EQ(registrableDomain("i.redd.it"), "redd.it");
  EXPECT_EQ(registrableDomain("preview.redd.it"), "redd.it");
  EXPECT_EQ(registrableDomain("news.bbc.co.uk"), "bbc.co.uk");
  // A public suffix is no one's site: each user of github.io is their own.
  EXPECT_EQ(registrableDomain("me.github.io"), "me.github.io");
  EXPECT_EQ(registrableDomain("co.uk"), "");
  EXPECT_EQ(registrableDomain("[::1]"), "");
  EXPECT_EQ(registrableDomain(""), "");
}

TEST(DomainOfUrl, KeepsOnlyTheHostLowerCasedWithoutWwwOrPort) {
  EXPECT_EQ(domainOfUrl("https://www.YouTube.com:443/watch?v=dQw4w9WgXcQ&t=42#comments"),
            "youtube.com");
  EXPECT_EQ(domainOfUrl("http://news.ycombinator.com/item?id=1"), "news.ycombinator.com");
  EXPECT_EQ(domainOfUrl("https://gitlab.example.org:8443/group/repo/-/merge_requests/7"),
            "gitlab.example.org");
  EXPECT_EQ(domainOfUrl("HTTPS://Docs.Python.ORG/3/"), "docs.python.org");
  EXPECT_EQ(domainOfUrl("  https://example.com  "), "example.com");
  EXPECT_EQ(domainOfUrl("https://example.com./path"), "example.com");
  // "www" only as the first label, and only the first one.
  EXPECT_EQ(domainOfUrl("https://www.www.example.com/"), "www.example.com");
  EXPECT_EQ(domainOfUrl("https://wwwexample.com/"), "wwwexample.com");
}

TEST(DomainOfUrl, NeverKeepsUserInfoPathQueryOrFragment) {
  const std::string domain =
      domainOfUrl("https://alice:s3cret@mail.example.com/inbox/42?q=secret+term#msg-7");
  EXPECT_EQ(domain, "mail.example.com");
  for (const char* part : {"alice", "s3cret", "inbox", "secret", "msg", "42", "@", "/", "?"}) {
    EXPECT_EQ(domain.find(part), std::string::npos) << part;
  }
}

TEST(DomainOfUrl, OnlyHttpAndHttpsNameASite) {
  for (const char* url :
       {"file:///home/me/notes.html", "about:blank", "about:newtab", "chrome://settings/",
        "chrome-extension://abcdefghijklmnop/popup.html", "moz-extension://1234/page.html",
        "data:text/html,<h1>hi</h1>", "javascript:alert(1)", "ftp://ftp.example.com/file",
        "view-source:https://example.com/", "edge://newtab/"}) {
    EXPECT_EQ(domainOfUrl(url), "") << url;
  }
}

TEST(DomainOfUrl, MalformedOrHostlessUrlsGiveNothing) {
  for (const char* url : {"", "   ", "not a url", "https://", "https:///path",
                          "http://exa mple.com/", "https://exa%20mple.com/", "https://[::1/"}) {
    EXPECT_EQ(domainOfUrl(url), "") << url;
  }
  EXPECT_EQ(domainOfUrl("https://" + std::string(300, 'a') + ".com/"), "");
}

TEST(DomainOfUrl, IpAddressesAndIdnHostsStayAsGiven) {
  EXPECT_EQ(domainOfUrl("http://127.0.0.1:7717/state"), "127.0.0.1");
  EXPECT_EQ(domainOfUrl("http://[::1]:8080/"), "[::1]");
  EXPECT_EQ(domainOfUrl("https://xn--bcher-kva.example/"), "xn--bcher-kva.example");
  EXPECT_EQ(domainOfUrl("https://www.bücher.example/"), "bücher.example");
}

TEST(WebTabTitleCandidates, TheWholeTitleThenEachPartBeforeABrowserSuffixLongestFirst) {
  EXPECT_THAT(webTabTitleCandidates("Barba JS - YouTube \xE2\x80\x94 Mozilla Firefox"),
              ElementsAre("Barba JS - YouTube \xE2\x80\x94 Mozilla Firefox", "Barba JS - YouTube",
                          "Barba JS"));
  EXPECT_THAT(webTabTitleCandidates("  Inbox \xE2\x80\x93 Chromium "),
              ElementsAre("Inbox \xE2\x80\x93 Chromium", "Inbox"));
  EXPECT_THAT(webTabTitleCandidates("main.cpp-antidrift"), ElementsAre("main.cpp-antidrift"));
  EXPECT_THAT(webTabTitleCandidates(""), ElementsAre());
}

TEST(JoinWebTab, ATabDescribesTheWindowWithItsTitlePlusTheBrowserSuffix) {
  const auto firefox =
      joinWebTab("Cat videos - YouTube \xE2\x80\x94 Mozilla Firefox", "Cat videos - YouTube",
                 "https://www.youtube.com/watch?v=1", false);
  ASSERT_TRUE(firefox.has_value());
  EXPECT_EQ(firefox->domain, "youtube.com");
  EXPECT_FALSE(firefox->privateWindow);
  EXPECT_EQ(firefox->matchedBytes, std::string("Cat videos - YouTube").size());

  const auto chrome = joinWebTab("Pull requests - Google Chrome", "Pull requests",
                                 "https://github.com/pulls", false);
  ASSERT_TRUE(chrome.has_value());
  EXPECT_EQ(chrome->domain, "github.com");

  // A watcher that reports the bare tab title (no suffix) matches too.
  const auto bare = joinWebTab("Pull requests", "Pull requests", "https://github.com/pulls", false);
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->domain, "github.com");
}

TEST(JoinWebTab, OtherTitlesDoNotMatch) {
  const std::string url = "https://github.com/";
  EXPECT_FALSE(joinWebTab("GitHub Desktop", "GitHub", url, false));        // no spaced dash
  EXPECT_FALSE(joinWebTab("Go - Mozilla Firefox", "Google", url, false));  // another page
  EXPECT_FALSE(joinWebTab("Google - Mozilla Firefox", "Go", url, false));  // a prefix only
  EXPECT_FALSE(joinWebTab("Mozilla Firefox", "", url, false));             // a blank tab title
  EXPECT_FALSE(joinWebTab("", "GitHub", url, false));
  // The tab's suffix part alone ("Mozilla Firefox") is not a title the window gives.
  EXPECT_FALSE(joinWebTab("Inbox - Mozilla Firefox", "Mozilla Firefox", url, false));
}

TEST(JoinWebTab, BothTitlesAreComparedSanitized) {
  const auto joined = joinWebTab("Caf\xC3\xA9\tmenu - Mozilla Firefox", "  Caf\xC3\xA9menu ",
                                 "https://cafe.example/menu", false);
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ(joined->domain, "cafe.example");
}

// The join gives a private tab's domain too, never more of its URL:
// admission keeps it for the local tiers only (drift::admitWindow).
TEST(JoinWebTab, AnIncognitoTabMakesThePrivateWindowAndGivesOnlyItsDomain) {
  const auto joined = joinWebTab("Symptoms of flu - Google Chrome", "Symptoms of flu",
                                 "https://health.example/flu?q=symptoms", true);
  ASSERT_TRUE(joined.has_value());
  EXPECT_TRUE(joined->privateWindow);
  EXPECT_EQ(joined->domain, "health.example");
}

TEST(JoinWebTab, AMatchingTabWithoutAWebSiteGivesAnEmptyDomain) {
  const auto joined = joinWebTab("New Tab - Mozilla Firefox", "New Tab", "about:newtab", false);
  ASSERT_TRUE(joined.has_value());
  EXPECT_FALSE(joined->privateWindow);
  EXPECT_EQ(joined->domain, "");
}

}  // namespace
}  // namespace antidrift
