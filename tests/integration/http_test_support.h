/// @file http_test_support.h
/// HTTP client helpers for the integration and end-to-end tests: one-shot
/// requests with Poco::Net::HTTPClientSession, and an SSE client on its own
/// thread that records every event. No daemon code: the end-to-end tests
/// use these against the real antidriftd binary.
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

#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

namespace antidrift::test {

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
  std::optional<std::string> token;          ///< X-AntiDrift-Token, none when unset
  std::optional<std::string> origin;         ///< Origin, none when unset
  std::optional<std::string> host;           ///< Host; default "127.0.0.1:<port>"
  std::optional<std::string> authorization;  ///< Authorization, none when unset
  bool chunked = false;                      ///< send the body chunked, without Content-Length
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
  if (options.authorization) {
    request.set("Authorization", *options.authorization);
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
    // Shut the connection down first: that wakes the reader's recv without
    // closing the descriptor under it (a close racing a recv is a data race
    // ThreadSanitizer reports, and the descriptor could be reused); then
    // join, then close.
    try {
      session_.socket().shutdown();
    } catch (const Poco::Exception&) {
      // Already gone: the reader has returned or will on its own.
    }
    if (reader_.joinable()) {
      reader_.join();
    }
    try {
      session_.abort();
    } catch (const Poco::Exception&) {
      // The shutdown above already ended the connection (ENOTCONN); the
      // session's destructor closes the descriptor.
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

  /// Waits (deadline 10 s, or `timeout`) until `done(events)` holds; true if it did.
  bool waitUntil(const std::function<bool(const std::vector<SseEvent>&)>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10)) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done(events_); });
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
