#include "cli/daemon_client.h"

#include <algorithm>
#include <istream>
#include <optional>

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>

#include "cli/listener_check.h"

namespace antidrift::cli {
namespace {

using Poco::Net::HTTPClientSession;
using Poco::Net::HTTPRequest;
using Poco::Net::HTTPResponse;

/// A connection to `endpoint` whose listener belongs to this user (issue 19
/// item 2, docs/SECURITY.md M2): the owner of the server end of the very
/// connection is asked of the kernel (listener_check.h) before a
/// byte is sent. Throws NotTheDaemon when it is another user's, or unknown;
/// Poco::Exception when it cannot connect.
Poco::Net::StreamSocket connectChecked(const Endpoint& endpoint, std::chrono::seconds timeout) {
  const Poco::Net::SocketAddress address(endpoint.host, endpoint.port);
  Poco::Net::StreamSocket socket;
  socket.connect(address, Poco::Timespan(static_cast<long>(timeout.count()), 0));
  if (const std::optional<std::string> refusal = foreignListener(socket.impl()->sockfd())) {
    throw NotTheDaemon(*refusal);
  }
  socket.setReceiveTimeout(Poco::Timespan(static_cast<long>(timeout.count()), 0));
  socket.setSendTimeout(Poco::Timespan(static_cast<long>(timeout.count()), 0));
  return socket;
}

/// `request`'s Host header for `endpoint` (a session made from a connected
/// socket does not know the host).
void setHost(HTTPRequest& request, const Endpoint& endpoint) {
  request.setHost(endpoint.host, endpoint.port);
}

std::string notRunning(const Endpoint& endpoint) {
  return "antidriftd is not running on " + endpoint.url() + " (start it with " +
         endpoint.startHint + ")";
}

/// Runs `exchange` and turns "no answer" into DaemonUnreachable.
template <typename Exchange>
Reply guarded(const Endpoint& endpoint, Exchange&& exchange) {
  try {
    return exchange();
  } catch (const Poco::Net::ConnectionRefusedException&) {
    throw DaemonUnreachable(notRunning(endpoint));
  } catch (const Poco::TimeoutException&) {
    throw DaemonUnreachable("antidriftd on " + endpoint.url() + " did not answer in time");
  } catch (const Poco::Net::NetException& error) {
    throw DaemonUnreachable(notRunning(endpoint) + ": " + error.displayText());
  } catch (const Poco::IOException& error) {
    throw DaemonUnreachable("the connection to antidriftd on " + endpoint.url() +
                            " failed: " + error.displayText());
  }
}

/// The body of `in`, at most kMaxReplyBytes: a larger one is refused before
/// it is buffered (issue 19 item 7, review L7).
std::string readBounded(std::istream& in, const Endpoint& endpoint) {
  std::string body;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    body.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (body.size() > kMaxReplyBytes) {
      throw DaemonUnreachable("the answer from " + endpoint.url() + " is over " +
                              std::to_string(kMaxReplyBytes / 1024) +
                              " KiB; refused (is it antidriftd?)");
    }
  }
  return body;
}

Reply readReply(HTTPClientSession& session, const Endpoint& endpoint) {
  HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  Reply reply;
  reply.status = static_cast<int>(response.getStatus());
  reply.body = readBounded(in, endpoint);
  return reply;
}

}  // namespace

std::string Endpoint::url() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "http://" + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

DaemonClient::DaemonClient(Endpoint endpoint, std::chrono::seconds timeout)
    : endpoint_(std::move(endpoint)), timeout_(timeout) {}

Reply DaemonClient::get(const std::string& pathAndQuery) const {
  return guarded(endpoint_, [&] {
    HTTPClientSession session(connectChecked(endpoint_, timeout_));
    session.setTimeout(Poco::Timespan(static_cast<long>(timeout_.count()), 0));
    HTTPRequest request(HTTPRequest::HTTP_GET, pathAndQuery, Poco::Net::HTTPMessage::HTTP_1_1);
    setHost(request, endpoint_);
    session.sendRequest(request);
    return readReply(session, endpoint_);
  });
}

Reply DaemonClient::post(const std::string& path, const std::string& body,
                         const std::string& token) const {
  return guarded(endpoint_, [&] {
    HTTPClientSession session(connectChecked(endpoint_, timeout_));
    session.setTimeout(Poco::Timespan(static_cast<long>(timeout_.count()), 0));
    HTTPRequest request(HTTPRequest::HTTP_POST, path, Poco::Net::HTTPMessage::HTTP_1_1);
    setHost(request, endpoint_);
    request.setContentType("application/json");
    request.setContentLength64(static_cast<Poco::Int64>(body.size()));
    request.set("X-AntiDrift-Token", token);
    session.sendRequest(request) << body;
    return readReply(session, endpoint_);
  });
}

