// Bad input, counted (issue 9 item 8): a corpus of malformed requests —
// tests/corpus/malformed-bodies/ plus generated cases (deep nesting, 1 MB
// titles, wrong types and huge numbers per field, unknown fields, wrong
// methods, missing and duplicate headers, bad query strings and request
// lines) — sent as raw bytes to every route of server/http_api.cpp and the
// /api/0/ routes. Every one answers 4xx with a JSON {"error"}, GET /state is
// unchanged (ignoring "now"), and the daemon keeps serving. The number of
// requests tried is printed and recorded in docs/RELIABILITY.md.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <Poco/JSON/Parser.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include "in_process_daemon.h"

#ifndef ANTIDRIFT_CORPUS_DIR
#error "ANTIDRIFT_CORPUS_DIR must name tests/corpus"
#endif

namespace antidrift {
namespace {

/// One request of the corpus: raw bytes and a name for failure messages.
struct BadRequest {
  std::string name;
  std::string bytes;
  /// Not parseable as HTTP: Poco's own parser answers a bare 400 and
  /// closes, before any handler runs, so no JSON body is required.
  bool unparseable = false;
};

/// What came back for a raw request.
struct RawReply {
  int status = 0;
  std::string contentType;
  std::string body;
  std::string raw;
};

/// Sends `bytes` on a new connection and reads until the server closes it
/// (every corpus request says Connection: close, or is refused with a close).
RawReply sendRaw(std::uint16_t port, const std::string& bytes) {
  Poco::Net::StreamSocket socket(Poco::Net::SocketAddress("127.0.0.1", port));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  socket.sendBytes(bytes.data(), static_cast<int>(bytes.size()));
  RawReply reply;
  char buffer[8192];
  try {
    while (true) {
      const int count = socket.receiveBytes(buffer, sizeof buffer);
      if (count <= 0) {
        break;
      }
      reply.raw.append(buffer, static_cast<std::size_t>(count));
    }
  } catch (const Poco::Exception&) {
    // A reset after the answer: keep what arrived.
  }
  const std::size_t headerEnd = reply.raw.find("\r\n\r\n");
  if (reply.raw.rfind("HTTP/1.", 0) != 0 || headerEnd == std::string::npos) {
    return reply;
  }
  reply.status = std::atoi(reply.raw.c_str() + 9);
  reply.body = reply.raw.substr(headerEnd + 4);
  std::string headers = reply.raw.substr(0, headerEnd);
  std::transform(headers.begin(), headers.end(), headers.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::size_t type = headers.find("\r\ncontent-type:");
  if (type != std::string::npos) {
    const std::size_t end = headers.find("\r\n", type + 2);
    reply.contentType = headers.substr(type + 15, end - type - 15);
    reply.contentType.erase(0, reply.contentType.find_first_not_of(" \t"));
  }
  return reply;
}

/// The header lines of a valid request, each ending in CRLF.
struct Headers {
  std::string host;
  std::string contentType = "application/json";
  std::string token = test::kToken;
  std::string extra;  ///< more lines, each with its CRLF
  bool withHost = true;
  bool withContentType = true;
  bool withToken = true;
  bool withLength = true;
};

std::string buildRequest(const std::string& method, const std::string& target,
                         const std::string& body, const Headers& headers) {
  std::string request = method + " " + target + " HTTP/1.1\r\n";
  if (headers.withHost) request += "Host: " + headers.host + "\r\n";
  if (headers.withContentType) request += "Content-Type: " + headers.contentType + "\r\n";
  if (headers.withToken) request += std::string(kTokenHeader) + ": " + headers.token + "\r\n";
  if (headers.withLength) request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  request += headers.extra;
  request += "Connection: close\r\n\r\n";
  return request + body;
}

/// The State JSON without "now", which moves with the clock.
std::string stateWithoutNow(std::uint16_t port) {
  Poco::JSON::Object::Ptr state = test::sendRequest(port, "GET", "/state").json();
  state->remove("now");
  std::ostringstream text;
  state->stringify(text);
  return text.str();
}

/// Every file in `directory`, name → bytes, sorted by name.
std::vector<std::pair<std::string, std::string>> readCorpus(const std::string& directory) {
  std::vector<std::pair<std::string, std::string>> files;
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    return files;
  }
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") {
      continue;
    }
    std::ifstream file(directory + "/" + name, std::ios::binary);
    files.emplace_back(name, std::string((std::istreambuf_iterator<char>(file)),
                                         std::istreambuf_iterator<char>()));
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

/// The POST routes and a body each would accept (so a header case fails
/// on the header alone). The ActivityWatch bucket "corpus" is created first.
struct PostRoute {
  std::string target;
  std::string validBody;
  bool token = true;  ///< false for /api/0/ (no token; any Origin refused)
};

const std::vector<PostRoute>& postRoutes() {
  static const std::vector<PostRoute> routes = {
      {"/planning", "{}"},
      {"/planning/cancel", "{}"},
      {"/commitment", R"({"next_action":"a","success_condition":"b","timebox_minutes":5})"},
      {"/complete", "{}"},
      {"/abandon", "{}"},
      {"/drift/refocus", "{}"},
      {"/drift/ontask", "{}"},
      {"/end", "{}"},
      {"/evidence/window", R"({"app":"code","title":"t"})"},
      {"/coach", R"({"intent":"write"})"},
      {"/api/0/buckets/corpus", R"({"type":"currentwindow","client":"c","hostname":"h"})", false},
      // A malformed timestamp or duration is not among them: they mean receipt time
      // (docs/API.md §8), as aw-watcher clocks may be off.
      {"/api/0/buckets/corpus/heartbeat?pulsetime=5",
       R"({"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":"a","title":"t"}})",
       false},
      {"/api/0/buckets/corpus/events",
       R"([{"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":"a","title":"t"}}])",
       false},
  };
  return routes;
}

/// Every path with the methods it serves, for the wrong-method cases.
const std::vector<std::pair<std::string, std::string>>& pathsAndMethods() {
  static const std::vector<std::pair<std::string, std::string>> paths = {
      {"/state", "GET"},
      {"/events", "GET"},
      {"/healthz", "GET"},
      {"/history", "GET"},
      {"/planning", "POST"},
      {"/planning/cancel", "POST"},
      {"/commitment", "POST"},
      {"/complete", "POST"},
      {"/abandon", "POST"},
      {"/drift/refocus", "POST"},
      {"/drift/ontask", "POST"},
      {"/end", "POST"},
      {"/evidence/window", "POST"},
      {"/coach", "POST"},
      {"/api/0/info", "GET"},
      {"/api/0/buckets/", "GET"},
      {"/api/0/buckets/corpus/heartbeat", "POST"},
      {"/api/0/buckets/corpus/events", "POST"},
  };
  return paths;
}

/// Field-level cases: for each route that reads fields, bodies with a
/// field missing, of the wrong type, out of range or too long.
std::vector<std::pair<std::string, std::vector<std::string>>> fieldCases() {
  const std::string longText(501, 'x');
  const std::string huge = "99999999999999999999";
  return {
      {"/commitment",
       {R"({})",
        R"({"unknown":1,"also":[{}]})",
        R"({"next_action":5,"success_condition":"b","timebox_minutes":5})",
        R"({"next_action":null,"success_condition":"b","timebox_minutes":5})",
        R"({"next_action":["a"],"success_condition":"b","timebox_minutes":5})",
        R"({"next_action":"a","success_condition":{},"timebox_minutes":5})",
        R"({"next_action":"a","success_condition":"b"})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":"5"})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":5.5})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":true})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":)" + huge + "}",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":-)" + huge + "}",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":1e400})",
        R"({"next_action":"a","success_condition":"b","timebox_secs":9223372036854775807})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":0})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":-5})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":721})",
        R"({"next_action":"","success_condition":"b","timebox_minutes":5})",
        R"({"next_action":"   ","success_condition":"b","timebox_minutes":5})",
        R"({"next_action":")" + longText + R"(","success_condition":"b","timebox_minutes":5})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":5,"allowed_apps":"code"})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":5,"allowed_apps":[1]})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":5,"allowed_apps":[null]})",
        R"({"next_action":"a","success_condition":"b","timebox_minutes":5,"allowed_apps":{}})"}},
      {"/evidence/window",
       {R"({})", R"({"unknown":"x"})", R"({"app":"code"})", R"({"title":"t"})",
        R"({"app":5,"title":"t"})", R"({"app":"code","title":["t"]})",
        R"({"app":"code","title":null})", R"({"app":"code","title":"t","at":"now"})",
        R"({"app":"code","title":"t","at":1.5})", R"({"app":"code","title":"t","at":)" + huge + "}",
        R"({"app":"code","title":"t","at":1e300})"}},
      {"/coach", {R"({})", R"({"unknown":1})", R"({"intent":5})", R"({"intent":null})"}},
      {"/api/0/buckets/corpus/heartbeat?pulsetime=5",
       {R"({})", R"([])", R"({"timestamp":5,"duration":0,"data":{"app":"a","title":"t"}})",
        R"({"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":"x"})",
        R"({"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":5,"title":"t"}})"}},
      {"/api/0/buckets/corpus/heartbeat",  // no pulsetime
       {R"({"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":"a","title":"t"}})"}},
      {"/api/0/buckets/corpus/heartbeat?pulsetime=abc",
       {R"({"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":"a","title":"t"}})"}},
      {"/api/0/buckets/corpus/events",
       {R"({})", R"([1])", R"([{"timestamp":"x","duration":0,"data":{}}])",
        R"([{"timestamp":"2024-01-01T00:00:00Z","duration":0,"data":{"app":[],"title":"t"}}])"}},
      {"/api/0/buckets/..%2Fx", {R"({"type":"currentwindow","client":"c","hostname":"h"})"}},
      {"/api/0/buckets/corpus2", {R"({"type":5,"client":"c","hostname":"h"})", R"([])"}},
  };
}

