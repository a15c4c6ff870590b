#include "server/api_server.h"

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

namespace antidrift {

ApiServer::ApiServer(HttpApi& api, SseBroadcaster& broadcaster, ApiServerOptions options)
    : api_(api),
      broadcaster_(broadcaster),
      options_(std::move(options)),
      pool_("antidrift-http", 2, options_.threads < 2 ? 2 : options_.threads) {}

ApiServer::~ApiServer() {
  stop();
}

void ApiServer::start() {
  // SO_REUSEADDR (quick restarts) but never SO_REUSEPORT: a second daemon on
  // the same port must fail to bind, not share the port.
  const Poco::Net::SocketAddress address(options_.address, options_.port);
  Poco::Net::ServerSocket socket;
  if (address.family() == Poco::Net::SocketAddress::IPv6) {
    socket.bind6(address, true, false, true);
  } else {
    socket.bind(address, true, false);
  }
  // One waiting connection per pool thread: a local UI never needs more,
  // and a flood is refused instead of queued for minutes.
  const int queue = pool_.capacity();
  socket.listen(queue);
  boundPort_ = socket.address().port();

  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(pool_.capacity());
  params->setMaxQueued(queue);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(options_.keepAliveTimeout.count(), 0));
  // The socket receive timeout (HTTPServerSession applies it): an idle or
  // slow client holds a pool thread at most this long per read.
  params->setTimeout(Poco::Timespan(options_.requestTimeout.count(), 0));
  params->setServerName("antidriftd");

  connections_ = api_.createConnectionFactory(params);
  server_ = std::make_unique<Poco::Net::TCPServer>(connections_, pool_, socket, params);
  server_->start();
}

std::string ApiServer::baseUrl() const {
  const Poco::Net::IPAddress address(options_.address);
  const std::string host = address.family() == Poco::Net::IPAddress::IPv6
                               ? "[" + options_.address + "]"
                               : options_.address;
  return "http://" + host + ":" + std::to_string(boundPort_);
}

void ApiServer::stop() {
  if (stopped_) {
    return;
  }
  stopped_ = true;
  broadcaster_.stop();
  if (server_) {
    server_->stop();
    connections_->stopConnections(true);
  }
  pool_.joinAll();
}

}  // namespace antidrift