Reply DaemonClient::remove(const std::string& pathAndQuery, const std::string& token) const {
  return guarded(endpoint_, [&] {
    HTTPClientSession session(connectChecked(endpoint_, timeout_));
    session.setTimeout(Poco::Timespan(static_cast<long>(timeout_.count()), 0));
    HTTPRequest request(HTTPRequest::HTTP_DELETE, pathAndQuery, Poco::Net::HTTPMessage::HTTP_1_1);
    setHost(request, endpoint_);
    const std::string body = "{}";
    request.setContentType("application/json");
    request.setContentLength64(static_cast<Poco::Int64>(body.size()));
    request.set("X-AntiDrift-Token", token);
    session.sendRequest(request) << body;
    return readReply(session, endpoint_);
  });
}

void StreamCancel::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  if (socket_) {
    try {
      socket_->shutdown();
    } catch (const Poco::Exception&) {
      // Already closed or never connected: the stream ends anyway.
    }
  }
}

bool StreamCancel::cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

bool StreamCancel::attach(const Poco::Net::StreamSocket& socket) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cancelled_) {
    return false;
  }
  socket_ = socket;
  return true;
}

void StreamCancel::detach() {
  std::lock_guard<std::mutex> lock(mutex_);
  socket_.reset();
}

Reply DaemonClient::streamEvents(const std::function<bool(const ServerEvent&)>& onEvent,
                                 std::chrono::seconds silenceLimit, StreamCancel* cancel) const {
  return guarded(endpoint_, [&] {
    if (cancel && cancel->cancelled()) {
      return Reply{HTTPResponse::HTTP_OK, ""};
    }
    HTTPClientSession session(connectChecked(endpoint_, timeout_));
    // Detached before `session` closes the socket (declared after it, so
    // destroyed first).
    struct Detach {
      StreamCancel* cancel;
      ~Detach() {
        if (cancel) {
          cancel->detach();
        }
      }
    } detach{cancel};
    session.setTimeout(Poco::Timespan(static_cast<long>(timeout_.count()), 0));
    HTTPRequest request(HTTPRequest::HTTP_GET, "/events", Poco::Net::HTTPMessage::HTTP_1_1);
    setHost(request, endpoint_);
    request.set("Accept", "text/event-stream");
    session.sendRequest(request);
    HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    Reply reply;
    reply.status = static_cast<int>(response.getStatus());
    if (reply.status != HTTPResponse::HTTP_OK) {
      reply.body = readBounded(in, endpoint_);
      return reply;
    }
    // Keep-alive comments arrive every server.sse_keepalive_s; silence longer
    // than the limit means the daemon hangs or the network is gone.
    session.socket().setReceiveTimeout(Poco::Timespan(static_cast<long>(silenceLimit.count()), 0));
    if (cancel && !cancel->attach(session.socket())) {
      return reply;
    }
    SseParser parser;
    std::streambuf* buffer = in.rdbuf();
    char bytes[4096];
    for (;;) {
      std::size_t count = 0;
      try {
        // One byte, blocking; then whatever is buffered already.
        const int c = buffer->sbumpc();
        if (c == std::char_traits<char>::eof()) {
          break;
        }
        bytes[count++] = static_cast<char>(c);
        const std::streamsize buffered =
            std::min<std::streamsize>(buffer->in_avail(), sizeof bytes - 1);
        if (buffered > 0) {
          count += static_cast<std::size_t>(buffer->sgetn(bytes + 1, buffered));
        }
      } catch (...) {
        // As std::getline does: a read error (a timeout) marks the stream bad.
        in.setstate(std::ios::badbit);
        break;
      }
      try {
        if (!parser.feed(std::string_view(bytes, count), onEvent)) {
          return reply;
        }
      } catch (const SseTooLarge& error) {
        throw DaemonUnreachable(std::string(error.what()) + " (from " + endpoint_.url() +
                                "); refused (is it antidriftd?)");
      }
    }
    if (in.bad() && !(cancel && cancel->cancelled())) {
      throw DaemonUnreachable("lost the stream of antidriftd on " + endpoint_.url() +
                              " (no event or keep-alive for " +
                              std::to_string(silenceLimit.count()) + " s)");
    }
    return reply;
  });
}

}  // namespace antidrift::cli
