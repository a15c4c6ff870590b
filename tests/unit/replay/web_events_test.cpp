// The replay reads an export's aw-watcher-web bucket and joins it to the window events as the
// daemon joins live heartbeats (issue 16 item 4).
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "antidrift/drift/rules.h"
#include "antidrift/evidence/web_join.h"
#include "antidrift/replay/replay.h"
#include "mocks/scripted_backend.h"

namespace antidrift::replay {
namespace {

// 2026-05-28T20:00:00Z and on.
constexpr std::int64_t kT0 = 1'779'998'400'000;

/// An export with a window bucket and aw-watcher-web's bucket (as aw-server exports them).
const char* const kExport = R"({"buckets": {
  "aw-watcher-window_dev-pc": {"type": "currentwindow", "events": [
    {"timestamp": "2026-05-28T20:00:00Z", "duration": 60,
     "data": {"app": "firefox", "title": "Cat videos - YouTube \u2014 Mozilla Firefox"}},
    {"timestamp": "2026-05-28T20:01:00Z", "duration": 60,
     "data": {"app": "code", "title": "Cat videos - Visual Studio Code"}},
    {"timestamp": "2026-05-28T20:02:00Z", "duration": 60,
     "data": {"app": "firefox", "title": "Flu symptoms \u2014 Mozilla Firefox"}},
    {"timestamp": "2026-05-28T20:03:00Z", "duration": 60,
     "data": {"app": "firefox", "title": "Inbox \u2014 Mozilla Firefox"}},
    {"timestamp": "2026-05-28T21:00:00Z", "duration": 60,
     "data": {"app": "firefox", "title": "Cat videos - YouTube \u2014 Mozilla Firefox"}}
  ]},
  "aw-watcher-web-firefox_dev-pc": {"type": "web.tab.current", "events": [
    {"timestamp": "2026-05-28T20:00:00.300Z", "duration": 58.2,
     "data": {"url": "https://www.youtube.com/watch?v=abc&t=1", "title": "Cat videos - YouTube",
              "audible": true, "incognito": false, "tabCount": 4}},
    {"timestamp": "2026-05-28T20:02:00.100Z", "duration": 50,
     "data": {"url": "https://health.example/flu", "title": "Flu symptoms",
              "audible": false, "incognito": true}},
    {"timestamp": "2026-05-28T20:03:30Z", "duration": 20,
     "data": {"url": "https://mail.example/inbox/7", "title": "Inbox", "incognito": false}},
    {"timestamp": "2026-05-28T20:03:50Z", "duration": 0, "data": {"title": "no url"}}
  ]}
}})";

Activity exportActivity() {
  std::istringstream in(kExport);
  return parseActivityWatch(in, "export.json");
}

TEST(WebEvents, TheReaderKeepsTheWebTabBucketsEvents) {
  const Activity activity = exportActivity();
  ASSERT_EQ(activity.web.size(), 3u);  // the event without a url says nothing
  EXPECT_EQ(activity.webEvents, 4u);
  EXPECT_EQ(activity.web[0].atMs, kT0 + 300);
  EXPECT_EQ(activity.web[0].durationMs, 58'200);
  EXPECT_EQ(activity.web[0].title, "Cat videos - YouTube");
  EXPECT_FALSE(activity.web[0].incognito);
  EXPECT_TRUE(activity.web[1].incognito);
  // Nothing of a private tab but its title, time and domain.
  EXPECT_EQ(activity.web[1].url, "https://health.example/");
}

TEST(WebEvents, EachBrowserWindowTakesTheSiteOfTheTabItShowed) {
  const Activity activity = exportActivity();
  const std::vector<WindowWeb> web = joinWebEvents(activity, drift::Rules(Settings{}));
  ASSERT_EQ(web.size(), activity.windows.size());
  EXPECT_EQ(web[0].domain, "youtube.com");
  EXPECT_FALSE(web[0].privateWindow);
  EXPECT_EQ(web[1].domain, "");  // an editor: never joined
  // An incognito tab: private; its site for the local tiers only (admission hides it).
  EXPECT_EQ(web[2].domain, "health.example");
  EXPECT_TRUE(web[2].privateWindow);
  EXPECT_EQ(web[3].domain, "mail.example");  // the tab heard 30 s into the window
  EXPECT_EQ(web[4].domain, "");              // the same page an hour later: no tab then
}

TEST(WebEvents, ATabHeardLongBeforeTheWindowIsNotJoined) {
  Activity activity;
  activity.windows.push_back(
      WindowEvent{kT0 + kWebTabFreshMs + 10'001, 5'000, "firefox", "News - Mozilla Firefox"});
  activity.web.push_back(WebEvent{kT0, 10'000, "https://news.example/", "News", false});
  EXPECT_EQ(joinWebEvents(activity, drift::Rules(Settings{}))[0].domain, "");
  activity.windows[0].atMs = kT0 + kWebTabFreshMs + 10'000;  // the freshness after its end
  EXPECT_EQ(joinWebEvents(activity, drift::Rules(Settings{}))[0].domain, "news.example");
}

TEST(WebEvents, ADayWithoutWebEventsJoinsNothing) {
  Activity activity;
  activity.windows.push_back(WindowEvent{kT0, 5'000, "firefox", "News - Mozilla Firefox"});
  EXPECT_TRUE(joinWebEvents(activity, drift::Rules(Settings{})).empty());
}

TEST(WebEvents, TheReplayTreatsAWindowWithAnIncognitoTabAsPrivate) {
  // The judge is asked about a browser page unless its tab was incognito.
  const Activity activity = exportActivity();
  test::ScriptedBackend backend;
  backend.answer("judge", R"({"on_task": false, "reason": "not the work", "scope": "page"})");
  backend.answer("nudge", R"({"concern": ""})");
  ReplayOptions options;
  options.backend = &backend;
  CommitmentRange range;
  range.fromMs = kT0;
  range.toMs = kT0 + 3'600'000 * 2;
  range.nextAction = "Write the quarterly report";
  range.successCondition = "The report is sent";
  range.allowedApps = {"libreoffice"};
  options.commitments = {range};
  (void)runReplay(activity, options);
  EXPECT_GT(backend.calls("judge"), 0u);  // the other pages were judged
  for (const std::string& prompt : backend.prompts("judge")) {
    EXPECT_EQ(prompt.find("Flu symptoms"), std::string::npos);
    EXPECT_EQ(prompt.find("health.example"), std::string::npos);
  }
  // Without the web bucket the same window is judged by its title.
  Activity windowsOnly = activity;
  windowsOnly.web.clear();
  test::ScriptedBackend plain;
  plain.answer("judge", R"({"on_task": false, "reason": "not the work", "scope": "page"})");
  plain.answer("nudge", R"({"concern": ""})");
  options.backend = &plain;
  (void)runReplay(windowsOnly, options);
  bool judgedFlu = false;
  for (const std::string& prompt : plain.prompts("judge")) {
    judgedFlu = judgedFlu || prompt.find("Flu symptoms") != std::string::npos;
  }
  EXPECT_TRUE(judgedFlu);
}

}  // namespace
}  // namespace antidrift::replay
