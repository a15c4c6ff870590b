// The real HTTP server on an ephemeral port, in-process, with a real
// Controller, real file stores in a temp directory, a FakeClock and a
// ManualExecutor (docs/DESIGN.md §10, docs/API.md).
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Exception.h>
#include <Poco/JSON/Array.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/TextConverter.h>
#include <Poco/UTF8Encoding.h>

#include "antidrift/session/controller.h"
#include "antidrift/store/audit_log.h"
#include "in_process_daemon.h"
#include "mocks/mock_backend.h"

namespace antidrift {
namespace {

using namespace std::chrono_literals;
using test::kToken;
using test::Reply;
using test::RequestOptions;
using test::SseEvent;
using test::SseRecorder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const char* kCommitment =
    R"({"next_action":"Write the HTTP integration test","success_condition":"ctest passes",)"
    R"("timebox_minutes":25,"allowed_apps":["code"]})";

/// Sends `request` verbatim on a new connection, optionally ends the sending
/// side (the client stops), and reads until the server closes; returns all
/// it sent back. Fails the test if the server keeps the connection open for
/// 10 s.
std::string exchangeRaw(std::uint16_t port, const std::string& request, bool stopSending) {
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  if (stopSending) {
    socket.shutdownSend();
  }
  std::string answer;
  char buffer[4096];
  try {
    int received = 0;
    while ((received = socket.receiveBytes(buffer, sizeof buffer)) > 0) {
      answer.append(buffer, static_cast<std::size_t>(received));
    }
  } catch (const Poco::TimeoutException&) {
    ADD_FAILURE() << "the server kept the connection open for 10 s";
  } catch (const Poco::Net::NetException&) {
    // A reset after the answer is a close too.
  }
  return answer;
}

/// The status code and JSON body of a raw HTTP/1.1 answer.
struct RawAnswer {
  int status = 0;
  std::string body;
};

RawAnswer parseRawAnswer(const std::string& answer) {
  RawAnswer result;
  if (answer.rfind("HTTP/1.1 ", 0) == 0 && answer.size() >= 12) {
    result.status = std::stoi(answer.substr(9, 3));
  }
  const std::size_t headersEnd = answer.find("\r\n\r\n");
  if (headersEnd != std::string::npos) {
    result.body = answer.substr(headersEnd + 4);
  }
  return result;
}

/// True when `text` is well-formed UTF-8 with no C0 control character.
bool isCleanUtf8(const std::string& text) {
  Poco::UTF8Encoding utf8;
  Poco::TextConverter converter(utf8, utf8);
  std::string copy;
  return converter.convert(text, copy) == 0 && std::none_of(text.begin(), text.end(), [](char c) {
           return static_cast<unsigned char>(c) < 0x20;
         });
}

class HttpSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test::InProcessDaemon::Options options;
    options.maxSseClients = maxSseClients();
    options.requestTimeout = requestTimeout();
    options.sseKeepAlive = sseKeepAlive();
    options.threads = threads();
    options.requestDeadline = requestDeadline();
    options.maxConnectionsPerUid = maxConnectionsPerUid();
    options.wwwDir = "www";
    options.settings.blockedApps = {"steam"};
    options.wwwFiles = {
        {"index.html",
         "<!doctype html><meta name=\"antidrift-token\" content=\"{{ANTIDRIFT_TOKEN}}\">\n"},
        {"app.js", "console.log('antidrift');\n"}};
    daemon_ = std::make_unique<test::InProcessDaemon>(options);
    ASSERT_NE(port(), 0);
  }

  void TearDown() override { daemon_.reset(); }

  virtual std::size_t maxSseClients() const { return 8; }
  virtual int threads() const { return 16; }
  virtual std::chrono::seconds requestTimeout() const { return std::chrono::seconds(5); }
  virtual std::chrono::milliseconds requestDeadline() const { return std::chrono::seconds(10); }
  virtual int maxConnectionsPerUid() const { return 0; }  // the daemon's default
  virtual std::chrono::milliseconds sseKeepAlive() const { return std::chrono::milliseconds(100); }

  std::uint16_t port() const { return daemon_->port(); }
  test::FakeClock& clock() { return daemon_->clock(); }
  test::ManualExecutor& executor() { return daemon_->executor(); }
  Controller& controller() { return daemon_->controller(); }
  SseBroadcaster& broadcaster() { return daemon_->broadcaster(); }
  ApiServer& server() { return daemon_->server(); }
  const std::string& storeDir() const { return daemon_->storeDir(); }

  Reply get(const std::string& path, RequestOptions options = {}) {
    return test::sendRequest(port(), "GET", path, "", options);
  }

  Reply post(const std::string& path, const std::string& body = "{}", RequestOptions options = {}) {
    if (!options.token) {
      options.token = kToken;
    }
    return test::sendRequest(port(), "POST", path, body, options);
  }

  std::string runtime() { return get("/state").field("runtime"); }

  std::uint64_t version() { return get("/state").json()->getValue<std::uint64_t>("version"); }

  void enterPlanning() { ASSERT_EQ(post("/planning").status, 200); }

  void enterActive() {
    enterPlanning();
    ASSERT_EQ(post("/commitment", kCommitment).status, 200);
  }

  std::unique_ptr<test::InProcessDaemon> daemon_;
};

// ---- The whole session ------------------------------------------------------------------

