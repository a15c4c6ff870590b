/// @file daemon_client.h
/// The `antidrift` command's side of the HTTP API (docs/API.md): one request
/// per call on a fresh Poco::Net::HTTPClientSession, and the SSE stream of
/// GET /events. Knows nothing of commands or output formats.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace antidrift::cli {

/// The daemon did not answer at all: connection refused, no route, or no
/// answer within the timeout. `what()` is one sentence for people, e.g.
/// "antidriftd is not running on http://127.0.0.1:7717". The command exits 69.
class DaemonUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the daemon listens.
struct Endpoint {
  std::string host = "127.0.0.1";  ///< an IP address or loopback name
  std::uint16_t port = 7717;
  /// "http://host:port" ("[::1]" for an IPv6 address).
  std::string url() const;
};

/// One HTTP answer.
struct Reply {
  int status = 0;    ///< HTTP status code
  std::string body;  ///< the whole body as sent
};

/// One Server-Sent Event of GET /events (docs/API.md §4).
struct ServerEvent {
  std::string name;  ///< `event:` value; "message" when absent
  std::string data;  ///< `data:` lines joined by '\n'
};

/// A blocking client of one daemon. Each call opens its own connection, so
/// one object may be used by one thread at a time; separate objects are
/// independent.
class DaemonClient {
 public:
  /// `timeout` bounds connecting and each read of a REST call.
  DaemonClient(Endpoint endpoint, std::chrono::seconds timeout);

  /// GET `pathAndQuery`. Throws DaemonUnreachable when the daemon does not
  /// answer; any HTTP status is returned, not thrown.
  Reply get(const std::string& pathAndQuery) const;

  /// POST `path` with the JSON `body`, `Content-Type: application/json` and
  /// `X-AntiDrift-Token: token` (docs/API.md §1). Throws DaemonUnreachable.
  Reply post(const std::string& path, const std::string& body, const std::string& token) const;

  /// DELETE `pathAndQuery` with the body `{}`, `Content-Type:
  /// application/json` and the token, like post(). Throws DaemonUnreachable.
  Reply remove(const std::string& pathAndQuery, const std::string& token) const;

  /// Reads GET /events and calls `onEvent` for every event until the stream
  /// ends (the daemon stopped: returns), `onEvent` returns false (returns),
  /// or nothing — not even a keep-alive comment — arrives for
  /// `silenceLimit` (throws DaemonUnreachable). A refused stream (503) is a
  /// Reply with its status, returned without calling `onEvent`; a stream
  /// that ran returns status 200.
  Reply streamEvents(const std::function<bool(const ServerEvent&)>& onEvent,
                     std::chrono::seconds silenceLimit) const;

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  Endpoint endpoint_;
  std::chrono::seconds timeout_;
};

}  // namespace antidrift::cli
