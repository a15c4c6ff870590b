// The ActivityWatch-compatible API (/api/0/..., docs/DESIGN.md §3, docs/API.md
// "ActivityWatch-compatible API") on the real HTTP server on an ephemeral
// port, with a real Controller and real stores: the request sequences of
// aw-client based watchers, then the State they produce.
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/AutoPtr.h>
#include <Poco/Channel.h>
#include <Poco/File.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Logger.h>
#include <Poco/Message.h>

#include "antidrift/session/controller.h"
#include "in_process_daemon.h"
#include "server/activitywatch_api.h"
#include "support/aw_export.h"

namespace antidrift {
namespace {

using namespace std::chrono_literals;
using test::Reply;
using test::RequestOptions;
using ::testing::HasSubstr;

const std::string kWindowBucket = "/api/0/buckets/aw-watcher-window_dev-pc";
const std::string kAfkBucket = "/api/0/buckets/aw-watcher-afk_dev-pc";

/// An aw-client heartbeat body: event.to_json_dict().
std::string windowEvent(const std::string& timestamp, double duration, const std::string& app,
                        const std::string& title) {
  Poco::JSON::Object data;
  data.set("app", app);
  data.set("title", title);
  Poco::JSON::Object event;
  event.set("timestamp", timestamp);
  event.set("duration", duration);
  event.set("data", data);
  std::ostringstream out;
  event.stringify(out);
  return out.str();
}

std::string afkEvent(const std::string& status) {
  return R"({"timestamp":"2026-05-28T20:26:39.000000+00:00","duration":0.0,"data":{"status":")" +
         status + R"("}})";
}

class ActivityWatchApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::InProcessDaemon::Options options;
    options.maxSseClients = 4;
    options.threads = 4;
    daemon_ = std::make_unique<test::InProcessDaemon>(options);
    ASSERT_NE(port(), 0);
  }

  void TearDown() override { daemon_.reset(); }

  std::uint16_t port() const { return daemon_->port(); }
  test::FakeClock& clock() { return daemon_->clock(); }

  /// A GET as aw-client's requests.get sends it: no token, no Origin.
  Reply awGet(const std::string& path) { return test::sendRequest(port(), "GET", path); }

  /// A POST as aw-client's _post sends it: Content-Type application/json,
  /// no token, no Origin.
  Reply awPost(const std::string& path, const std::string& body, RequestOptions options = {}) {
    return test::sendRequest(port(), "POST", path, body, options);
  }

  /// POST buckets/<id> as create_bucket() does.
  Reply createBucket(const std::string& path, const std::string& type, const std::string& client) {
    return awPost(path,
                  R"({"client":")" + client + R"(","hostname":"dev-pc","type":")" + type + R"("})");
  }

  Poco::JSON::Object::Ptr state() {
    const Reply reply = test::sendRequest(port(), "GET", "/state");
    EXPECT_EQ(reply.status, 200);
    return reply.json();
  }

  Poco::JSON::Object::Ptr evidence() { return state()->getObject("evidence"); }

  /// Sends the newest `count` events of `bucketId` in the export at `path`
  /// (newest first in the file) oldest first as heartbeats to a fresh window
  /// bucket, and checks that every one is taken and the newest is current.
  void replayAsHeartbeats(const std::string& path, const std::string& bucketId, std::size_t count) {
    std::ifstream file(path);
    ASSERT_TRUE(file) << "missing " << path;
    Poco::JSON::Parser parser;
    const Poco::JSON::Object::Ptr bucket =
        parser.parse(file).extract<Poco::JSON::Object::Ptr>()->getObject("buckets")->getObject(
            bucketId);
    ASSERT_TRUE(bucket);
    const Poco::JSON::Array::Ptr events = bucket->getArray("events");
    ASSERT_GE(events->size(), count);

    ASSERT_EQ(createBucket(kWindowBucket, "currentwindow", "aw-watcher-window").status, 200);
    std::size_t ok = 0;
    for (std::size_t i = count; i-- > 0;) {
      std::ostringstream body;
      events->getObject(static_cast<unsigned>(i))->stringify(body);
      const Reply reply = awPost(kWindowBucket + "/heartbeat?pulsetime=2.0", body.str());
      ok += reply.status == 200 ? 1 : 0;
      EXPECT_EQ(reply.status, 200) << i << ": " << reply.body;
    }
    EXPECT_EQ(ok, count);

    const Poco::JSON::Object::Ptr newest = events->getObject(0)->getObject("data");
    const Poco::JSON::Object::Ptr seen = evidence();
    EXPECT_EQ(seen->getValue<std::string>("source"), "activitywatch");
    EXPECT_EQ(seen->getValue<std::string>("health"), "ok");
    EXPECT_EQ(seen->getObject("current")->getValue<std::string>("app"),
              normalizeApp(newest->getValue<std::string>("app")));
    EXPECT_EQ(seen->getObject("current")->getValue<std::string>("title"),
              sanitizeTitle(newest->getValue<std::string>("title")));
  }

  std::unique_ptr<test::InProcessDaemon> daemon_;
};

