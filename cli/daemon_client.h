/// @file daemon_client.h
/// The `antidrift` command's side of the HTTP API (docs/API.md): one request
/// per call on a fresh Poco::Net::HTTPClientSession, and the SSE stream of
/// GET /events. Knows nothing of commands or output formats.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include <Poco/Net/StreamSocket.h>

#include "cli/sse_parser.h"

namespace antidrift::cli {

/// Largest answer body the CLI reads from the daemon, bytes (issue 19 item 7,
/// review L7). antidriftd's largest answer, `/history?n=200` with 200-span
/// timelines, stays near 3 MiB; an impostor cannot make the CLI buffer more.
inline constexpr std::size_t kMaxReplyBytes = 8 * 1024 * 1024;

/// The daemon did not answer at all: connection refused, no route, or no
/// answer within the timeout. `what()` is one sentence for people, e.g.
/// "antidriftd is not running on http://127.0.0.1:7717". The command exits 69.
class DaemonUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What listens on the daemon's address belongs to another Unix user (or its
/// user cannot be determined): nothing was sent, not even the token (issue 19
/// item 2, docs/SECURITY.md M2). `what()` names the address and the uid.
/// The command exits 77.
class NotTheDaemon : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where the daemon listens.
struct Endpoint {
  std::string host = "127.0.0.1";  ///< an IP address or loopback name
  std::uint16_t port = 7717;
  /// How to start the daemon, named in "antidriftd is not running … (start
  /// it with …)": the installed commands by default; the CLI of a build tree
  /// names scripts/start.sh (issue 17 item 4).
  std::string startHint = "systemctl --user start antidrift, or run antidriftd";
  /// "http://host:port" ("[::1]" for an IPv6 address).
  std::string url() const;
};

/// One HTTP answer.
struct Reply {
  int status = 0;    ///< HTTP status code
  std::string body;  ///< the whole body as sent
};

/// Ends a DaemonClient::streamEvents() that another thread is blocked in
/// (issue 20 item 2: `watch --format` stops its reader on SIGTERM or when
/// stdout closes). Thread-safe.
class StreamCancel {
 public:
  /// Shuts the open stream's socket down, so the blocked read ends at once
  /// and streamEvents() returns; a later streamEvents() with this object
  /// returns at once. Idempotent; never throws.
  void cancel();
  /// Whether cancel() was called.
  bool cancelled() const;

 private:
  friend class DaemonClient;
  /// Remembers the open stream's socket; false (and nothing kept) once
  /// cancelled.
  bool attach(const Poco::Net::StreamSocket& socket);
  /// Forgets the socket before its session closes it.
  void detach();

  mutable std::mutex mutex_;
  bool cancelled_ = false;
  std::optional<Poco::Net::StreamSocket> socket_;
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
  /// that ran returns status 200. With `cancel`, StreamCancel::cancel()
  /// from another thread ends the stream as if the daemon had closed it.
  Reply streamEvents(const std::function<bool(const ServerEvent&)>& onEvent,
                     std::chrono::seconds silenceLimit, StreamCancel* cancel = nullptr) const;

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  Endpoint endpoint_;
  std::chrono::seconds timeout_;
};

}  // namespace antidrift::cli
