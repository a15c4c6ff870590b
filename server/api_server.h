/// @file api_server.h
/// The listening HTTP server of antidriftd: a Poco::Net::TCPServer serving HTTP
/// through HttpApi's peer-checked connections, with its own thread pool and
/// limits (DESIGN §10, TECH-NOTES §2.3, §2.4).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <Poco/Net/TCPServer.h>
#include <Poco/SharedPtr.h>
#include <Poco/ThreadPool.h>

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
};

/// Owns the socket, a dedicated Poco::ThreadPool(2, threads) and the
/// TCPServer serving `api` (HttpApi::createConnectionFactory: the peer of
/// each connection is checked once, then it is served as Poco's HTTPServer
/// would). Accepted connections wait for a free thread in
/// a queue of `threads` entries (TCPServerParams maxQueued; the listen
/// backlog is the same); beyond that Poco closes them at once. Not copyable.
/// start() and stop() are meant for one controlling thread.
class ApiServer {
 public:
  /// `api` and `broadcaster` must outlive the server.
  ApiServer(HttpApi& api, SseBroadcaster& broadcaster, ApiServerOptions options);
  ~ApiServer();  ///< stop()
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  /// Binds and starts accepting. Throws Poco::Exception (e.g.
  /// Poco::Net::NetException "Address already in use") when it cannot bind.
  void start();

  /// The bound port (the real one when options.port was 0). Valid after start().
  std::uint16_t port() const { return boundPort_; }

  /// The base URL, e.g. "http://127.0.0.1:7717" ("http://[::1]:7717" for IPv6).
  std::string baseUrl() const;

  /// Shuts down in the order of TECH-NOTES §2.4: stops the broadcaster (every
  /// SSE stream writes `event: bye` and returns), stopAll(true) closes the
  /// in-flight connections (as HTTPServer::stopAll(true) would), then the pool
  /// is joined. Idempotent.
  void stop();

 private:
  HttpApi& api_;
  SseBroadcaster& broadcaster_;
  ApiServerOptions options_;
  Poco::ThreadPool pool_;
  Poco::SharedPtr<http::PeerCheckedConnectionFactory> connections_;
  std::unique_ptr<Poco::Net::TCPServer> server_;
  std::uint16_t boundPort_ = 0;
  bool stopped_ = false;
};

}  // namespace antidrift