TEST_F(HttpSessionTest, WalksAWholeSessionWhileAnSseClientWatches) {
  SseRecorder sse(port());
  ASSERT_EQ(sse.status(), 200);
  EXPECT_EQ(sse.response().getContentType(), "text/event-stream");
  ASSERT_TRUE(sse.waitForRuntime("locked"));
  EXPECT_THAT(sse.preamble(), HasSubstr("retry: 2000"));

  const Reply planning = post("/planning");
  ASSERT_EQ(planning.status, 200) << planning.body;
  EXPECT_EQ(planning.field("runtime"), "planning");
  ASSERT_TRUE(sse.waitForRuntime("planning"));

  const Reply active = post("/commitment", kCommitment);
  ASSERT_EQ(active.status, 200) << active.body;
  EXPECT_EQ(active.field("runtime"), "active");
  const auto commitment = active.json()->getObject("commitment");
  ASSERT_TRUE(commitment);
  EXPECT_EQ(commitment->getValue<std::string>("next_action"), "Write the HTTP integration test");
  EXPECT_EQ(commitment->getValue<std::int64_t>("timebox_secs"), 1500);
  EXPECT_EQ(commitment->getArray("allowed_apps")->getElement<std::string>(0), "code");
  ASSERT_TRUE(sse.waitForRuntime("active"));

  const Reply first = post("/evidence/window", R"({"app":"Code","title":"http_session_test.cpp"})");
  EXPECT_EQ(first.status, 202) << first.body;
  EXPECT_EQ(first.body, R"({"ok":true})");
  clock().advance(60'000);
  const Reply second = post("/evidence/window", R"({"app":"firefox","title":"News","at":)" +
                                                    std::to_string(clock().nowUtcMs()) + "}");
  EXPECT_EQ(second.status, 202) << second.body;

  const auto state = get("/state").json();
  const auto evidence = state->getObject("evidence");
  EXPECT_EQ(evidence->getValue<std::string>("health"), "ok");
  EXPECT_EQ(evidence->getValue<std::string>("source"), "http");
  EXPECT_EQ(evidence->getObject("current")->getValue<std::string>("app"), "firefox");
  EXPECT_EQ(state->getObject("stats")->getValue<std::int64_t>("switches"), 1);
  const auto buckets = state->getObject("stats")->getArray("buckets");
  ASSERT_EQ(buckets->size(), 1u);
  EXPECT_EQ(buckets->getObject(0)->getValue<std::string>("app"), "code");
  EXPECT_EQ(buckets->getObject(0)->getValue<std::int64_t>("secs"), 60);

  const Reply review = post("/complete");
  ASSERT_EQ(review.status, 200) << review.body;
  EXPECT_EQ(review.field("runtime"), "review");
  EXPECT_EQ(review.field("outcome"), "completed");
  ASSERT_TRUE(sse.waitForRuntime("review"));
  executor().runAll();

  const Reply locked = post("/end");
  ASSERT_EQ(locked.status, 200) << locked.body;
  EXPECT_EQ(locked.field("runtime"), "locked");
  ASSERT_TRUE(sse.waitForRuntime("locked"));
  sse.close();

  // The SSE client saw every runtime, in order, with increasing ids.
  const std::vector<SseEvent> events = sse.events();
  std::vector<std::string> runtimes;
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].event, "state");
    if (i > 0) {
      EXPECT_GT(events[i].id, events[i - 1].id);
    }
    if (runtimes.empty() || runtimes.back() != events[i].runtime) {
      runtimes.push_back(events[i].runtime);
    }
  }
  EXPECT_THAT(runtimes, ElementsAre("locked", "planning", "active", "review", "locked"));

  // One audit record, and the chain verifies.
  const AuditVerification verification = AuditLog::verify(storeDir() + "/audit.jsonl");
  EXPECT_TRUE(verification.ok) << verification.problem;
  EXPECT_EQ(verification.records, 1u);

  const Reply history = get("/history?n=10");
  ASSERT_EQ(history.status, 200);
  const auto sessions = history.json()->getArray("sessions");
  ASSERT_EQ(sessions->size(), 1u);
  EXPECT_EQ(sessions->getObject(0)->getValue<std::string>("next_action"),
            "Write the HTTP integration test");
  EXPECT_EQ(sessions->getObject(0)->getValue<std::string>("outcome"), "completed");
}

TEST_F(HttpSessionTest, AbandonAndCancelAreRoutes) {
  enterPlanning();
  EXPECT_EQ(post("/planning/cancel").field("runtime"), "locked");
  enterActive();
  const Reply abandoned = post("/abandon");
  EXPECT_EQ(abandoned.status, 200);
  EXPECT_EQ(abandoned.field("outcome"), "abandoned");
}

TEST_F(HttpSessionTest, TheDriftBannerActionsAreRoutes) {
  // Outside active: 409 with the state, nothing changes.
  for (const std::string route : {"/drift/refocus", "/drift/ontask"}) {
    const Reply refused = post(route);
    EXPECT_EQ(refused.status, 409) << route;
    EXPECT_EQ(refused.field("state"), "locked") << route;
  }
  enterActive();
  EXPECT_EQ(post("/drift/ontask").status, 409);  // nothing judged off task yet
  ASSERT_EQ(post("/evidence/window", R"({"app":"Steam","title":"Library"})").status, 202);
  auto drift = get("/state").json()->getObject("drift");
  EXPECT_EQ(drift->getValue<std::string>("status"), "drifting");
  EXPECT_EQ(drift->getValue<std::string>("reason"), "steam is blocked during focus");

  const Reply refocused = post("/drift/refocus");
  ASSERT_EQ(refocused.status, 200) << refocused.body;
  EXPECT_EQ(refocused.json()->getObject("drift")->getValue<std::string>("status"), "unknown");

  // A hard rule is not overridden by a button: 409 naming the rule, nothing changes.
  ASSERT_EQ(post("/evidence/window", R"({"app":"Steam","title":"Library"})").status, 202);
  EXPECT_TRUE(get("/state").json()->getObject("drift")->getValue<bool>("blocked"));
  const Reply refused = post("/drift/ontask");
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_THAT(refused.field("error"), HasSubstr("drift.blocked_apps"));
  EXPECT_EQ(get("/state").json()->getObject("stats")->getValue<int>("corrections"), 0);
}

TEST_F(HttpSessionTest, CommitmentInSecondsAndWithoutAllowedApps) {
  enterPlanning();
  const Reply active =
      post("/commitment", R"({"next_action":"Read","success_condition":"Done","timebox_secs":90})");
  ASSERT_EQ(active.status, 200) << active.body;
  EXPECT_EQ(active.json()->getObject("commitment")->getValue<std::int64_t>("timebox_secs"), 90);
}

TEST_F(HttpSessionTest, ACommitmentWithoutASuccessConditionIs400AndChangesNothing) {
  enterPlanning();
  const std::uint64_t before = version();
  for (const char* body :
       {R"({"next_action":"Read","success_condition":"","timebox_minutes":5})",
        R"({"next_action":"Read","success_condition":"   ","timebox_minutes":5})"}) {
    const Reply refused = post("/commitment", body);
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_EQ(refused.field("error"),
              "success_condition must not be empty: say what done looks like for this session");
  }
  EXPECT_EQ(version(), before);
  EXPECT_EQ(get("/state").json()->getValue<std::string>("runtime"), "planning");
}

// ---- Transitions that are not allowed ---------------------------------------------------

TEST_F(HttpSessionTest, IllegalTransitionIs409WithTheStateAndChangesNothing) {
  const std::uint64_t before = version();
  const Reply reply = post("/complete");
  EXPECT_EQ(reply.status, 409);
  EXPECT_EQ(reply.field("state"), "locked");
  EXPECT_FALSE(reply.field("error").empty());
  EXPECT_EQ(runtime(), "locked");
  EXPECT_EQ(version(), before);

  enterPlanning();
  const Reply end = post("/end");
  EXPECT_EQ(end.status, 409);
  EXPECT_EQ(end.field("state"), "planning");
}

