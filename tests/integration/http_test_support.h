/// @file http_test_support.h
/// Helpers for the integration tests: the daemon's HTTP stack assembled
/// in-process (InProcessDaemon), one-shot HTTP requests with
/// Poco::Net::HTTPClientSession, and an SSE client on its own thread that
/// records every event.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <Poco/File.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include "antidrift/session/controller.h"
#include "antidrift/store/audit_log.h"
#include "antidrift/store/snapshot.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "server/api_server.h"
#include "server/http_api.h"
#include "server/request_guard.h"
#include "server/sse_broadcaster.h"
#include "support/temp_dir.h"

namespace antidrift::test {

/// The API token every in-process daemon of these tests accepts
/// (X-AntiDrift-Token, DESIGN §10).
inline const std::string kToken =
    "5f3c9a0e7b2d41c8a6e0f19d3b7c5a2e5f3c9a0e7b2d41c8a6e0f19d3b7c5a2e";

/// The daemon's HTTP stack assembled in-process (DESIGN §10, docs/API.md):
/// a temp directory with the file stores, a FakeClock, a ManualExecutor, a
/// real Controller, SseBroadcaster, RequestGuard(kToken), HttpApi and an
/// ApiServer on 127.0.0.1 with an ephemeral port, wired as antidriftd wires
/// them (change listener → HttpApi::publish, restore, initial publish).
/// The destructor stops the server, then runs every queued executor task.
/// Not thread-safe itself; the server answers on its own threads.
class InProcessDaemon {
 public:
  /// What differs between the tests using it.
  struct Options {
    std::size_t maxSseClients = 8;           ///< SseBroadcaster cap (server.max_sse_clients)
    std::chrono::seconds requestTimeout{5};  ///< server.request_timeout_s
    int threads = 16;                        ///< server.threads
    std::string wwwDir;                      ///< web root under the temp dir; "" = the temp dir
    std::map<std::string, std::string> wwwFiles;  ///< file name → content, written into wwwDir
  };

  /// Builds and starts everything; throws what the stores or the server throw
  /// (Poco::Exception, std::runtime_error).
  explicit InProcessDaemon(const Options& options)
      : storeDir_(directory_.path() + "/store"),
        wwwDir_(options.wwwDir.empty() ? directory_.path()
                                       : directory_.path() + "/" + options.wwwDir) {
    Poco::File(wwwDir_).createDirectories();
    for (const auto& [name, content] : options.wwwFiles) {
      std::ofstream(wwwDir_ + "/" + name) << content;
    }
    snapshots_ = std::make_unique<FileSnapshotStore>(storeDir_);
    audit_ = std::make_unique<AuditLog>(storeDir_);
    audit_->open();
    controller_ = std::make_unique<Controller>(Settings{}, clock_, executor_, *snapshots_, *audit_);
    broadcaster_ =
        std::make_unique<SseBroadcaster>(options.maxSseClients, std::chrono::milliseconds(100));
    guard_ = std::make_unique<RequestGuard>(kToken);
    api_ =
        std::make_unique<HttpApi>(*controller_, *broadcaster_, *guard_, HttpApi::Options{wwwDir_});
    controller_->setChangeListener([this](const State& state) { api_->publish(state); });
    controller_->restore();
    api_->publish(controller_->state());

    ApiServerOptions serverOptions;
    serverOptions.address = "127.0.0.1";
    serverOptions.port = 0;
    serverOptions.threads = options.threads;
    serverOptions.requestTimeout = options.requestTimeout;
    server_ = std::make_unique<ApiServer>(*api_, *broadcaster_, serverOptions);
    server_->start();
  }

  /// Stops the server, then drains the executor.
  ~InProcessDaemon() {
    server_->stop();
    executor_.runAll();
  }

  InProcessDaemon(const InProcessDaemon&) = delete;
  InProcessDaemon& operator=(const InProcessDaemon&) = delete;

  /// The ephemeral port the server listens on (0 if it did not bind).
  std::uint16_t port() const { return server_->port(); }
  /// The store directory (snapshot, audit.jsonl).
  const std::string& storeDir() const { return storeDir_; }
  /// The web root HttpApi serves.
  const std::string& wwwDir() const { return wwwDir_; }
  /// The parts, for tests that drive or inspect them directly; valid until destruction.
  FakeClock& clock() { return clock_; }
  ManualExecutor& executor() { return executor_; }
  FileSnapshotStore& snapshots() { return *snapshots_; }
  AuditLog& audit() { return *audit_; }
  Controller& controller() { return *controller_; }
  SseBroadcaster& broadcaster() { return *broadcaster_; }
  HttpApi& api() { return *api_; }
  ApiServer& server() { return *server_; }

 private:
  TempDirectory directory_;
  std::string storeDir_;
  std::string wwwDir_;
  FakeClock clock_;
  ManualExecutor executor_;
  std::unique_ptr<FileSnapshotStore> snapshots_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<SseBroadcaster> broadcaster_;
  std::unique_ptr<RequestGuard> guard_;
  std::unique_ptr<HttpApi> api_;
  std::unique_ptr<ApiServer> server_;
};

/// One HTTP answer.
struct Reply {
  int status = 0;
  std::string body;
  Poco::Net::HTTPResponse response;

