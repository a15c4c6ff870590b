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

namespace antidrift::http {

namespace {

/// An HTTPServerSession whose read buffer can be asked about, and which tells
/// the RequestWatch when the answer's first byte is written.
class Session : public Poco::Net::HTTPServerSession {
 public:
  Session(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params,
          RequestWatch* watch)
      : HTTPServerSession(socket, std::move(params)), watch_(watch) {}
  int bufferedBytes() const { return buffered(); }

  /// A request's first byte is there: the watch starts its clock.
  void began() {
    reading_ = true;
    if (watch_ != nullptr) watch_->requestBegan();
  }
  /// The request has been read (idempotent until the next began()).
  void ended() {
    if (reading_ && watch_ != nullptr) watch_->requestEnded();
    reading_ = false;
  }
  /// While set, writes (a `100 Continue`) do not end the request.
  void setContinuing(bool continuing) { continuing_ = continuing; }

  int write(const char* buffer, std::streamsize length) override {
    if (!continuing_) ended();
    return HTTPServerSession::write(buffer, length);
  }

 private:
  RequestWatch* watch_;
  bool reading_ = false;
  bool continuing_ = false;
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
                 Poco::Net::HTTPRequestHandlerFactory::Ptr handlers, RequestWatch* watch)
      : TCPServerConnection(socket),
        params_(std::move(params)),
        handlers_(std::move(handlers)),
        watch_(watch) {}
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  void run() override {
    const std::string server = params_->getSoftwareVersion();
    Session session(socket(), params_, watch_);
    bool first = true;
    while (waitForRequest(session, first)) {
      first = false;
      session.began();
      const EndRequest end{session};
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
              session.setContinuing(true);  // the body is still to come
              response.sendContinue();
              session.setContinuing(false);
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
  /// Ends the session's request when a loop iteration ends, however.
  struct EndRequest {
    Session& session;
    ~EndRequest() { session.ended(); }
  };

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
  RequestWatch* watch_;
};

}  // namespace

PeerCheckedConnectionFactory::PeerCheckedConnectionFactory(
    Poco::Net::HTTPServerParams::Ptr params, Poco::Net::HTTPRequestHandlerFactory::Ptr served)
    : params_(std::move(params)), served_(std::move(served)) {}

Poco::Net::TCPServerConnection* PeerCheckedConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket) {
  return createConnection(socket, nullptr);
}

Poco::Net::TCPServerConnection* PeerCheckedConnectionFactory::createConnection(
    const Poco::Net::StreamSocket& socket, RequestWatch* watch) {
  return new HttpConnection(socket, params_, served_, watch);
}

}  // namespace antidrift::http