TEST_F(HttpSessionTest, EndWhenTheAuditLogCannotBeWrittenIs503AndKeepsTheSession) {
  enterActive();
  ASSERT_EQ(post("/complete").status, 200);
  // A directory where audit.jsonl should be: the append fails.
  Poco::File(storeDir() + "/audit.jsonl").createDirectories();
  const Reply refused = post("/end");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.field("state"), "review");
  EXPECT_EQ(refused.response.get("Retry-After"), "5");
  EXPECT_EQ(runtime(), "review");

  Poco::File(storeDir() + "/audit.jsonl").remove();
  EXPECT_EQ(post("/end").status, 200);
  EXPECT_EQ(AuditLog::verify(storeDir() + "/audit.jsonl").records, 1u);
}

TEST_F(HttpSessionTest, AnActionWhoseSnapshotCannotBeWrittenIs503AndChangesNothing) {
  ASSERT_EQ(post("/planning").status, 200);
  const auto version = [this] { return get("/state").json()->getValue<std::int64_t>("version"); };
  const std::int64_t before = version();
  // A non-empty directory where snapshot.json should be: the rename fails
  // (as a full disk fails the write; issue 9 item 1).
  Poco::File(storeDir() + "/snapshot.json").remove();
  Poco::File(storeDir() + "/snapshot.json/blocker").createDirectories();
  const Reply refused = post("/commitment", kCommitment);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_THAT(refused.field("error"), HasSubstr("could not save the session"));
  EXPECT_EQ(refused.field("state"), "planning");
  EXPECT_EQ(refused.response.get("Retry-After"), "5");
  EXPECT_EQ(runtime(), "planning");
  EXPECT_EQ(version(), before);  // nothing changed, nothing announced

  Poco::File(storeDir() + "/snapshot.json").remove(true);
  const Reply started = post("/commitment", kCommitment);
  EXPECT_EQ(started.status, 200) << started.body;
  EXPECT_EQ(runtime(), "active");
}

// ---- Bad bodies -------------------------------------------------------------------------

