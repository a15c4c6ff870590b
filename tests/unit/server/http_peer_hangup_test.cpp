#include "server/http/peer_hangup.h"

#include <gtest/gtest.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>

namespace antidrift::http {
namespace {

/// A real loopback TCP connection: the daemon's end (`server`) and the
/// client's (`client`).
struct Connection {
  Connection() : listener(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    client.connect(listener.address());
    server = listener.acceptConnection();
  }
  /// Waits (up to 5 s, by poll) until the daemon's end is readable: the
  /// client's close or reset has arrived.
  void waitForArrival() { server.poll(Poco::Timespan(5, 0), Poco::Net::Socket::SELECT_READ); }

  Poco::Net::ServerSocket listener;
  Poco::Net::StreamSocket client;
  Poco::Net::StreamSocket server;
};

TEST(PeerHangup, AnOpenQuietConnectionIsNoHangup) {
  Connection connection;
  EXPECT_FALSE(peerHasHungUp(connection.server.impl()->sockfd()));
}

TEST(PeerHangup, BytesTheClientSentAreNoHangupAndAreNotConsumed) {
  Connection connection;
  connection.client.sendBytes("GET", 3);
  connection.waitForArrival();
  EXPECT_FALSE(peerHasHungUp(connection.server.impl()->sockfd()));
  char buffer[3];
  EXPECT_EQ(connection.server.receiveBytes(buffer, 3), 3);
}

TEST(PeerHangup, AClosedClientIsAHangup) {
  Connection connection;
  connection.client.close();
  connection.waitForArrival();
  EXPECT_TRUE(peerHasHungUp(connection.server.impl()->sockfd()));
}

TEST(PeerHangup, AResetClientIsAHangup) {
  Connection connection;
  connection.client.setLinger(true, 0);  // close(2) sends RST, like a killed process
  connection.client.close();
  connection.waitForArrival();
  EXPECT_TRUE(peerHasHungUp(connection.server.impl()->sockfd()));
}

}  // namespace
}  // namespace antidrift::http
