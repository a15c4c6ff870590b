#include "server/http/peer_checked_connections.h"

#include <poll.h>

#include <cerrno>
#include <memory>
#include <string>
#include <utility>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponseImpl.h>
#include <Poco/Net/HTTPServerSession.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Timestamp.h>

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

/// An HTTPServerSession whose read buffer can be asked about.
class Session : public Poco::Net::HTTPServerSession {
 public:
  using HTTPServerSession::HTTPServerSession;
  int bufferedBytes() const { return buffered(); }
};

/// Poco 1.11's HTTPServerConnection::run, but waiting for the next request
/// with poll(2). Poco's HTTPServerSession::hasMoreRequests() waits through
/// Socket::poll, which on Linux creates, arms and closes an epoll instance
/// each time: three system calls more on every keep-alive request (about 7 %
/// of the daemon's CPU at 10,000 observations/s, issue 8 item 2; the only
/// reason this loop is not Poco's). Everything else is Poco's: the session,
/// the request and response objects, keep-alive, Expect: 100-continue and the
/// 400/500/501 answers. The server stops a connection by shutting its socket
/// down (ApiServer::stop): the wait or the read in progress then ends it.
class HttpConnection : public Poco::Net::TCPServerConnection {
 public:
  HttpConnection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
                 Poco::Net::HTTPRequestHandlerFactory::Ptr handlers)
      : TCPServerConnection(socket), params_(std::move(params)), handlers_(std::move(handlers)) {}
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void run() override {
    const std::string server = params_->getSoftwareVersion();
    Session session(socket(), params_);
    bool first = true;
    while (waitForRequest(session, first)) {
      first = false;
      try {
        Poco::Net::HTTPServerResponseImpl response(session);
        Poco::Net::HTTPServerRequestImpl request(response, session, params_);
        response.setDate(Poco::Timestamp());
        response.setVersion(request.getVersion());
        response.setKeepAlive(params_->getKeepAlive() && request.getKeepAlive());
        if (!server.empty()) response.set("Server", server);
        try {
          const std::unique_ptr<Poco::Net::HTTPRequestHandler> handler(
              handlers_->createRequestHandler(request));
          if (handler) {
            if (request.getExpectContinue() &&
                response.getStatus() == Poco::Net::HTTPResponse::HTTP_OK) {
              response.sendContinue();
            }
            handler->handleRequest(request, response);
            session.setKeepAlive(params_->getKeepAlive() && response.getKeepAlive());
          } else {
            sendErrorResponse(session, Poco::Net::HTTPResponse::HTTP_NOT_IMPLEMENTED);
          }
        } catch (const Poco::Exception&) {
          if (!response.sent()) {
            try {
              sendErrorResponse(session, Poco::Net::HTTPResponse::HTTP_INTERNAL_SERVER_ERROR);
            } catch (...) {
              // The client is gone; the connection ends below.
            }
          }
          throw;
        }
      } catch (const Poco::Net::NoMessageException&) {
        break;
      } catch (const Poco::Net::MessageException&) {
        sendErrorResponse(session, Poco::Net::HTTPResponse::HTTP_BAD_REQUEST);
      } catch (const Poco::Exception&) {
        if (session.networkException() != nullptr) session.networkException()->rethrow();
        throw;
      }
    }
  }

 private:
  /// Whether a request is there to read: bytes already buffered, or the
  /// socket readable (or closed: reading then ends the loop) within the
  /// request timeout for the first request and the keep-alive timeout after.
  bool waitForRequest(Session& session, bool first) {
    if (!first && (!session.getKeepAlive() || !params_->getKeepAlive())) return false;
    if (!first && session.bufferedBytes() > 0) return true;
    const Poco::Timespan timeout = first ? params_->getTimeout() : params_->getKeepAliveTimeout();
    pollfd readable{socket().impl()->sockfd(), POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&readable, 1, static_cast<int>(timeout.totalMilliseconds()));
    } while (ready < 0 && errno == EINTR);
    return ready > 0;
  }

  static void sendErrorResponse(Poco::Net::HTTPServerSession& session,
                                Poco::Net::HTTPResponse::HTTPStatus status) {
    Poco::Net::HTTPServerResponseImpl response(session);
    response.setVersion(Poco::Net::HTTPMessage::HTTP_1_1);
    response.setStatusAndReason(status);
    response.setKeepAlive(false);
    response.send();
    session.setKeepAlive(false);
  }

  Poco::Net::HTTPServerParams::Ptr params_;
  Poco::Net::HTTPRequestHandlerFactory::Ptr handlers_;
};

}  // namespace

PeerCheckedConnectionFactory::PeerCheckedConnectionFactory(
    Poco::Net::HTTPServerParams::Ptr params, Poco::Net::HTTPRequestHandlerFactory::Ptr served,
    Check check)
    : params_(std::move(params)), served_(std::move(served)), check_(std::move(check)) {}

Poco::Net::TCPServerConnection* PeerCheckedConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  std::optional<GuardRejection> rejection;
  try {
    rejection = check_(socket.peerAddress(), socket.address());
  } catch (const std::exception&) {
    rejection = GuardRejection{403, "the connection closed before it could be checked"};
  }
  if (!rejection) {
    return new HttpConnection(socket, params_, served_);
  }
  return new HttpConnection(socket, params_, new RefusingHandlerFactory(std::move(*rejection)));
}

}  // namespace antidrift::http