TEST_F(HttpSessionTest, MalformedJsonIs400AndChangesNothing) {
  for (const char* body : {"{oops", "[1,2]", "\"text\"", "{\"a\":}"}) {
    const Reply reply = post("/planning", body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_THAT(reply.field("error"), HasSubstr("JSON")) << body;
  }
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, WrongTypesAndInvalidValuesAre400NamingTheField) {
  enterPlanning();
  const std::pair<const char*, const char*> cases[] = {
      {R"({"next_action":5,"success_condition":"s","timebox_minutes":10})", "next_action"},
      {R"({"success_condition":"s","timebox_minutes":10})", "next_action"},
      {R"({"next_action":"a","timebox_minutes":10})", "success_condition"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":"ten"})", "timebox_minutes"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":10.5})", "timebox_minutes"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":true})", "timebox_minutes"},
      {R"({"next_action":"a","success_condition":"s","timebox_secs":"60"})", "timebox_secs"},
      {R"({"next_action":"a","success_condition":"s"})", "timebox"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":10,"allowed_apps":"code"})",
       "allowed_apps"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":10,"allowed_apps":[1]})",
       "allowed_apps"},
      {R"({"next_action":"a","success_condition":"s","timebox_minutes":10,"allowed_apps":{}})",
       "allowed_apps"},
  };
  for (const auto& [body, field] : cases) {
    const Reply reply = post("/commitment", body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_THAT(reply.field("error"), HasSubstr(field)) << body;
  }
  // Values the core refuses (docs/DESIGN.md §2): empty next action, timebox 0, over 12 h.
  for (const char* body :
       {R"({"next_action":"  ","success_condition":"s","timebox_minutes":10})",
        R"({"next_action":"a","success_condition":"s","timebox_minutes":0})",
        R"({"next_action":"a","success_condition":"s","timebox_minutes":-5})",
        R"({"next_action":"a","success_condition":"s","timebox_minutes":721})"}) {
    const Reply reply = post("/commitment", body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_FALSE(reply.field("error").empty()) << body;
    EXPECT_THROW(reply.json()->getValue<std::string>("state"), Poco::Exception) << body;
  }
  EXPECT_EQ(runtime(), "planning");
}

// Issue 17 item 4: a typo is refused with the nearest known field, not
// silently dropped (the person's apps were lost without a word).
TEST_F(HttpSessionTest, AnUnknownFieldIs400NamingTheNearestAndChangesNothing) {
  enterPlanning();
  const Reply typo = post(
      "/commitment",
      R"({"next_action":"a","success_condition":"s","timebox_minutes":10,"allowed_app":["code"]})");
  EXPECT_EQ(typo.status, 400);
  EXPECT_EQ(typo.field("error"), R"(unknown field "allowed_app"; did you mean "allowed_apps"?)");
  EXPECT_EQ(runtime(), "planning");
  EXPECT_EQ(post("/planning/cancel", R"({"force":true})").field("error"),
            R"(unknown field "force"; this request takes no fields)");
  EXPECT_EQ(runtime(), "planning");
  EXPECT_THAT(post("/evidence/window", R"({"app":"code","title":"x","tilte":"y"})").field("error"),
              HasSubstr(R"(did you mean "title"?)"));
  EXPECT_EQ(get("/state").json()->getObject("evidence")->has("current"), false);
  // Every field a route documents is still taken.
  EXPECT_EQ(post("/evidence/window", R"({"app":"code","title":"x","at":0})").status, 202);
  EXPECT_EQ(post("/commitment", R"({"next_action":"a","success_condition":"s","timebox_secs":60,)"
                                R"("timebox_minutes":1,"allowed_apps":["code"]})")
                .status,
            200);
}

TEST_F(HttpSessionTest, EvidenceFieldsAreTypeChecked) {
  EXPECT_EQ(post("/evidence/window", R"({"app":1,"title":"x"})").status, 400);
  EXPECT_THAT(post("/evidence/window", R"({"title":"x"})").field("error"), HasSubstr("app"));
  EXPECT_THAT(post("/evidence/window", R"({"app":"code"})").field("error"), HasSubstr("title"));
  EXPECT_THAT(post("/evidence/window", R"({"app":"code","title":"x","at":"now"})").field("error"),
              HasSubstr("at"));
  EXPECT_EQ(get("/state").json()->getObject("evidence")->has("current"), false);
}

TEST_F(HttpSessionTest, BodiesOver64KiBAre413) {
  enterPlanning();
  const std::string padding(65 * 1024, 'x');
  const std::string body =
      R"({"next_action":"a","success_condition":")" + padding + R"(","timebox_minutes":10})";
  const Reply declared = post("/commitment", body);
  EXPECT_EQ(declared.status, 413);
  EXPECT_THAT(declared.field("error"), HasSubstr("64 KiB"));

  RequestOptions chunked;
  chunked.chunked = true;
  const Reply streamed = post("/commitment", body, chunked);
  EXPECT_EQ(streamed.status, 413);
  EXPECT_EQ(runtime(), "planning");

  // Just under the cap is fine (the title is cut to 512 bytes by the core).
  const std::string title(60 * 1024, 't');
  EXPECT_EQ(post("/evidence/window", R"({"app":"code","title":")" + title + "\"}").status, 202);
}

TEST_F(HttpSessionTest, ADeclaredOversizedBodyIs413AtOnceWithoutWaitingForIt) {
  // The header promises 100 KiB; only one byte follows. The answer must come
  // from the header alone, well before the 5 s request timeout.
  Poco::Net::HTTPClientSession session("127.0.0.1", port());
  session.setTimeout(Poco::Timespan(20, 0));
  Poco::Net::HTTPRequest request("POST", "/commitment", Poco::Net::HTTPMessage::HTTP_1_1);
  request.setContentType("application/json");
  request.set("X-AntiDrift-Token", kToken);
  request.setContentLength64(100 * 1024);
  const auto started = std::chrono::steady_clock::now();
  std::ostream& out = session.sendRequest(request);
  out << "{";
  out.flush();
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  std::string body;
  Poco::StreamCopier::copyToString(in, body);
  EXPECT_EQ(static_cast<int>(response.getStatus()), 413) << body;
  EXPECT_THAT(body, HasSubstr("64 KiB"));
  EXPECT_FALSE(response.getKeepAlive());
  EXPECT_LT(elapsed, 2s);
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, ABodyCutOffBeforeItsContentLengthIs400AndChangesNothing) {
  // The client promises 100 bytes, sends "{}" and closes its sending side.
  const std::string request =
      "POST /planning HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nX-AntiDrift-Token: " +
      kToken + "\r\nContent-Length: 100\r\n\r\n{}";
  const RawAnswer answer = parseRawAnswer(exchangeRaw(port(), request, true));
  EXPECT_EQ(answer.status, 400) << answer.body;
  EXPECT_EQ(answer.body, R"({"error":"the request body is shorter than its Content-Length"})");
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, NonObjectBodiesAreNamedPlainly) {
  for (const char* body : {"\"x\"", "null", "  42 ", "[1,2]", "true"}) {
    const Reply reply = post("/planning", body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_EQ(reply.field("error"), "the request body must be a JSON object") << body;
  }
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, MalformedJsonGivesAShortReasonWithoutPocoInternals) {
  const std::pair<const char*, const char*> cases[] = {
      {"{oops", "malformed JSON: unexpected byte 'o' in value"},
      {R"({"a":1)", "malformed JSON: expected ',' or '}' after member value"},
      {R"({"a":1}})", "malformed JSON: excess characters found after JSON end"},
      {"oops", "malformed JSON: unexpected byte 'o' in value"},
      {R"({"a":"\ud800"})", "malformed JSON: "},
  };
  for (const auto& [body, expected] : cases) {
    const Reply reply = post("/planning", body);
    EXPECT_EQ(reply.status, 400) << body;
    const std::string error = reply.field("error");
    EXPECT_THAT(error, HasSubstr(expected)) << body;
    EXPECT_THAT(error, Not(HasSubstr("stack"))) << body;
    EXPECT_THAT(error, Not(HasSubstr("Exception"))) << body;
  }
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, NumbersTooLargeForAnIntegerNameTheField) {
  enterPlanning();
  for (const char* number : {"99999999999999999999", "-99999999999999999999",
                             "18446744073709551615", "9223372036854775808"}) {
    const std::string body = std::string(R"({"next_action":"a","success_condition":"s",)") +
                             R"("timebox_minutes":)" + number + "}";
    const Reply reply = post("/commitment", body);
    EXPECT_EQ(reply.status, 400) << number;
    EXPECT_EQ(reply.field("error"), "timebox_minutes must be an integer") << number;
  }
  const Reply at =
      post("/evidence/window", R"({"app":"code","title":"x","at":99999999999999999999})");
  EXPECT_EQ(at.status, 400);
  EXPECT_EQ(at.field("error"), "at must be an integer");
  EXPECT_EQ(runtime(), "planning");
}

TEST_F(HttpSessionTest, RawInvalidUtf8InTheBodyIs400) {
  for (const std::string& body :
       {std::string("{\"app\":\"code\",\"title\":\"caf\xe9\"}"),
        std::string("{\"app\":\"code\",\"title\":\"\xff\xfe\"}"),
        std::string("{\"app\":\"code\",\"title\":\"\xed\xa0\x80\"}"),
        std::string("{\"app\":\"code\",\"title\":\"over\xc0\xaflong\"}")}) {
    const Reply reply = post("/evidence/window", body);
    EXPECT_EQ(reply.status, 400);
    EXPECT_EQ(reply.field("error"), "the request body is not valid UTF-8");
  }
  EXPECT_EQ(get("/state").json()->getObject("evidence")->has("current"), false);
  // Valid multi-byte UTF-8 is fine.
  EXPECT_EQ(
      post("/evidence/window", "{\"app\":\"code\",\"title\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}")
          .status,
      202);
}

TEST_F(HttpSessionTest, CoachWorksOnlyInPlanningAndSaysSoWithoutAi) {
  const Reply locked = post("/coach", R"({"intent":"write the tests"})");
  EXPECT_EQ(locked.status, 400);
  EXPECT_FALSE(locked.field("error").empty());

  enterPlanning();
  EXPECT_THAT(post("/coach", R"({"intent":5})").field("error"), HasSubstr("intent"));
  EXPECT_THAT(post("/coach", "{}").field("error"), HasSubstr("intent"));
  EXPECT_EQ(post("/coach", R"({"intent":"   "})").status, 400);

  const Reply asked = post("/coach", R"({"intent":"write the tests"})");
  ASSERT_EQ(asked.status, 200) << asked.body;
  const auto coach = asked.json()->getObject("coach");
  ASSERT_TRUE(coach);
  EXPECT_EQ(coach->getValue<std::string>("status"), "error");
  EXPECT_EQ(coach->getValue<std::string>("error"), "coach unavailable");
  EXPECT_EQ(runtime(), "planning");
}

TEST_F(HttpSessionTest, ASecondCoachRequestWhileOneIsPendingIs409) {
  auto backend = std::make_shared<::testing::NiceMock<test::MockBackend>>();
  ON_CALL(*backend, complete(::testing::_, ::testing::_))
      .WillByDefault(::testing::Return(std::string(
          R"({"next_action": "Write the tests", "success_condition": "green", "timebox_minutes": 20})")));
  controller().setBackend(backend);
  enterPlanning();
  const Reply first = post("/coach", R"({"intent":"write the tests"})");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.json()->getObject("coach")->getValue<std::string>("status"), "pending");
  const Reply second = post("/coach", R"({"intent":"something else"})");
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(second.field("state"), "planning");
  EXPECT_THAT(second.field("error"), HasSubstr("still working"));
  executor().runAll();
  const Reply state = get("/state");
  EXPECT_EQ(state.json()->getObject("coach")->getValue<std::string>("status"), "ready");
}

// ---- Routes and methods -----------------------------------------------------------------

TEST_F(HttpSessionTest, UnknownRouteIs404) {
  const Reply reply = get("/nope");
  EXPECT_EQ(reply.status, 404);
  EXPECT_THAT(reply.field("error"), HasSubstr("/nope"));
  EXPECT_EQ(post("/nope").status, 404);
  EXPECT_EQ(get("/state/").status, 404);
}

TEST_F(HttpSessionTest, ErrorsQuoteTheRequestAsCleanUtf8) {
  // A raw 0xFF byte becomes U+FFFD; a NUL is dropped, never echoed as \u0000.
  const Reply invalid = get("/%ff");
  EXPECT_EQ(invalid.status, 404);
  EXPECT_TRUE(isCleanUtf8(invalid.body)) << invalid.body;
  EXPECT_EQ(invalid.field("error"), "not found: /\xEF\xBF\xBD");

  const Reply nul = get("/app.js%00.png");
  EXPECT_EQ(nul.status, 404);
  EXPECT_THAT(nul.body, Not(HasSubstr("\\u0000")));
  EXPECT_EQ(nul.field("error"), "not found: /app.js.png");

  const Reply route = post("/nope%01%ff");
  EXPECT_EQ(route.status, 404);
  EXPECT_TRUE(isCleanUtf8(route.body)) << route.body;
  EXPECT_EQ(route.field("error"), "no such route: POST /nope\xEF\xBF\xBD");

  const Reply method = test::sendRequest(port(), "DELETE", "/state%1b%fe");
  EXPECT_EQ(method.status, 404);
  EXPECT_TRUE(isCleanUtf8(method.body)) << method.body;
}

TEST_F(HttpSessionTest, WrongMethodIs405WithAllow) {
  const Reply getPlanning = get("/planning");
  EXPECT_EQ(getPlanning.status, 405);
  EXPECT_EQ(getPlanning.response.get("Allow"), "POST");
  EXPECT_FALSE(getPlanning.field("error").empty());

  const Reply deleteState = test::sendRequest(port(), "DELETE", "/state");
  EXPECT_EQ(deleteState.status, 405);
  EXPECT_EQ(deleteState.response.get("Allow"), "GET");
  EXPECT_EQ(post("/state").status, 405);
}

// ---- Security (docs/DESIGN.md §10) --------------------------------------------------------------

TEST_F(HttpSessionTest, ForeignHostIs403ForReadsAndWrites) {
  RequestOptions rebinding;
  rebinding.host = "attacker.example:" + std::to_string(port());
  const Reply read = get("/state", rebinding);
  EXPECT_EQ(read.status, 403);
  EXPECT_THAT(read.field("error"), HasSubstr("Host"));
  EXPECT_EQ(post("/planning", "{}", rebinding).status, 403);
  EXPECT_EQ(runtime(), "locked");

  RequestOptions localhost;
  localhost.host = "localhost:" + std::to_string(port());
  EXPECT_EQ(get("/state", localhost).status, 200);
}

TEST_F(HttpSessionTest, MissingTokenIs401AndWrongTokenIs403) {
  const Reply missing = test::sendRequest(port(), "POST", "/planning", "{}", RequestOptions{});
  EXPECT_EQ(missing.status, 401);
  EXPECT_THAT(missing.field("error"), HasSubstr("X-AntiDrift-Token"));

  RequestOptions wrong;
  wrong.token = std::string(64, '0');
  EXPECT_EQ(post("/planning", "{}", wrong).status, 403);
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, WrongContentTypeIs415) {
  RequestOptions text;
  text.contentType = "text/plain";
  EXPECT_EQ(post("/planning", "{}", text).status, 415);
  RequestOptions form;
  form.contentType = "application/x-www-form-urlencoded";
  EXPECT_EQ(post("/planning", "{}", form).status, 415);
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, CrossOriginIs403AndSameOriginIsAccepted) {
  RequestOptions evil;
  evil.origin = "http://evil.example";
  EXPECT_EQ(post("/planning", "{}", evil).status, 403);
  EXPECT_EQ(runtime(), "locked");

  RequestOptions same;
  same.origin = "http://127.0.0.1:" + std::to_string(port());
  EXPECT_EQ(post("/planning", "{}", same).status, 200);
}

// ---- Reads ------------------------------------------------------------------------------

TEST_F(HttpSessionTest, HealthzReportsRuntimeAndEvidence) {
  const Reply before = get("/healthz");
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(
      before.body,
      R"({"ai":"none","ai_auto":false,"ai_prompts":"","evidence":"unavailable","runtime":"locked","status":"ok"})");
  ASSERT_EQ(post("/evidence/window", R"({"app":"code","title":"x"})").status, 202);
  EXPECT_EQ(get("/healthz").field("evidence"), "ok");
}

TEST_F(HttpSessionTest, HistoryValidatesN) {
  EXPECT_EQ(get("/history").status, 200);
  const Reply empty = get("/history?n=1");
  ASSERT_EQ(empty.status, 200);
  EXPECT_EQ(empty.json()->getArray("sessions")->size(), 0u);
  EXPECT_EQ(empty.json()->getArray("days")->size(), 14u);
  EXPECT_EQ(get("/history?n=200").status, 200);
  for (const char* bad : {"0", "201", "abc", "", "-1", "1.5", "99999999999"}) {
    const Reply reply = get(std::string("/history?n=") + bad);
    EXPECT_EQ(reply.status, 400) << bad;
    EXPECT_THAT(reply.field("error"), HasSubstr("n must be an integer from 1 to 200")) << bad;
  }
}

TEST_F(HttpSessionTest, StateJsonCarriesServerTime) {
  const auto state = get("/state").json();
  EXPECT_EQ(state->getValue<std::int64_t>("now"), clock().nowUtcMs());
  EXPECT_EQ(state->getObject("ai")->getValue<std::string>("backend"), "none");
}

// ---- Static files -----------------------------------------------------------------------

TEST_F(HttpSessionTest, IndexCarriesTheTokenAndSecurityHeaders) {
  const Reply index = get("/");
  ASSERT_EQ(index.status, 200);
  EXPECT_EQ(index.response.getContentType(), "text/html; charset=utf-8");
  EXPECT_THAT(index.body, HasSubstr("content=\"" + kToken + "\""));
  EXPECT_THAT(index.body, Not(HasSubstr("{{ANTIDRIFT_TOKEN}}")));
  EXPECT_THAT(index.response.get("Content-Security-Policy"), HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(index.response.get("Cache-Control"), "no-store");
  EXPECT_EQ(index.response.get("X-Content-Type-Options"), "nosniff");

  const Reply script = get("/app.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.response.getContentType(), "text/javascript; charset=utf-8");
  EXPECT_EQ(script.body, "console.log('antidrift');\n");
}

TEST_F(HttpSessionTest, MissingOrUnsafeStaticPathsAre404) {
  EXPECT_EQ(get("/style.css").status, 404);  // not written in this test's www/
  EXPECT_EQ(get("/../store/token").status, 404);
  EXPECT_EQ(get("/%2e%2e/store/token").status, 404);
  EXPECT_EQ(get("/.hidden").status, 404);
  EXPECT_EQ(get("//etc/passwd").status, 404);
}

// ---- SSE limits -------------------------------------------------------------------------

class SseCapTest : public HttpSessionTest {
 protected:
  std::size_t maxSseClients() const override { return 1; }
};

TEST_F(SseCapTest, BeyondMaxClientsIs503AndADisconnectFreesTheSlot) {
  auto first = std::make_unique<SseRecorder>(port());
  ASSERT_EQ(first->status(), 200);
  ASSERT_TRUE(first->waitForRuntime("locked"));

  SseRecorder second(port());
  EXPECT_EQ(second.status(), 503);
  EXPECT_THAT(second.errorBody(), HasSubstr("\"error\""));

  // REST still works while the stream holds its thread.
  EXPECT_EQ(get("/healthz").status, 200);

  first->close();
  EXPECT_TRUE(broadcaster().waitForClientCountForTest(0, 10s));
  SseRecorder third(port());
  EXPECT_EQ(third.status(), 200);
  EXPECT_TRUE(third.waitForRuntime("locked"));
}

/// Streams that are never written to while the test runs: the keep-alive is
/// an hour away, so only the hangup probe can notice a client that left.
class SseHangupTest : public HttpSessionTest {
 protected:
  std::size_t maxSseClients() const override { return 2; }
  std::chrono::milliseconds sseKeepAlive() const override { return std::chrono::hours(1); }
};

TEST_F(SseHangupTest, KilledStreamsFreeTheirSlotsWithoutAnyWrite) {
  // Issue 9 item 6: a killed tab held its slot and pool thread (and its
  // socket in CLOSE_WAIT) until the next keep-alive, 15 s by default; with
  // max_sse_clients killed tabs in that window, every new stream got 503.
  for (int round = 0; round < 3; ++round) {
    auto first = std::make_unique<SseRecorder>(port());
    auto second = std::make_unique<SseRecorder>(port());
    ASSERT_EQ(first->status(), 200) << "round " << round;
    ASSERT_EQ(second->status(), 200) << "round " << round;
    ASSERT_TRUE(first->waitForRuntime("locked"));
    ASSERT_TRUE(second->waitForRuntime("locked"));
    first->close();  // aborts the connection, like a killed process
    second->close();
    ASSERT_TRUE(broadcaster().waitForClientCountForTest(0, 10s)) << "round " << round;
  }
}

/// A browser tab's event stream on a bare socket: sends GET /events and
/// reads the status line; close() is the orderly close of a reloaded tab.
class RawTab {
 public:
  explicit RawTab(std::uint16_t port) : socket_(Poco::Net::SocketAddress("127.0.0.1", port)) {
    const std::string request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    socket_.sendBytes(request.data(), static_cast<int>(request.size()));
  }
  /// The HTTP status of the answer (0 when none came within 10 s).
  int status() {
    socket_.setReceiveTimeout(Poco::Timespan(10, 0));
    char buffer[64] = {};
    const int count = socket_.receiveBytes(buffer, sizeof buffer - 1);
    const std::string head(buffer, count > 0 ? static_cast<std::size_t>(count) : 0);
    return head.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(head.substr(9, 3)) : 0;
  }
  void close() { socket_.close(); }

 private:
  Poco::Net::StreamSocket socket_;
};

/// As many tabs as server.max_sse_clients, and threads for all of them.
class SseReloadTest : public HttpSessionTest {
 protected:
  static constexpr std::size_t kTabs = 100;
  std::size_t maxSseClients() const override { return kTabs; }
  int threads() const override { return static_cast<int>(kTabs) + 8; }
  std::chrono::milliseconds sseKeepAlive() const override { return std::chrono::hours(1); }
};

TEST_F(SseReloadTest, HundredTabsReloadedInALoopNeverSee503UnderTheCap) {
  // Issue 8 item 3: a reload closes the old stream and opens a new one at
  // once; the old stream's slot must be free by then (its socket turned
  // readable: the stream ends, or a subscribe at the cap evicts it), or the
  // new one gets 503 with the cap not really reached.
  std::vector<std::unique_ptr<RawTab>> tabs;
  for (std::size_t i = 0; i < kTabs; ++i) {
    tabs.push_back(std::make_unique<RawTab>(port()));
    ASSERT_EQ(tabs.back()->status(), 200) << "tab " << i;
  }
  int refused = 0;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < kTabs; ++i) {
      tabs[i]->close();
      tabs[i] = std::make_unique<RawTab>(port());
      const int status = tabs[i]->status();
      refused += status == 503 ? 1 : 0;
      ASSERT_TRUE(status == 200 || status == 503) << "round " << round << " tab " << i;
    }
  }
  EXPECT_EQ(refused, 0);
  // The cap still holds for a 101st stream.
  RawTab extra(port());
  EXPECT_EQ(extra.status(), 503);
  for (auto& tab : tabs) tab->close();
  EXPECT_TRUE(broadcaster().waitForClientCountForTest(0, 10s));
}

TEST_F(HttpSessionTest, TheFirstSseEventIsFreshNotTheLastBroadcast) {
  enterActive();  // 25 min timebox; the last broadcast is from this moment
  // 20 minutes pass without any change: nothing is broadcast.
  clock().advance(20 * 60'000);
  SseRecorder sse(port());
  ASSERT_EQ(sse.status(), 200);
  ASSERT_TRUE(sse.waitUntil([](const std::vector<SseEvent>& events) { return !events.empty(); }));
  const SseEvent first = sse.events().front();
  Poco::JSON::Parser parser;
  const auto state = parser.parse(first.data).extract<Poco::JSON::Object::Ptr>();
  EXPECT_EQ(state->getValue<std::int64_t>("now"), clock().nowUtcMs());
  EXPECT_EQ(state->getObject("commitment")->getValue<std::int64_t>("remaining_secs"), 5 * 60);
  EXPECT_EQ(first.id, version());
}

class ShortRequestTimeoutTest : public HttpSessionTest {
 protected:
  std::chrono::seconds requestTimeout() const override { return std::chrono::seconds(1); }
};

TEST_F(ShortRequestTimeoutTest, ASilentConnectionIsClosedAfterTheRequestTimeout) {
  // Half a request line, then silence: the server must hang up after about
  // server.request_timeout_s instead of holding a pool thread.
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port()));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  const std::string partial = "GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  socket.sendBytes(partial.data(), static_cast<int>(partial.size()));
  const auto started = std::chrono::steady_clock::now();
  char buffer[512];
  int received = 0;
  try {
    while ((received = socket.receiveBytes(buffer, sizeof buffer)) > 0) {
      // An error answer may come before the close; keep reading to the end.
    }
  } catch (const Poco::TimeoutException&) {
    FAIL() << "the server kept the silent connection open for 10 s";
  } catch (const Poco::Net::NetException&) {
    received = 0;  // a reset is a close too
  }
  const auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(received, 0);
  EXPECT_LT(elapsed, 5s) << "the default would have been 60 s";
  // Still serving.
  EXPECT_EQ(get("/healthz").status, 200);
}

TEST_F(ShortRequestTimeoutTest, ABodyThatStopsShortOfItsContentLengthIs400AndChangesNothing) {
  // The client promises 100 bytes, sends "{}" and goes silent: the receive
  // timeout ends the read, and the request must not be carried out.
  const std::string request =
      "POST /planning HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nX-AntiDrift-Token: " +
      kToken + "\r\nContent-Length: 100\r\n\r\n{}";
  const auto started = std::chrono::steady_clock::now();
  const RawAnswer answer = parseRawAnswer(exchangeRaw(port(), request, false));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_EQ(answer.status, 400) << answer.body;
  EXPECT_EQ(answer.body, R"({"error":"the request body is shorter than its Content-Length"})");
  EXPECT_EQ(runtime(), "locked");
}

TEST_F(HttpSessionTest, StopEndsOpenStreams) {
  SseRecorder sse(port());
  ASSERT_TRUE(sse.waitForRuntime("locked"));
  server().stop();
  EXPECT_TRUE(sse.waitUntil([](const std::vector<SseEvent>& events) {
    return !events.empty() && events.back().event == "bye";
  }));
}

// ---- The accept thread and the pool (issue 8) -------------------------------------------

/// The names of this process's threads (/proc/self/task/*/comm).
std::vector<std::string> threadNames() {
  std::vector<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) {
      names.push_back(name);
    }
  }
  return names;
}