// ---- aw-watcher-window -------------------------------------------------------------------

TEST_F(ActivityWatchApiTest, AwWatcherWindowSequenceBecomesTheCurrentWindow) {
  // aw-client: GET info, GET buckets/, POST buckets/<id>, then heartbeats.
  const Reply info = awGet("/api/0/info");
  ASSERT_EQ(info.status, 200) << info.body;
  EXPECT_FALSE(info.json()->getValue<bool>("testing"));
  EXPECT_FALSE(info.field("hostname").empty());
  EXPECT_FALSE(info.field("version").empty());
  EXPECT_EQ(info.field("device_id").size(), 36u);

  EXPECT_EQ(awGet("/api/0/buckets/").body, "{}");
  const Reply created = createBucket(kWindowBucket, "currentwindow", "aw-watcher-window");
  ASSERT_EQ(created.status, 200) << created.body;

  // Pre-merged by the queued client: started 10 s ago in UTC+2, lasted 4.5 s.
  const Reply beat = awPost(kWindowBucket + "/heartbeat?pulsetime=2.0",
                            windowEvent("2026-05-28T22:26:30.250000+02:00", 4.5, "Code",
                                        "main.cpp - antidrift - Visual Studio Code"));
  ASSERT_EQ(beat.status, 200) << beat.body;
  // Non-queued aw-client does Event(**answer): only event keys come back.
  const Poco::JSON::Object::Ptr echoed = beat.json();
  EXPECT_EQ(echoed->getValue<std::string>("timestamp"), "2026-05-28T22:26:30.250000+02:00");
  EXPECT_EQ(echoed->getObject("data")->getValue<std::string>("app"), "Code");
  for (const std::string& key : echoed->getNames()) {
    EXPECT_TRUE(key == "id" || key == "timestamp" || key == "duration" || key == "data") << key;
  }

  const Poco::JSON::Object::Ptr seen = evidence();
  EXPECT_EQ(seen->getValue<std::string>("source"), "activitywatch");
  EXPECT_EQ(seen->getValue<std::string>("health"), "ok");
  const Poco::JSON::Object::Ptr current = seen->getObject("current");
  ASSERT_TRUE(current);
  EXPECT_EQ(current->getValue<std::string>("app"), "code");
  EXPECT_EQ(current->getValue<std::string>("title"), "main.cpp - antidrift - Visual Studio Code");
  // 1 780 000 000 000 is 2026-05-28T20:26:40Z: start −9.75 s, +4.5 s.
  EXPECT_EQ(current->getValue<std::int64_t>("at"), 1'780'000'000'000 - 9'750 + 4'500);

  const Reply buckets = awGet("/api/0/buckets/");
  ASSERT_EQ(buckets.status, 200);
  const Poco::JSON::Object::Ptr bucket = buckets.json()->getObject("aw-watcher-window_dev-pc");
  ASSERT_TRUE(bucket);
  EXPECT_EQ(bucket->getValue<std::string>("type"), "currentwindow");
  EXPECT_EQ(bucket->getValue<std::string>("client"), "aw-watcher-window");
  EXPECT_EQ(awGet(kWindowBucket).json()->getValue<std::string>("hostname"), "dev-pc");
}

TEST_F(ActivityWatchApiTest, CreatingAnExistingBucketIsNotModifiedLikeAwServer) {
  ASSERT_EQ(createBucket(kWindowBucket, "currentwindow", "aw-watcher-window").status, 200);
  const Reply again = createBucket(kWindowBucket, "currentwindow", "aw-watcher-window");
  EXPECT_EQ(again.status, 304);  // raise_for_status() accepts it
  EXPECT_EQ(again.body, "");
}

