/// @file peer_checked_connections.h
/// Who may talk to the daemon is decided once per connection, not per request
/// (issue 8 item 2, issue 9 item 3): the peer of an accepted TCP connection
/// cannot change while it lives, so its owner is looked up when it is
/// accepted (PeerUserCheck: a netlink round trip and two address look-ups,
/// six system calls that a keep-alive connection used to pay on every
/// request), in ApiServer's accept thread, before any pool thread or read
/// (issue 19 item 1); the connections let in are served over HTTP here.
#pragma once

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

namespace antidrift::http {

/// Told where each request of a connection begins and where its reading
/// ends, so the whole request (request line, headers and body) can be held
/// to a deadline (issue 19 item 1, ApiServer). Called on the connection's
/// pool thread; implementations must be thread-safe towards whoever
/// enforces the deadline.
class RequestWatch {
 public:
  virtual ~RequestWatch() = default;
  /// The first byte of a request is there to read.
  virtual void requestBegan() = 0;
  /// The request has been read: the answer's first byte is being written
  /// (a `100 Continue` does not count), or its handler returned.
  virtual void requestEnded() = 0;
};

/// Creates the HTTP connection of each socket ApiServer accepted and let in
/// (whose peer it checked in its accept thread, issue 19 item 1: a refused
/// peer never reaches this factory). The HTTP connection is Poco 1.11's
/// HTTPServerConnection except that it waits for the next keep-alive
/// request with poll(2) (see the .cpp: Poco's wait costs three system calls
/// more per request) and reports each request to a RequestWatch.
///
/// Poco's HTTPServer is a TCPServer with a factory like this one. A
/// connection ends when its socket is shut down (ApiServer::stop, or the
/// request deadline). createConnection() runs on the server's pool threads.
class PeerCheckedConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  PeerCheckedConnectionFactory(Poco::Net::HTTPServerParams::Ptr params,
                               Poco::Net::HTTPRequestHandlerFactory::Ptr served);

  /// The connection of `socket`, unwatched. Never throws.
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override;

  /// The connection of `socket`, reporting to `watch` (null: unwatched),
  /// which must outlive the connection. Never throws.
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket,
                                                   RequestWatch* watch);

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Poco::Net::HTTPRequestHandlerFactory::Ptr served_;
};

}  // namespace antidrift::http