bool hasThreadStartingWith(const std::string& prefix, const std::string& except = "") {
  const std::vector<std::string> names = threadNames();
  return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
    return name.rfind(prefix, 0) == 0 && name != except;
  });
}

/// Whether a pool thread ("ad-http-" and a number) is running.
bool hasPoolThread() {
  const std::vector<std::string> names = threadNames();
  return std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return name.rfind("ad-http-", 0) == 0 && name.size() > 8 &&
           std::isdigit(static_cast<unsigned char>(name[8])) != 0;
  });
}

TEST_F(HttpSessionTest, ServerThreadsAreNamedAndAStreamingThreadSaysSo) {
  EXPECT_TRUE(hasThreadStartingWith("ad-http-accept"));
  EXPECT_TRUE(hasThreadStartingWith("ad-http-reaper"));  // issue 19 item 1
  EXPECT_EQ(get("/state").status, 200);
  EXPECT_TRUE(hasPoolThread());
  EXPECT_FALSE(hasThreadStartingWith("ad-sse-"));
  SseRecorder sse(port());
  ASSERT_TRUE(sse.waitForRuntime("locked"));
  EXPECT_TRUE(hasThreadStartingWith("ad-sse-"));
  server().stop();
  EXPECT_FALSE(hasThreadStartingWith("ad-http-accept"));
  EXPECT_FALSE(hasThreadStartingWith("ad-http-reaper"));
}

