#include "server/http/peer_checked_connections.h"

#include <string>
#include <utility>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerConnection.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include "server/http/body.h"
#include "server/http/responses.h"

namespace antidrift::http {

namespace {

/// Answers a request of a refused connection and ends the connection.
class RefusingHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RefusingHandler(GuardRejection rejection) : rejection_(std::move(rejection)) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    try {
      static_cast<void>(readBody(request));  // bounded; lets the client read the answer
    } catch (const std::exception&) {
      // A malformed body changes nothing: the answer is the refusal.
    }
    response.setKeepAlive(false);
    sendError(response, rejection_.status, rejection_.message);
  }

 private:
  GuardRejection rejection_;
};

/// Creates RefusingHandlers; one per refused connection.
class RefusingHandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit RefusingHandlerFactory(GuardRejection rejection) : rejection_(std::move(rejection)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new RefusingHandler(rejection_);
  }

 private:
  GuardRejection rejection_;
};

/// The served handlers, behind a factory whose serverStopped event (protected
/// in Poco, raised by HTTPServer as a friend) this module can raise.
class StoppableFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit StoppableFactory(Poco::Net::HTTPRequestHandlerFactory::Ptr inner)
      : inner_(std::move(inner)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest& request) override {
    return inner_->createRequestHandler(request);
  }
  void announceStop(bool abortCurrent) { serverStopped(this, abortCurrent); }

 private:
  Poco::Net::HTTPRequestHandlerFactory::Ptr inner_;
};

}  // namespace

PeerCheckedConnectionFactory::PeerCheckedConnectionFactory(
    Poco::Net::HTTPServerParams::Ptr params, Poco::Net::HTTPRequestHandlerFactory::Ptr served,
    Check check)
    : params_(std::move(params)),
      served_(new StoppableFactory(std::move(served))),
      check_(std::move(check)) {}

Poco::Net::TCPServerConnection* PeerCheckedConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  std::optional<GuardRejection> rejection;
  try {
    rejection = check_(socket.peerAddress(), socket.address());
  } catch (const std::exception&) {
    rejection = GuardRejection{403, "the connection closed before it could be checked"};
  }
  if (!rejection) {
    return new Poco::Net::HTTPServerConnection(socket, params_, served_);
  }
  // Not registered for stopConnections(): it answers one request and ends.
  return new Poco::Net::HTTPServerConnection(socket, params_,
                                             new RefusingHandlerFactory(std::move(*rejection)));
}

void PeerCheckedConnectionFactory::stopConnections(bool abortCurrent) {
  static_cast<StoppableFactory&>(*served_).announceStop(abortCurrent);
}

}  // namespace antidrift::http