TEST_F(ActivityWatchApiTest, HeartbeatToABucketLostInARestartIsStillRead) {
  const Reply beat = awPost(kWindowBucket + "/heartbeat?pulsetime=2.0",
                            windowEvent("not a time", 0, "Firefox", "Mozilla Firefox"));
  ASSERT_EQ(beat.status, 200) << beat.body;
  const Poco::JSON::Object::Ptr current = evidence()->getObject("current");
  ASSERT_TRUE(current);
  EXPECT_EQ(current->getValue<std::string>("app"), "firefox");
  // A malformed timestamp means receipt time.
  EXPECT_EQ(current->getValue<std::int64_t>("at"), clock().nowUtcMs());
}

TEST_F(ActivityWatchApiTest, InsertedEventsFeedTheWindowToo) {
  ASSERT_EQ(createBucket(kWindowBucket, "currentwindow", "aw-watcher-window").status, 200);
  const std::string events = "[" + windowEvent("2026-05-28T20:26:35Z", 1, "Code", "a") + "," +
                             windowEvent("2026-05-28T20:26:37Z", 1, "Terminal", "b") + "]";
  const Reply reply = awPost(kWindowBucket + "/events", events);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json()->getObject("data")->getValue<std::string>("app"), "Terminal");
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("app"), "terminal");
  EXPECT_EQ(awGet(kWindowBucket + "/events").body, "[]");  // a façade, not a store
}

// ---- aw-watcher-afk ----------------------------------------------------------------------

TEST_F(ActivityWatchApiTest, AfkHeartbeatsSetAndClearAway) {
  ASSERT_EQ(createBucket(kAfkBucket, "afkstatus", "aw-watcher-afk").status, 200);
  ASSERT_FALSE(evidence()->getValue<bool>("away"));

  ASSERT_EQ(awPost(kAfkBucket + "/heartbeat?pulsetime=11.0", afkEvent("afk")).status, 200);
  EXPECT_TRUE(evidence()->getValue<bool>("away"));

  ASSERT_EQ(awPost(kAfkBucket + "/heartbeat?pulsetime=11.0", afkEvent("not-afk")).status, 200);
  EXPECT_FALSE(evidence()->getValue<bool>("away"));
}

TEST_F(ActivityWatchApiTest, AfkBucketWithAnUnknownStatusIsRefusedAndChangesNothing) {
  ASSERT_EQ(createBucket(kAfkBucket, "afkstatus", "aw-watcher-afk").status, 200);
  const Reply reply = awPost(kAfkBucket + "/heartbeat?pulsetime=11.0", afkEvent("asleep"));
  EXPECT_EQ(reply.status, 400);
  EXPECT_THAT(reply.field("error"), HasSubstr("data.status"));
  EXPECT_FALSE(evidence()->getValue<bool>("away"));
}

// ---- Other watchers ----------------------------------------------------------------------

TEST_F(ActivityWatchApiTest, OtherBucketTypesAreAcceptedAndIgnored) {
  const std::uint64_t before = state()->getValue<std::uint64_t>("version");
  const std::string editor = "/api/0/buckets/aw-watcher-vim_dev-pc";
  ASSERT_EQ(createBucket(editor, "app.editor.activity", "aw-watcher-vim").status, 200);
  const Reply reply =
      awPost(editor + "/heartbeat?pulsetime=65",
             R"({"timestamp":"2026-05-28T20:26:39Z","duration":0,"data":{"file":"/src/a.cpp",)"
             R"("project":"/src","language":"cpp"}})");
  EXPECT_EQ(reply.status, 200) << reply.body;
  const Poco::JSON::Object::Ptr after = state();
  EXPECT_EQ(after->getValue<std::uint64_t>("version"), before);
  EXPECT_FALSE(after->getObject("evidence")->has("current"));
}

// ---- aw-watcher-web (issue 16 item 4) -----------------------------------------------------
//
// The requests of ActivityWatch/aw-watcher-web (src/background/client.ts, heartbeat.ts) through
// aw-client-js (src/aw-client.ts): GET /api/0/info to learn the hostname; POST
// /api/0/buckets/aw-watcher-web-<browser>[_<hostname>] with {"client": "aw-client-web",
// "type": "web.tab.current", "hostname"} (ensureBucket: 304 = exists); then on every tab
// activation and every minute POST .../heartbeat?pulsetime=80 (60 s + 20) with
// JSON.stringify({data: {url, title, audible, incognito, tabCount}, duration: 0, timestamp:
// Date}) — and, when the tab changed, first the previous tab's data stamped 1 ms earlier. Each
// with Content-Type: application/json, the browser's extension Origin (moz-extension://<uuid>,
// chrome-extension://<id>) and, when an API key is set in its settings, Authorization: Bearer
// <key> (aw-client-js PR #52).