class TwoThreadServerTest : public HttpSessionTest {
 protected:
  int threads() const override { return 2; }
  // Above the default of 2 × threads, so the queue, not the per-user cap, is what refuses.
  int maxConnectionsPerUid() const override { return 64; }
};

TEST_F(TwoThreadServerTest, AConnectionBeyondTheThreadsAndTheQueueIsClosedAtOnce) {
  // Two streams hold both pool threads; two silent connections fill the queue of two.
  SseRecorder first(port());
  ASSERT_TRUE(first.waitForRuntime("locked"));
  SseRecorder second(port());
  ASSERT_TRUE(second.waitForRuntime("locked"));
  const Poco::Net::SocketAddress address("127.0.0.1", port());
  Poco::Net::StreamSocket queued[2] = {Poco::Net::StreamSocket(address),
                                       Poco::Net::StreamSocket(address)};
  // Accepted in order, so this one finds the queue full and is closed at once.
  Poco::Net::StreamSocket refused(address);
  refused.setReceiveTimeout(Poco::Timespan(10, 0));
  const auto before = std::chrono::steady_clock::now();
  char byte = 0;
  int received = -1;
  try {
    received = refused.receiveBytes(&byte, 1);
  } catch (const Poco::TimeoutException&) {
    ADD_FAILURE() << "the connection over the queue was kept open";
  } catch (const Poco::Net::NetException&) {
    received = 0;  // a reset is a close too
  }
  EXPECT_EQ(received, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
}

/// Everything `socket` receives until the peer closes it, or until `limit`
/// passes (then `closed` is false).
struct ReadToClose {
  std::string text;
  bool closed = false;
};
ReadToClose readToClose(Poco::Net::StreamSocket& socket, std::chrono::milliseconds limit) {
  ReadToClose result;
  const auto until = std::chrono::steady_clock::now() + limit;
  pollfd watched{socket.impl()->sockfd(), POLLIN, 0};
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || ::poll(&watched, 1, static_cast<int>(left.count())) <= 0) {
      return result;
    }
    char buffer[4096];
    const ssize_t got = ::recv(watched.fd, buffer, sizeof buffer, 0);
    if (got <= 0) {
      result.closed = true;  // end of stream, or a reset
      return result;
    }
    result.text.append(buffer, static_cast<std::size_t>(got));
  }
}