class MalformedCorpusTest : public ::testing::Test {
 protected:
  MalformedCorpusTest() : daemon_(test::InProcessDaemon::Options{}) {}

  std::uint16_t port() const { return daemon_.port(); }
  std::string host() const { return "127.0.0.1:" + std::to_string(port()); }

  /// Sends one case and checks the answer: 4xx, JSON {"error": "..."}
  /// (for an unparseable request: a 4xx or a closed connection).
  void expectRefused(const BadRequest& request) {
    ++tried_;
    const RawReply reply = sendRaw(port(), request.bytes);
    if (request.unparseable) {
      // Poco refuses it before any handler: a bare 400, or the connection
      // closed without an answer (e.g. a Content-Length that is no number).
      ++unparseable_;
      EXPECT_TRUE(reply.status == 0 || (reply.status >= 400 && reply.status < 500))
          << request.name << "\n"
          << reply.raw.substr(0, 400);
      return;
    }
    EXPECT_GE(reply.status, 400) << request.name << "\n" << reply.raw.substr(0, 400);
    EXPECT_LT(reply.status, 500) << request.name << "\n" << reply.raw.substr(0, 400);
    EXPECT_EQ(reply.contentType, "application/json; charset=utf-8") << request.name << "\n"
                                                                    << reply.raw.substr(0, 400);
    try {
      Poco::JSON::Parser parser;
      const auto json = parser.parse(reply.body).extract<Poco::JSON::Object::Ptr>();
      EXPECT_FALSE(json->getValue<std::string>("error").empty()) << request.name;
    } catch (const std::exception&) {
      ADD_FAILURE() << request.name << ": the answer is not {\"error\": ...}: " << reply.body;
    }
  }