const std::string kWebBucket = "/api/0/buckets/aw-watcher-web-firefox_dev-pc";
const std::string kFirefoxOrigin = "moz-extension://0b2a1c4e-7d3f-4c55-9d1e-2f6a8b9c0d1e";
const std::string kChromeOrigin = "chrome-extension://nglaklhklhcoonedhgnpgddginnjdadi";

/// aw-watcher-web's heartbeat body, keys in aw-client-js's order.
std::string tabEvent(const std::string& url, const std::string& title, bool incognito) {
  Poco::JSON::Object data(Poco::JSON_PRESERVE_KEY_ORDER);
  data.set("url", url);
  data.set("title", title);
  data.set("audible", false);
  data.set("incognito", incognito);
  data.set("tabCount", 7);
  Poco::JSON::Object event(Poco::JSON_PRESERVE_KEY_ORDER);
  event.set("data", data);
  event.set("duration", 0);
  event.set("timestamp", "2026-05-28T20:26:39.512Z");
  std::ostringstream out;
  event.stringify(out);
  return out.str();
}

class AwWatcherWebTest : public ActivityWatchApiTest {
 protected:
  /// A request as aw-client-js sends it from the extension.
  RequestOptions extension(const std::string& origin,
                           const std::optional<std::string>& apiKey = std::nullopt) {
    RequestOptions options;
    options.origin = origin;
    if (apiKey) options.authorization = "Bearer " + *apiKey;
    return options;
  }

  /// The window an X11 or sway source would report, through POST /evidence/window.
  void seeWindow(const std::string& app, const std::string& title) {
    RequestOptions withToken;
    withToken.token = test::kToken;
    Poco::JSON::Object body;
    body.set("app", app);
    body.set("title", title);
    std::ostringstream out;
    body.stringify(out);
    ASSERT_EQ(test::sendRequest(port(), "POST", "/evidence/window", out.str(), withToken).status,
              202);
  }

  /// The extension's start: GET info, then ensureBucket.
  void startExtension(const RequestOptions& options) {
    const Reply info = test::sendRequest(port(), "GET", "/api/0/info", "", options);
    ASSERT_EQ(info.status, 200) << info.body;
    const Reply created =
        test::sendRequest(port(), "POST", kWebBucket,
                          R"({"client":"aw-client-web","type":"web.tab.current","hostname":")" +
                              info.field("hostname") + R"("})",
                          options);
    ASSERT_EQ(created.status, 200) << created.body;
    // ensureBucket again (a restart of the extension): 304, which it takes as "exists".
    EXPECT_EQ(test::sendRequest(port(), "POST", kWebBucket,
                                R"({"client":"aw-client-web","type":"web.tab.current"})", options)
                  .status,
              304);
  }

  Reply heartbeat(const RequestOptions& options, const std::string& url, const std::string& title,
                  bool incognito = false) {
    return test::sendRequest(port(), "POST", kWebBucket + "/heartbeat?pulsetime=80",
                             tabEvent(url, title, incognito), options);
  }

  std::string stateText() { return test::sendRequest(port(), "GET", "/state").body; }
};