class ShortRequestDeadlineTest : public HttpSessionTest {
 protected:
  std::chrono::milliseconds requestDeadline() const override { return kDeadline; }
  static constexpr std::chrono::milliseconds kDeadline{1500};
};

TEST_F(ShortRequestDeadlineTest, ADribblingRequestIsCutAtTheRequestDeadline) {
  // One header byte every 200 ms: each read is well within the 5 s receive
  // timeout, so only the whole-request deadline (issue 19 item 1) ends it.
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port()));
  const std::string start = "GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Dribble: ";
  socket.sendBytes(start.data(), static_cast<int>(start.size()));
  const auto began = std::chrono::steady_clock::now();
  pollfd watched{socket.impl()->sockfd(), POLLIN, 0};
  int dribbled = 0;
  // The pace of the dribble is the poll's timeout; it ends when the server
  // answers or closes, or after 10 s.
  while (std::chrono::steady_clock::now() - began < 10s && ::poll(&watched, 1, 200) == 0) {
    if (::send(watched.fd, "a", 1, MSG_NOSIGNAL) == 1) ++dribbled;
  }
  const auto cut = std::chrono::steady_clock::now() - began;
  const ReadToClose rest = readToClose(socket, 2s);
  EXPECT_TRUE(rest.closed) << "still open after the deadline; got: " << rest.text;
  EXPECT_GE(cut, kDeadline - 100ms);
  EXPECT_LT(cut, kDeadline + 1s);
  EXPECT_GE(dribbled, 5);
  EXPECT_EQ(rest.text.find("X-Dribble"), std::string::npos);
  EXPECT_EQ(get("/healthz").status, 200);  // still serving
}

