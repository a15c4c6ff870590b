// The ActivityWatch-compatible API (/api/0/..., DESIGN §3, docs/API.md
// "ActivityWatch-compatible API") on the real HTTP server on an ephemeral
// port, with a real Controller and real stores: the request sequences of
// aw-client based watchers, then the State they produce.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>

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
              normaliseApp(newest->getValue<std::string>("app")));
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
  const std::string web = "/api/0/buckets/aw-watcher-web-firefox";
  ASSERT_EQ(createBucket(web, "web.tab.current", "aw-client-web").status, 200);
  const Reply reply = awPost(
      web + "/heartbeat?pulsetime=65",
      R"({"timestamp":"2026-05-28T20:26:39Z","duration":0,"data":{"url":"https://example.org/",)"
      R"("title":"Example","audible":false,"incognito":false}})");
  EXPECT_EQ(reply.status, 200) << reply.body;
  const Poco::JSON::Object::Ptr after = state();
  EXPECT_EQ(after->getValue<std::uint64_t>("version"), before);
  EXPECT_FALSE(after->getObject("evidence")->has("current"));
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
