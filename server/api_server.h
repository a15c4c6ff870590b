/// @file api_server.h
/// The listening HTTP server of antidriftd: Poco's HTTP connection handling
/// on its own thread pool and limits, behind an accept thread of our own that
/// sleeps until a connection or stop() (docs/DESIGN.md §10, docs/TECH-NOTES.md §2.3, §2.4;
/// issue 8: no wake-up while nothing happens).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/http_api.h"
#include "server/sse_broadcaster.h"

namespace antidrift {

/// Where and how to listen.
struct ApiServerOptions {
  std::string address = "127.0.0.1";  ///< IP address to bind (server.address)
  std::uint16_t port = 7717;          ///< 0 = ephemeral; see ApiServer::port()
  int threads = 64;                   ///< pool capacity and max threads (server.threads, ≥ 2)
  /// How long an idle keep-alive connection may pin a pool thread.
  std::chrono::seconds keepAliveTimeout{5};
  /// Receive timeout of every connection (server.request_timeout_s): the
  /// longest wait for the first request line and for each read of headers or
  /// body, so a slow or silent client frees its pool thread after this long.
  /// Poco applies the same value as the send timeout, so it also bounds
  /// each write to a client that has stopped reading (an SSE stream then
  /// ends); an idle SSE stream is not affected.
  std::chrono::seconds requestTimeout{5};
  /// The longest a whole request may take to arrive, from its first byte to
  /// the end of its body (server.request_deadline_s, issue 19 item 1): a
  /// client that dribbles bytes (each resets requestTimeout) has its
  /// connection shut down at this deadline.
  std::chrono::milliseconds requestDeadline{10000};
  /// The most connections one Unix user may hold at once
  /// (server.max_connections_per_uid, issue 19 item 1); more get a 503 at
  /// once. 0: twice `threads`, the daemon's default.
  int maxConnectionsPerUid = 0;
  /// Listen on the other loopback family's address too (::1 beside
  /// 127.0.0.1 and back) on the same port, so that no other user can take
  /// it and catch the clients of "localhost" (issue 19 item 2). Ignored for
  /// an address that is not loopback.
  bool bothLoopbacks = true;
};

/// Owns the listening sockets, a dedicated Poco::ThreadPool(2, threads) and
/// the threads serving `api`.
///
/// Threads: one accept thread ("ad-http-accept") blocks in poll(2) on the
/// listening sockets and an eventfd that stop() writes, with no timeout (Poco
/// 1.11's TCPServer polls every 250 ms instead: about 4 wake-ups a second
/// while nothing happens). It looks up the Unix user of each accepted
/// connection's peer (HttpApi::peerCheck(), docs/SECURITY.md M1): another
/// user's connection, or one of a user already holding
/// maxConnectionsPerUid, gets a canned JSON 403 (503) written by the accept
/// thread without reading anything, and is closed — no pool thread. It
/// hands the others (TCP_NODELAY set, close-on-exec) to a
/// Poco::Net::TCPServerDispatcher running HttpApi::createConnectionFactory()
/// on the pool, as HTTPServer does with its factory: a
/// connection waits for a free pool thread in a queue of `threads` entries
/// (TCPServerParams maxQueued; the kernel's listen backlog is SOMAXCONN, emptied at
/// once by the accept thread) and beyond
/// that it is closed at once. Pool threads are named "ad-http-N"; a thread
/// serving an SSE stream is "ad-sse-N" meanwhile. The dispatcher's last idle
/// thread waits up to a day for work instead of Poco's 10 s. A reaper
/// thread ("ad-http-reaper") shuts down a connection whose request has not
/// arrived whole within requestDeadline of its first byte; it sleeps without
/// a timeout while no request is being read.
///
/// Not copyable. start() and stop() are meant for one controlling thread.
class ApiServer {
 public:
  /// `api` and `broadcaster` must outlive the server.
  ApiServer(HttpApi& api, SseBroadcaster& broadcaster, ApiServerOptions options);
  ~ApiServer();  ///< stop()
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  /// Binds (SO_REUSEADDR, never SO_REUSEPORT; IPv6 only for an IPv6
  /// address) the address and, with bothLoopbacks, the other loopback family
  /// on the same port (for port 0, a port free in both), listens and starts
  /// accepting. Call at most once. Throws Poco::Net::NetException naming the
  /// address and who holds it (uid, from /proc/net/tcp{,6}) when either
  /// address is taken; when the twin cannot be bound for another reason
  /// (IPv6 absent) it logs a warning and listens on the address only.
  /// Throws Poco::SystemException when it cannot make its eventfd or threads.
  void start();

  /// What start() listens on, e.g. {"127.0.0.1:7717", "[::1]:7717"}.
  const std::vector<std::string>& listening() const { return listening_; }

  /// The bound port (the real one when options.port was 0). Valid after start().
  std::uint16_t port() const { return boundPort_; }

  /// The base URL, e.g. "http://127.0.0.1:7717" ("http://[::1]:7717" for IPv6).
  std::string baseUrl() const;

  /// Shuts down in the order of docs/TECH-NOTES.md §2.4: stops the broadcaster (every
  /// SSE stream writes `event: bye` and returns), stops accepting and closes
  /// the listening socket, waits up to 2 s for the streams to end, drops the
  /// queued connections, shuts down the sockets of the connections being
  /// served (what HTTPServer::stopAll(true) does), then joins the pool.
  /// Idempotent.
  void stop();

 private:
  struct Listener;
  /// Binds and listens (see start()); fills listening_ and twinUnavailable_.
  void bindSockets();

  HttpApi& api_;
  SseBroadcaster& broadcaster_;
  ApiServerOptions options_;
  std::unique_ptr<Listener> listener_;  // the pool, socket, dispatcher and accept thread
  std::uint16_t boundPort_ = 0;
  std::vector<std::string> listening_;
  std::string twinUnavailable_;  // why the twin address is not listened on; "" if it is
  bool stopped_ = false;
};

}  // namespace antidrift