TEST_F(AwWatcherWebTest, FirefoxWithoutAnApiKeyGivesTheBrowserWindowItsDomain) {
  const RequestOptions firefox = extension(kFirefoxOrigin);
  startExtension(firefox);
  // The tab activated: its heartbeat comes right after the window changed.
  seeWindow("firefox", "Barba JS Page Transitions - YouTube \xE2\x80\x94 Mozilla Firefox");
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "");
  const Reply beat = heartbeat(firefox, "https://www.youtube.com/watch?v=Xw1rp0Nl6_s&t=42#top",
                               "Barba JS Page Transitions - YouTube");
  ASSERT_EQ(beat.status, 200) << beat.body;
  EXPECT_EQ(beat.json()->getObject("data")->getValue<std::string>("title"),
            "Barba JS Page Transitions - YouTube");
  Poco::JSON::Object::Ptr current = evidence()->getObject("current");
  EXPECT_EQ(current->getValue<std::string>("app"), "firefox");
  EXPECT_EQ(current->getValue<std::string>("domain"), "youtube.com");
  const std::string text = stateText();
  for (const char* leaked : {"watch?v", "Xw1rp0Nl6_s", "t=42", "#top", "www.youtube"}) {
    EXPECT_EQ(text.find(leaked), std::string::npos) << leaked;
  }

  // The other order: the tab heard first, its window just after.
  ASSERT_EQ(heartbeat(firefox, "https://github.com/barbajs/barba", "barbajs/barba").status, 200);
  seeWindow("firefox", "barbajs/barba \xE2\x80\x94 Mozilla Firefox");
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "github.com");

  // Another app never takes a tab's domain.
  seeWindow("code", "barbajs/barba - Visual Studio Code");
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "");
}

TEST_F(AwWatcherWebTest, ChromeWithTheTokenAsApiKeyIsAcceptedAndAWrongKeyRefused) {
  const RequestOptions chrome = extension(kChromeOrigin, test::kToken);
  startExtension(chrome);
  seeWindow("google-chrome", "Pull requests - Google Chrome");
  ASSERT_EQ(heartbeat(chrome, "https://github.com/pulls", "Pull requests").status, 200);
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "github.com");

  // A key set for another ActivityWatch server: refused, and nothing changes.
  seeWindow("google-chrome", "Inbox - Google Chrome");
  const std::uint64_t before = state()->getValue<std::uint64_t>("version");
  const Reply wrong =
      heartbeat(extension(kChromeOrigin, "key-of-my-aw-server"), "https://mail.example/", "Inbox");
  EXPECT_EQ(wrong.status, 403);
  EXPECT_THAT(wrong.field("error"), HasSubstr("Authorization"));
  EXPECT_EQ(state()->getValue<std::uint64_t>("version"), before);
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "");
  // A web page's Origin stays refused, with or without the key.
  EXPECT_EQ(
      heartbeat(extension("https://evil.example", test::kToken), "https://mail.example/", "Inbox")
          .status,
      403);
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("domain"), "");
}

TEST_F(AwWatcherWebTest, AnIncognitoTabMakesTheWindowPrivateWithNoDomainAnywhere) {
  const RequestOptions firefox = extension(kFirefoxOrigin);
  startExtension(firefox);
  seeWindow("firefox", "Flu symptoms and treatment \xE2\x80\x94 Mozilla Firefox");
  ASSERT_EQ(heartbeat(firefox, "https://health.example/flu?q=symptoms",
                      "Flu symptoms and treatment", true)
                .status,
            200);
  const Poco::JSON::Object::Ptr current = evidence()->getObject("current");
  EXPECT_EQ(current->getValue<std::string>("title"), "Private browsing window");
  EXPECT_EQ(current->getValue<std::string>("domain"), "");
  const std::string text = stateText();
  for (const char* leaked : {"health.example", "Flu symptoms", "symptoms"}) {
    EXPECT_EQ(text.find(leaked), std::string::npos) << leaked;
  }
  // The incognito tab heard first, its window after: private at once.
  ASSERT_EQ(heartbeat(firefox, "https://bank.example/statements", "Statements", true).status, 200);
  seeWindow("firefox", "Statements \xE2\x80\x94 Mozilla Firefox");
  EXPECT_EQ(evidence()->getObject("current")->getValue<std::string>("title"),
            "Private browsing window");
  EXPECT_EQ(stateText().find("bank.example"), std::string::npos);
}

