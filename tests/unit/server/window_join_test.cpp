// The daemon's join of aw-watcher-web tabs to window observations (issue 16
// item 4), with a real Controller on a fake clock: what the Controller ends up
// holding as the window in front.
#include "server/window_join.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "antidrift/drift/rules.h"
#include "antidrift/evidence/web_join.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"

namespace antidrift {
namespace {

const std::string kFirefoxTitle = "Cat videos - YouTube \xE2\x80\x94 Mozilla Firefox";

class WindowJoinTest : public ::testing::Test {
 protected:
  WindowJoinTest()
      : controller_(settings_, clock_, executor_, snapshots_, audit_), join_(controller_, clock_) {}

  Observation current() const {
    const State state = controller_.state();
    return state.evidence.current ? *state.evidence.current : Observation{};
  }

  void window(const std::string& app, const std::string& title) {
    join_.recordWindow(Observation{0, app, title, "x11"});
  }

  void tab(const std::string& bucket, const std::string& title, const std::string& url,
           bool incognito = false) {
    join_.recordTab(bucket, WebTabHeartbeat{url, title, incognito});
  }

  Settings settings_;
  test::FakeClock clock_;
  test::ManualExecutor executor_;
  test::MemorySnapshotStore snapshots_;
  test::MemoryAuditSink audit_;
  Controller controller_;
  WindowJoin join_;
};

TEST_F(WindowJoinTest, ABrowserWindowTakesTheDomainOfTheTabItShows) {
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://www.youtube.com/watch?v=1&t=9");
  window("firefox", kFirefoxTitle);
  EXPECT_EQ(current().title, kFirefoxTitle);
  EXPECT_EQ(current().domain, "youtube.com");
  EXPECT_EQ(current().source, "x11");
}

TEST_F(WindowJoinTest, ATabHeardJustAfterItsWindowAddsTheDomainToIt) {
  window("firefox", kFirefoxTitle);
  EXPECT_EQ(current().domain, "");
  const std::uint64_t before = controller_.state().version;
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/watch?v=1");
  EXPECT_EQ(current().title, kFirefoxTitle);
  EXPECT_EQ(current().domain, "youtube.com");
  EXPECT_GT(controller_.state().version, before);
  // The same tab again changes nothing.
  const std::uint64_t after = controller_.state().version;
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/watch?v=1");
  EXPECT_EQ(controller_.state().version, after);
}

TEST_F(WindowJoinTest, OnlyBrowserWindowsAreJoined) {
  tab("aw-watcher-web-firefox", "notes", "https://notes.example/");
  window("code", "notes - Visual Studio Code");  // an editor whose title starts like the tab's
  EXPECT_EQ(current().domain, "");
  window("chrome.exe", "notes - Google Chrome");  // a browser by its Windows class
  EXPECT_EQ(current().domain, "notes.example");
}

TEST_F(WindowJoinTest, ATabOfAnotherPageIsNotJoined) {
  tab("aw-watcher-web-firefox", "Inbox", "https://mail.example/");
  window("firefox", kFirefoxTitle);
  EXPECT_EQ(current().domain, "");
  // A later tab that no longer matches the window in front does not take its domain off.
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/");
  ASSERT_EQ(current().domain, "youtube.com");
  tab("aw-watcher-web-firefox", "Inbox", "https://mail.example/");
  EXPECT_EQ(current().domain, "youtube.com");
}

TEST_F(WindowJoinTest, ATabHeardTooLongAgoIsNotJoined) {
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/");
  clock_.advance(kWebTabFreshMs + 1);
  window("firefox", kFirefoxTitle);
  EXPECT_EQ(current().domain, "");
  clock_.advance(1000);
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/");
  EXPECT_EQ(current().domain, "youtube.com");
}

TEST_F(WindowJoinTest, TheLongestTitleMatchOfAnyBrowserWins) {
  tab("aw-watcher-web-chrome", "Cat videos", "https://cats.example/");
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/");
  window("firefox", kFirefoxTitle);
  EXPECT_EQ(current().domain, "youtube.com");
  window("chromium", "Cat videos - Chromium");
  EXPECT_EQ(current().domain, "cats.example");
}

TEST_F(WindowJoinTest, AnIncognitoTabMakesItsWindowPrivate) {
  tab("aw-watcher-web-chrome", "Flu symptoms", "https://health.example/flu", true);
  window("google-chrome", "Flu symptoms - Google Chrome");
  EXPECT_EQ(current().title, std::string(drift::kPrivateWindowTitle));
  EXPECT_EQ(current().domain, "");
  // In the reverse order too: the window first, then its incognito tab.
  window("google-chrome", "Tax return - Google Chrome");
  ASSERT_EQ(current().title, "Tax return - Google Chrome");
  tab("aw-watcher-web-chrome", "Tax return", "https://tax.example/", true);
  EXPECT_EQ(current().title, std::string(drift::kPrivateWindowTitle));
  EXPECT_EQ(current().domain, "");
}

TEST_F(WindowJoinTest, KeepsOneTabPerBucketAndABoundedNumberOfBuckets) {
  tab("aw-watcher-web-firefox", "Cat videos - YouTube", "https://youtube.com/");
  for (std::size_t i = 0; i < WindowJoin::kMaxBuckets; ++i) {
    clock_.advance(1);
    tab("bucket-" + std::to_string(i), "page " + std::to_string(i), "https://example.com/");
  }
  window("firefox", kFirefoxTitle);  // the oldest bucket was dropped
  EXPECT_EQ(current().domain, "");
  window("firefox", "page 3 - Mozilla Firefox");
  EXPECT_EQ(current().domain, "example.com");
}

// The join decides with the Controller's rules, the ones it admits windows
// with, not a second copy compiled from other settings: a browser only the
// daemon's settings name is joined, and an earlier own-page tag becomes the
// tag those settings give.
TEST(WindowJoinRules, TheBrowserRuleAndThePageTagAreTheControllersOwn) {
  Settings settings;
  settings.titleSensitiveApps = {"mybrowser"};
  settings.ownPageTag = "0123abcd";
  test::FakeClock clock;
  test::ManualExecutor executor;
  test::MemorySnapshotStore snapshots;
  test::MemoryAuditSink audit;
  Controller controller(settings, clock, executor, snapshots, audit);
  WindowJoin join(controller, clock);
  join.setEarlierPageTags({"ffff0000"});
  const auto current = [&] {
    const State state = controller.state();
    return state.evidence.current ? *state.evidence.current : Observation{};
  };

  join.recordTab("aw-watcher-web-mine",
                 WebTabHeartbeat{"https://www.youtube.com/watch", "Cat videos", false});
  join.recordWindow(Observation{0, "mybrowser", "Cat videos", "x11"});
  EXPECT_EQ(current().domain, "youtube.com");
  join.recordWindow(Observation{0, "firefox", "Cat videos", "x11"});
  EXPECT_EQ(current().domain, "") << "firefox is not title-sensitive under these settings";

  join.recordWindow(Observation{0, "mybrowser", "Planning - AntiDrift ffff0000", "x11"});
  EXPECT_EQ(current().title, "Planning - AntiDrift 0123abcd");
}

}  // namespace
}  // namespace antidrift
