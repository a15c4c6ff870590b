/// @file peer_checked_connections.h
/// Who may talk to the daemon is decided once per connection, not per request
/// (issue 8 item 2, issue 9 item 3): the peer of an accepted TCP connection
/// cannot change while it lives, so its owner is looked up when it is
/// accepted (PeerUserCheck: a netlink round trip and two address look-ups,
/// six system calls that a keep-alive connection used to pay on every
/// request) and the connection is then served over HTTP, or refused.
#pragma once

#include <functional>
#include <optional>

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include "server/request_guard.h"

namespace antidrift::http {

/// Creates the connection of each socket a Poco::Net::TCPServer accepted:
/// an HTTP connection with the served handlers when `check` lets the peer in;
/// otherwise one whose request (its body read first, so the client sees the
/// answer) gets the rejection as a JSON error (responses.h) with
/// `Connection: close`. A socket whose addresses cannot be read (it closed
/// already) is refused the same way. The HTTP connection is Poco 1.11's
/// HTTPServerConnection except that it waits for the next keep-alive request
/// with poll(2) (see the .cpp: Poco's wait costs three system calls more per
/// request).
///
/// Poco's HTTPServer is a TCPServer with a factory like this one minus the
/// check. A connection ends when its socket is shut down (ApiServer::stop).
/// createConnection() runs on the server's pool threads; `check` must be
/// thread-safe.
class PeerCheckedConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  /// nullopt lets the connection from `client` to `server` (the daemon's end)
  /// in; a rejection refuses it.
  using Check = std::function<std::optional<GuardRejection>(
      const Poco::Net::SocketAddress& client, const Poco::Net::SocketAddress& server)>;

  PeerCheckedConnectionFactory(Poco::Net::HTTPServerParams::Ptr params,
                               Poco::Net::HTTPRequestHandlerFactory::Ptr served, Check check);

  /// See the class comment. Never throws.
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override;

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Poco::Net::HTTPRequestHandlerFactory::Ptr served_;
  Check check_;
};

}  // namespace antidrift::http