/// Every logger's messages, at every level, while it lives.
class EveryLogLine : public Poco::Channel {
 public:
  void log(const Poco::Message& message) override {
    std::lock_guard<std::mutex> lock(mutex_);
    text_ += message.getText() + "\n";
  }
  std::string text() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

// A private window is judged by the local tiers on its raw title and site,
// in memory: a known distraction in one is the banner at once, and neither
// its title nor its site reaches the State, a log line or the store.
TEST_F(AwWatcherWebTest, AKnownDistractionInAPrivateWindowIsTheBannerAndItsTitleIsNowhere) {
  Poco::AutoPtr<EveryLogLine> logged(new EveryLogLine);
  Poco::Channel::Ptr saved = Poco::Logger::root().getChannel();
  const int savedLevel = Poco::Logger::root().getLevel();
  Poco::Logger::setChannel("", logged);
  Poco::Logger::setLevel("", Poco::Message::PRIO_TRACE);
  test::InProcessDaemon::Options options;
  options.settings.distractionSites = {DistractionSite{"social", {"reddit.com"}, {"Reddit"}}};
  daemon_.reset();
  daemon_ = std::make_unique<test::InProcessDaemon>(options);
  RequestOptions withToken;
  withToken.token = test::kToken;
  ASSERT_EQ(test::sendRequest(port(), "POST", "/planning", "{}", withToken).status, 200);
  ASSERT_EQ(test::sendRequest(port(), "POST", "/commitment",
                              R"({"next_action":"Write the release notes",)"
                              R"("success_condition":"The notes are merged",)"
                              R"("timebox_minutes":25,"allowed_apps":["code"]})",
                              withToken)
                .status,
            200);
  const RequestOptions firefox = extension(kFirefoxOrigin);
  startExtension(firefox);
  ASSERT_EQ(
      heartbeat(firefox, "https://old.reddit.com/r/aww/top", "Cute kittens : aww", true).status,
      200);
  seeWindow("firefox", "Cute kittens : aww \xE2\x80\x94 Mozilla Firefox Private Browsing");
  // The banner as the window arrives: its request is answered after the State changed.
  const Poco::JSON::Object::Ptr drift = state()->getObject("drift");
  EXPECT_EQ(drift->getValue<std::string>("status"), "drifting");
  EXPECT_EQ(drift->getValue<std::string>("reason"),
            "a private window shows a known distraction (social)");

  // Away from it, then the session ends: everything is written.
  seeWindow("code", "notes.md - release - Visual Studio Code");
  ASSERT_EQ(test::sendRequest(port(), "POST", "/abandon", "{}", withToken).status, 200);
  daemon_->executor().runAll();
  std::string stored;
  std::vector<std::string> files;
  Poco::File(daemon_->storeDir()).list(files);
  for (const std::string& name : files) {
    const Poco::File file(daemon_->storeDir() + "/" + name);
    if (!file.isFile()) continue;
    std::ifstream in(file.path());
    stored += std::string(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_FALSE(stored.empty());
  const std::string text = stateText();
  const std::string logs = logged->text();
  for (const char* leaked : {"reddit", "Reddit", "kittens", "aww"}) {
    EXPECT_EQ(text.find(leaked), std::string::npos) << leaked << " in the State";
    EXPECT_EQ(stored.find(leaked), std::string::npos) << leaked << " in the store";
    EXPECT_EQ(logs.find(leaked), std::string::npos) << leaked << " in a log line";
  }
  Poco::Logger::setChannel("", saved);
  Poco::Logger::setLevel("", savedLevel);
}

TEST_F(AwWatcherWebTest, AWebHeartbeatOfTheWrongShapeIs400) {
  const RequestOptions firefox = extension(kFirefoxOrigin);
  startExtension(firefox);
  for (const std::string& body :
       {std::string(R"({"data":{"url":7,"title":"x"}})"),
        std::string(R"({"data":{"url":"https://a.example/","title":"x","incognito":"yes"}})"),
        std::string(R"({"data":{"title":"x"}})")}) {
    const Reply reply =
        test::sendRequest(port(), "POST", kWebBucket + "/heartbeat?pulsetime=80", body, firefox);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_FALSE(reply.field("error").empty()) << body;
  }
}

// ---- Bad input ---------------------------------------------------------------------------

TEST_F(ActivityWatchApiTest, MalformedBodiesAre400JsonErrorsAndChangeNothing) {
  ASSERT_EQ(createBucket(kWindowBucket, "currentwindow", "aw-watcher-window").status, 200);
  const std::string heartbeat = kWindowBucket + "/heartbeat?pulsetime=2.0";
  for (const std::string& body :
       {std::string("{\"timestamp\":"), std::string("\"x\""), std::string("[1]"),
        std::string(R"({"data":{"app":7}})"), std::string(R"({"data":"Code"})")}) {
    const Reply reply = awPost(heartbeat, body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_FALSE(reply.field("error").empty()) << body;
  }
  const Reply noPulse = awPost(kWindowBucket + "/heartbeat", windowEvent("", 0, "Code", "x"));
  EXPECT_EQ(noPulse.status, 400);
  EXPECT_THAT(noPulse.field("error"), HasSubstr("pulsetime"));
  // One bad event in a list: none of them is applied.
  const Reply mixed = awPost(kWindowBucket + "/events",
                             "[" + windowEvent("", 0, "Code", "x") + R"(,{"data":{"app":1}}])");
  EXPECT_EQ(mixed.status, 400);
  EXPECT_FALSE(evidence()->has("current"));
  EXPECT_EQ(createBucket("/api/0/buckets/x", "", "c").status, 400);
}

// ---- Security ----------------------------------------------------------------------------

TEST_F(ActivityWatchApiTest, AnyOriginIsRefusedEvenSameOrigin) {
  RequestOptions fromPage;
  fromPage.origin = "http://127.0.0.1:" + std::to_string(port());
  const Reply post =
      awPost(kWindowBucket + "/heartbeat?pulsetime=2.0", windowEvent("", 0, "Code", "x"), fromPage);
  EXPECT_EQ(post.status, 403);
  EXPECT_FALSE(post.field("error").empty());
  fromPage.origin = "https://evil.example";
  EXPECT_EQ(test::sendRequest(port(), "GET", "/api/0/buckets/", "", fromPage).status, 403);
  EXPECT_FALSE(evidence()->has("current"));
}

TEST_F(ActivityWatchApiTest, NeedsNoTokenButJsonContentTypeAndALoopbackHost) {
  RequestOptions plain;
  plain.contentType = "text/plain";
  EXPECT_EQ(awPost(kWindowBucket, R"({"type":"currentwindow"})", plain).status, 415);

  RequestOptions rebound;
  rebound.host = "attacker.example";
  EXPECT_EQ(test::sendRequest(port(), "GET", "/api/0/info", "", rebound).status, 403);

  // The token routes still need the token.
  EXPECT_EQ(awPost("/evidence/window", R"({"app":"a","title":"b"})").status, 401);
  EXPECT_EQ(createBucket(kWindowBucket, "currentwindow", "aw-watcher-window").status, 200);
}

TEST_F(ActivityWatchApiTest, UnknownRoutesAndMethods) {
  EXPECT_EQ(awGet("/api/0/query/").status, 404);
  const Reply wrongMethod = awPost("/api/0/info", "{}");
  EXPECT_EQ(wrongMethod.status, 405);
  EXPECT_EQ(wrongMethod.response.get("Allow"), "GET");
}

TEST_F(ActivityWatchApiTest, OversizedBodyIs413) {
  const std::string big(kMaxBodyBytes + 1, ' ');
  EXPECT_EQ(awPost(kWindowBucket + "/heartbeat?pulsetime=1", big).status, 413);
}

// ---- Timestamps --------------------------------------------------------------------------

TEST(ActivityWatchTimestamp, ParsesAwClientIsoFormatsAndRefusesOthers) {
  EXPECT_EQ(ActivityWatchApi::parseTimestampMs("2020-06-28T21:14:25.734000+00:00"),
            1'593'378'865'734);
  EXPECT_EQ(ActivityWatchApi::parseTimestampMs("2020-06-28T23:14:25.734+02:00"), 1'593'378'865'734);
  EXPECT_EQ(ActivityWatchApi::parseTimestampMs("2020-06-28T21:14:25Z"), 1'593'378'865'000);
  EXPECT_FALSE(ActivityWatchApi::parseTimestampMs("yesterday"));
  EXPECT_FALSE(ActivityWatchApi::parseTimestampMs(""));
  EXPECT_FALSE(ActivityWatchApi::parseTimestampMs("1593378865734"));
}

// ---- Replay of aw-watcher-window exports (the real one and tests/data) ----------------------

TEST_F(ActivityWatchApiTest, ReplaysTwoHundredRealEventsAsHeartbeats) {
  ANTIDRIFT_SKIP_WITHOUT_REAL_EXPORT();
  replayAsHeartbeats(test::realExportPath(), "aw-watcher-window_dev-pc", 200);
}

// The repository's own export (tests/data/README.md): flickers, dialogs,
// emoji and non-ASCII titles, all of its window events.
TEST_F(ActivityWatchApiTest, ReplaysTheSmallExportsWindowEventsAsHeartbeats) {
  replayAsHeartbeats(test::smallExportPath(), "aw-watcher-window_testbox", 61);
}

}  // namespace
}  // namespace antidrift