  /// The body parsed as a JSON object; throws if it is not one.
  Poco::JSON::Object::Ptr json() const {
    Poco::JSON::Parser parser;
    return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
  }
  /// A string field of the JSON body.
  std::string field(const std::string& name) const { return json()->getValue<std::string>(name); }
};

/// What to send besides method, path and body. Defaults make a valid POST.
struct RequestOptions {
  std::optional<std::string> contentType = std::string("application/json");
  std::optional<std::string> token;   ///< X-AntiDrift-Token, none when unset
  std::optional<std::string> origin;  ///< Origin, none when unset
  std::optional<std::string> host;    ///< Host; default "127.0.0.1:<port>"
  bool chunked = false;               ///< send the body chunked, without Content-Length
};

/// Sends one request on a new connection and reads the whole answer.
inline Reply sendRequest(std::uint16_t port, const std::string& method, const std::string& path,
                         const std::string& body = "", const RequestOptions& options = {}) {
  Poco::Net::HTTPClientSession session("127.0.0.1", port);
  session.setTimeout(Poco::Timespan(20, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  if (options.host) {
    request.setHost(*options.host);
  }
  const bool hasBody = method == "POST" || method == "PUT" || !body.empty();
  if (hasBody) {
    if (options.contentType) {
      request.setContentType(*options.contentType);
    }
    if (options.chunked) {
      request.setChunkedTransferEncoding(true);
    } else {
      request.setContentLength64(static_cast<Poco::Int64>(body.size()));
    }
  }
  if (options.token) {
    request.set("X-AntiDrift-Token", *options.token);
  }
  if (options.origin) {
    request.set("Origin", *options.origin);
  }
  std::ostream& out = session.sendRequest(request);
  out << body;
  Reply reply;
  std::istream& in = session.receiveResponse(reply.response);
  reply.status = static_cast<int>(reply.response.getStatus());
  Poco::StreamCopier::copyToString(in, reply.body);
  return reply;
}

/// One Server-Sent Event as received.
struct SseEvent {
  std::uint64_t id = 0;
  std::string event;
  std::string data;
  std::string runtime;  ///< "runtime" of the State JSON in data
};

/// An EventSource-like client on its own thread: connects to /events and
/// records every event until close().
class SseRecorder {
 public:
  explicit SseRecorder(std::uint16_t port) : session_("127.0.0.1", port) {
    session_.setTimeout(Poco::Timespan(30, 0));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/events",
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    session_.sendRequest(request);
    std::istream& in = session_.receiveResponse(response_);
    status_ = static_cast<int>(response_.getStatus());
    if (status_ == 200) {
      reader_ = std::thread([this, &in] { read(in); });
    } else {
      Poco::StreamCopier::copyToString(in, errorBody_);
    }
  }

  ~SseRecorder() { close(); }
  SseRecorder(const SseRecorder&) = delete;
  SseRecorder& operator=(const SseRecorder&) = delete;

  /// Goes away like a closed tab: aborts the connection, joins the reader.
  void close() {
    if (closed_) {
      return;
    }
    closed_ = true;
    session_.abort();
    if (reader_.joinable()) {
      reader_.join();
    }
  }

  int status() const { return status_; }
  const std::string& errorBody() const { return errorBody_; }
  const Poco::Net::HTTPResponse& response() const { return response_; }
  /// Everything received before the first event ("retry: 2000" etc.).
  std::string preamble() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return preamble_;
  }

  std::vector<SseEvent> events() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

  /// Waits (deadline 10 s) until `done(events)` holds; true if it did.
  bool waitUntil(const std::function<bool(const std::vector<SseEvent>&)>& done) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return done(events_); });
  }

  /// Waits until the newest event has runtime `runtime`.
  bool waitForRuntime(const std::string& runtime) const {
    return waitUntil([&](const std::vector<SseEvent>& events) {
      return !events.empty() && events.back().runtime == runtime;
    });
  }

 private:
  void read(std::istream& in) {
    try {
      SseEvent current;
      std::string line;
      bool seenEvent = false;
      while (std::getline(in, line)) {
        if (line.rfind("id: ", 0) == 0) {
          current.id = std::stoull(line.substr(4));
        } else if (line.rfind("event: ", 0) == 0) {
          current.event = line.substr(7);
        } else if (line.rfind("data: ", 0) == 0) {
          current.data = line.substr(6);
        } else if (line.empty() && !current.data.empty()) {
          if (current.event == "state") {
            Poco::JSON::Parser parser;
            current.runtime = parser.parse(current.data)
                                  .extract<Poco::JSON::Object::Ptr>()
                                  ->getValue<std::string>("runtime");
          }
          {
            std::lock_guard<std::mutex> lock(mutex_);
            events_.push_back(current);
          }
          changed_.notify_all();
          current = SseEvent();
          seenEvent = true;
        } else if (!seenEvent) {
          std::lock_guard<std::mutex> lock(mutex_);
          preamble_ += line + "\n";
        }
      }
    } catch (...) {
      // The connection was aborted or broke: the recording simply ends.
    }
    changed_.notify_all();
  }

  Poco::Net::HTTPClientSession session_;
  Poco::Net::HTTPResponse response_;
  int status_ = 0;
  std::string errorBody_;
  bool closed_ = false;
  std::thread reader_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<SseEvent> events_;
  std::string preamble_;
};

}  // namespace antidrift::test