TEST_F(ShortRequestDeadlineTest, AStreamOutlivesTheRequestDeadline) {
  // The deadline is for reading the request: an event stream, whose answer
  // never ends, stays open past it (its keep-alives come every 100 ms).
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port()));
  const std::string request =
      "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  const ReadToClose stream = readToClose(socket, 3 * kDeadline);
  EXPECT_FALSE(stream.closed) << stream.text;
  EXPECT_THAT(stream.text, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(stream.text, ::testing::HasSubstr("event: state"));
}

TEST_F(ShortRequestDeadlineTest, ARequestWithinTheDeadlineIsServed) {
  // Headers and a body that arrive in pieces, all within the deadline.
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port()));
  const std::string head =
      "POST /planning HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "X-AntiDrift-Token: " +
      kToken + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n";
  socket.sendBytes(head.data(), static_cast<int>(head.size()));
  pollfd watched{socket.impl()->sockfd(), POLLIN, 0};
  EXPECT_EQ(::poll(&watched, 1, 300), 0);  // the server waits for the body
  socket.sendBytes("{}", 2);
  const ReadToClose answer = readToClose(socket, 5s);
  EXPECT_TRUE(answer.closed);
  EXPECT_THAT(answer.text, ::testing::StartsWith("HTTP/1.1 200")) << answer.text;
  EXPECT_EQ(runtime(), "planning");
}

class ConnectionCapTest : public HttpSessionTest {
 protected:
  int maxConnectionsPerUid() const override { return 2; }
};

TEST_F(ConnectionCapTest, AUserOverItsConnectionCapGetsA503AtOnce) {
  const Poco::Net::SocketAddress address("127.0.0.1", port());
  // Two silent connections hold this user's two slots (accepted in order).
  auto first = std::make_unique<Poco::Net::StreamSocket>(address);
  Poco::Net::StreamSocket second(address);
  Poco::Net::StreamSocket third(address);
  const auto before = std::chrono::steady_clock::now();
  const ReadToClose refused = readToClose(third, 5s);
  EXPECT_TRUE(refused.closed);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  EXPECT_THAT(refused.text, ::testing::StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(refused.text, ::testing::HasSubstr("server.max_connections_per_uid"));
  // A slot freed is a slot to use again: poll until the server has seen the close.
  first.reset();
  const auto until = std::chrono::steady_clock::now() + 5s;
  int status = 0;
  while (status != 200 && std::chrono::steady_clock::now() < until) {
    status = get("/healthz").status;
  }
  EXPECT_EQ(status, 200);
}

TEST_F(HttpSessionTest, AServiceWorkerScriptRequestGetsTheKillSwitch) {
  // A worker registered by a page someone else served on this origin is
  // updated from the daemon, on any path: it must remove itself (issue 19
  // item 2, docs/SECURITY.md M2).
  RequestOptions options;
  options.headers = {{"Service-Worker", "script"}};
  for (const std::string path : {"/sw.js", "/", "/state", "/app.js"}) {
    const Reply reply = get(path, options);
    EXPECT_EQ(reply.status, 200) << path;
    EXPECT_EQ(reply.response.getContentType(), "text/javascript; charset=utf-8") << path;
    EXPECT_EQ(reply.response.get("Cache-Control", ""), "no-store") << path;
    EXPECT_THAT(reply.body, ::testing::HasSubstr("self.registration.unregister()")) << path;
    EXPECT_THAT(reply.body, ::testing::HasSubstr("skipWaiting")) << path;
  }
  // Without the header the page is the page.
  EXPECT_THAT(get("/").body, ::testing::HasSubstr("antidrift-token"));
}

TEST_F(HttpSessionTest, ItListensOnBothLoopbacksSoNeitherCanBeTaken) {
  const std::string v4 = "127.0.0.1:" + std::to_string(port());
  const std::string v6 = "[::1]:" + std::to_string(port());
  const int probe = ::socket(AF_INET6, SOCK_STREAM, 0);
  if (probe < 0) {
    EXPECT_EQ(server().listening(), std::vector<std::string>{v4});
    GTEST_SKIP() << "no IPv6 on this machine; listening on " << v4 << " only";
  }
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_port = htons(port());
  address.sin6_addr = in6addr_loopback;
  const int one = 1;
  ::setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const int bound = ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address);
  const int error = errno;
  ::close(probe);
  if (bound != 0 && error == EADDRNOTAVAIL) {
    EXPECT_EQ(server().listening(), std::vector<std::string>{v4});
    GTEST_SKIP() << "no IPv6 loopback on this machine; listening on " << v4 << " only";
  }
  EXPECT_EQ(server().listening(), (std::vector<std::string>{v4, v6}));
  EXPECT_NE(bound, 0) << v6 << " could be bound by someone else";
  EXPECT_EQ(error, EADDRINUSE);
  // And it is the daemon that answers there.
  Poco::Net::HTTPClientSession session("::1", port());
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/healthz",
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.setHost("127.0.0.1", port());
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  session.receiveResponse(response);
  EXPECT_EQ(response.getStatus(), Poco::Net::HTTPResponse::HTTP_OK);
}

}  // namespace
}  // namespace antidrift