  test::InProcessDaemon daemon_;
  int tried_ = 0;
  int unparseable_ = 0;
};

TEST_F(MalformedCorpusTest, EveryMalformedRequestIs4xxJsonChangesNothingAndTheDaemonServesOn) {
  // Planning: the state where the most routes read their bodies.
  test::RequestOptions valid;
  valid.token = test::kToken;
  ASSERT_EQ(test::sendRequest(port(), "POST", "/planning", "{}", valid).status, 200);
  ASSERT_EQ(test::sendRequest(port(), "POST", "/api/0/buckets/corpus",
                              R"({"type":"currentwindow","client":"c","hostname":"h"})")
                .status,
            200);
  daemon_.executor().runAll();  // the tasks and profile fetches of planning
  const std::string before = stateWithoutNow(port());
  Headers headers;
  headers.host = host();

  std::vector<BadRequest> cases;
  // 1. Body files × every POST route.
  const auto corpus = readCorpus(std::string(ANTIDRIFT_CORPUS_DIR) + "/malformed-bodies");
  ASSERT_GE(corpus.size(), 30u);
  // Generated bodies too large or repetitive for files.
  std::vector<std::pair<std::string, std::string>> bodies = corpus;
  bodies.emplace_back("deep-nesting-unclosed", "{\"a\":" + std::string(20000, '['));
  bodies.emplace_back("deep-nesting-array", std::string(20000, '[') + std::string(20000, ']'));
  bodies.emplace_back("deep-nesting-objects-unclosed", [] {
    std::string text;
    for (int i = 0; i < 10000; ++i) text += "{\"a\":";
    return text;
  }());
  bodies.emplace_back("1mb-title",
                      R"({"app":"code","title":")" + std::string(1024 * 1024, 'T') + "\"}");
  bodies.emplace_back("1mb-of-nul", std::string(1024 * 1024, '\0'));
  for (const PostRoute& route : postRoutes()) {
    for (const auto& [name, body] : bodies) {
      Headers forRoute = headers;
      forRoute.withToken = route.token;
      cases.push_back({"POST " + route.target + " body " + name,
                       buildRequest("POST", route.target, body, forRoute)});
    }
  }

  // 2. Field-level cases.
  for (const auto& [target, fieldBodies] : fieldCases()) {
    for (std::size_t i = 0; i < fieldBodies.size(); ++i) {
      Headers forRoute = headers;
      forRoute.withToken = target.rfind("/api/0/", 0) != 0;
      cases.push_back({"POST " + target + " field case " + std::to_string(i) + ": " +
                           fieldBodies[i].substr(0, 120),
                       buildRequest("POST", target, fieldBodies[i], forRoute)});
    }
  }

  // 3. Missing, wrong and duplicate headers on every POST route.
  for (const PostRoute& route : postRoutes()) {
    auto add = [&](const std::string& name, Headers variant) {
      variant.withToken = variant.withToken && route.token;
      cases.push_back({"POST " + route.target + " " + name,
                       buildRequest("POST", route.target, route.validBody, variant)});
    };
    Headers h = headers;
    h.withHost = false;
    add("without Host", h);
    h = headers;
    h.host = "evil.example:" + std::to_string(port());
    add("with a foreign Host", h);
    h = headers;
    h.extra = "Host: evil.example\r\n";
    add("with a second, foreign Host", h);
    h = headers;
    h.host = "evil.example";
    h.extra = "Host: " + host() + "\r\n";
    add("with a foreign Host, then a loopback one", h);
    h = headers;
    h.extra = "Content-Length: 1\r\n";
    add("with two different Content-Lengths", h);
    h = headers;
    h.extra = "Transfer-Encoding: chunked\r\n";
    add("with Content-Length and a non-chunked body marked chunked", h);
    h = headers;
    h.withContentType = false;
    add("without Content-Type", h);
    h = headers;
    h.contentType = "text/plain";
    add("with Content-Type text/plain", h);
    h = headers;
    h.extra = "Content-Type: text/plain\r\n";
    add("with a second Content-Type", h);
    h = headers;
    h.extra = "Origin: http://evil.example\r\n";
    add("with a foreign Origin", h);
    h = headers;
    h.extra = "Origin: null\r\n";
    add("with Origin null", h);
    h = headers;
    h.extra = "Origin: http://" + host() + "\r\nOrigin: http://evil.example\r\n";
    add("with a same-origin Origin, then a foreign one", h);
    if (route.token) {
      h = headers;
      h.withToken = false;
      add("without the token", h);
      h = headers;
      h.token = std::string(64, '0');
      add("with a wrong token", h);
      h = headers;
      h.token = "";
      add("with an empty token", h);
      h = headers;
      h.token = std::string(64, '0');
      h.extra = std::string(kTokenHeader) + ": " + test::kToken + "\r\n";
      add("with a wrong token, then the right one", h);
      h = headers;
      h.token = test::kToken + std::string("\0", 1);
      add("with a NUL after the token", h);
    }
  }

  // 4. Wrong and unknown methods on every path.
  for (const auto& [path, method] : pathsAndMethods()) {
    for (const std::string other :
         {"GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO"}) {
      if (other == method ||
          (other == "GET" && (path == "/events" || path == "/api/0/buckets/corpus/events"))) {
        continue;
      }
      if (path.rfind("/api/0/", 0) == 0 && other == "DELETE") {
        continue;  // DELETE /api/0/buckets/<id> is a route of its own
      }
      cases.push_back({other + " " + path, buildRequest(other, path, "{}", headers)});
    }
  }

  // 5. Query strings and request lines.
  for (const std::string target :
       {"/history?n=abc", "/history?n=0", "/history?n=101", "/history?n=-1",
        "/history?n=99999999999999999999", "/history?n=1e3", "/history?n=%00", "/history?n=%ff",
        "/history?n=", "/history?n=5&n=x", "/state%zz", "/history?n=%"}) {
    cases.push_back({std::string("GET ") + target, buildRequest("GET", target, "", headers)});
  }
  // Requests HTTP cannot parse.
  const std::size_t firstUnparseable = cases.size();
  cases.push_back(
      {"GET with a NUL in the path", buildRequest("GET", std::string("/st\0ate", 6), "", headers)});
  cases.push_back(
      {"GET of a 100 KB path", buildRequest("GET", "/" + std::string(100000, 'a'), "", headers)});
  cases.push_back({"garbage request line", "GARBAGE\r\n\r\n"});
  cases.push_back({"HTTP/9.9", "GET /state HTTP/9.9\r\nHost: " + host() + "\r\n\r\n"});
  cases.push_back({"10,000 headers", [&] {
                     std::string request = "GET /state HTTP/1.1\r\nHost: " + host() + "\r\n";
                     for (int i = 0; i < 10000; ++i)
                       request += "X-H" + std::to_string(i) + ": v\r\n";
                     return request + "\r\n";
                   }()});
  cases.push_back({"a negative Content-Length",
                   "POST /planning HTTP/1.1\r\nHost: " + host() +
                       "\r\nContent-Type: application/json\r\nX-AntiDrift-Token: " + test::kToken +
                       "\r\nContent-Length: -1\r\nConnection: close\r\n\r\n{}"});
  cases.push_back({"a Content-Length that is not a number",
                   "POST /planning HTTP/1.1\r\nHost: " + host() +
                       "\r\nContent-Type: application/json\r\nX-AntiDrift-Token: " + test::kToken +
                       "\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}"});

  for (std::size_t i = firstUnparseable; i < cases.size(); ++i) {
    cases[i].unparseable = true;
  }

  for (const BadRequest& request : cases) {
    expectRefused(request);
    if (HasFailure()) {
      break;  // one clear failure, not hundreds
    }
  }
  EXPECT_EQ(stateWithoutNow(port()), before) << "a malformed request changed the state";
  EXPECT_EQ(test::sendRequest(port(), "GET", "/healthz").status, 200);
  daemon_.executor().runAll();
  EXPECT_EQ(stateWithoutNow(port()), before) << "a malformed request queued a change";
  std::cout << "malformed requests tried: " << tried_ << " (" << corpus.size() << " body files; "
            << unparseable_ << " not parseable as HTTP, refused by Poco without JSON)" << std::endl;
  RecordProperty("malformed_requests", tried_);
}

}  // namespace
}  // namespace antidrift
