// PeerUserCheck on sample /proc/net/tcp and /proc/net/tcp6 content (issue 9
// item 3): the owner of the client's socket is found by local and remote
// address and port, for IPv4, IPv6 and IPv4-mapped IPv6; rows no process
// holds any more are ignored; another user and an unknown peer are 403.
#include "server/peer_user_check.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

namespace antidrift {
namespace {

using Poco::Net::SocketAddress;

// Captured on x86-64 (little-endian) while `curl http://127.0.0.1:7717/`
// (uid 1000, port 43210) talked to antidriftd (uid 1000) and another user's
// client (uid 1001, port 43212) was connected too. 7717 = 0x1E25,
// 43210 = 0xA8CA, 43212 = 0xA8CC, 43214 = 0xA8CE.
const std::string kTcp =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n"
    "   0: 0100007F:1E25 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 "
    "51234 1 0000000000000000 100 0 0 10 0\n"
    "   1: 0100007F:1E25 0100007F:A8CA 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "51240 1 0000000000000000 20 4 30 10 -1\n"
    "   2: 0100007F:A8CA 0100007F:1E25 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "51239 1 0000000000000000 20 4 30 10 -1\n"
    "   3: 0100007F:A8CC 0100007F:1E25 01 00000000:00000000 00:00000000 00000000  1001        0 "
    "51250 1 0000000000000000 20 4 30 10 -1\n"
    "   4: 0100007F:1E25 0100007F:A8CC 01 00000000:00000000 00:00000000 00000000  1000        0 "
    "51251 1 0000000000000000 20 4 30 10 -1\n"
    // A closed client: TIME_WAIT rows show uid 0 and inode 0.
    "   5: 0100007F:A8CE 0100007F:1E25 06 00000000:00000000 03:00001770 00000000     0        0 "
    "0 3 0000000000000000\n";

// ::1 = 00000000000000000000000001000000; ::ffff:127.0.0.1 =
// 0000000000000000FFFF00000100007F.
const std::string kTcp6 =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000000000000000000001000000:A8CA 00000000000000000000000001000000:1E25 01 "
    "00000000:00000000 00:00000000 00000000  1001        0 61000 1 0000000000000000 20 4 30 10 "
    "-1\n"
    "   1: 00000000000000000000000001000000:1E25 00000000000000000000000001000000:A8CA 01 "
    "00000000:00000000 00:00000000 00000000  1000        0 61001 1 0000000000000000 20 4 30 10 "
    "-1\n"
    "   2: 0000000000000000FFFF00000100007F:A8D0 0000000000000000FFFF00000100007F:1E25 01 "
    "00000000:00000000 00:00000000 00000000  1000        0 61002 1 0000000000000000 20 4 30 10 "
    "-1\n";

const SocketAddress kServer4("127.0.0.1", 7717);
const SocketAddress kServer6("::1", 7717);

PeerUserCheck checkFor(uid_t owner) {
  return PeerUserCheck(owner, [](const std::string& path) -> std::optional<std::string> {
    if (path == PeerUserCheck::kTcpTable) return kTcp;
    if (path == PeerUserCheck::kTcp6Table) return kTcp6;
    return std::nullopt;
  });
}

TEST(PeerUserCheckTable, FindsTheClientSocketByLocalAndRemoteEnd) {
  // Row 2 (the client's end), not row 1 (the daemon's own end of it).
  EXPECT_EQ(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43210), kServer4),
            std::optional<uid_t>(1000));
  EXPECT_EQ(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43212), kServer4),
            std::optional<uid_t>(1001));
}

TEST(PeerUserCheckTable, NeedsAddressAndPortOfBothEnds) {
  EXPECT_FALSE(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43211), kServer4));
  EXPECT_FALSE(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.2", 43210), kServer4));
  EXPECT_FALSE(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43210),
                                              SocketAddress("127.0.0.1", 7718)));
}

TEST(PeerUserCheckTable, IgnoresRowsNoProcessHolds) {
  // TIME_WAIT shows uid 0: trusting it would let anyone in to a root daemon.
  EXPECT_FALSE(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43214), kServer4));
}

TEST(PeerUserCheckTable, ReadsIpv6AndIpv4MappedRows) {
  EXPECT_EQ(PeerUserCheck::findSocketOwner(kTcp6, SocketAddress("::1", 43210), kServer6),
            std::optional<uid_t>(1001));
  // A dual-stack daemon sees an IPv4 client as ::ffff:127.0.0.1; its socket
  // may be listed in either spelling.
  EXPECT_EQ(PeerUserCheck::findSocketOwner(kTcp6, SocketAddress("127.0.0.1", 43216), kServer4),
            std::optional<uid_t>(1000));
  EXPECT_EQ(PeerUserCheck::findSocketOwner(kTcp, SocketAddress("::ffff:127.0.0.1", 43210),
                                           SocketAddress("::ffff:127.0.0.1", 7717)),
            std::optional<uid_t>(1000));
}

TEST(PeerUserCheckTable, MalformedContentFindsNothingAndNeverThrows) {
  for (const std::string& table :
       {std::string(), std::string("garbage"), std::string("\n\n\n"),
        std::string("   2: 0100007F:A8CA 0100007F:1E25 01\n"),
        std::string("   2: 0100007F:A8CA 0100007F:1E25 01 0:0 0:0 0 x1000 0 51239\n"),
        std::string("   2: 0100007F:A8CA 0100007F:1E25 01 0:0 0:0 0 99999999999 0 51239\n")}) {
    EXPECT_FALSE(PeerUserCheck::findSocketOwner(table, SocketAddress("127.0.0.1", 43210), kServer4))
        << table;
  }
}

TEST(PeerUserCheck, ServesTheOwnerAndRefusesOtherUsers) {
  const PeerUserCheck check = checkFor(1000);
  EXPECT_FALSE(check.check(SocketAddress("127.0.0.1", 43210), kServer4));
  const auto other = check.check(SocketAddress("127.0.0.1", 43212), kServer4);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403);
  EXPECT_EQ(other->message, "only the user running antidriftd may use it");
  // IPv6: found in tcp6 after tcp had no match.
  const auto other6 = check.check(SocketAddress("::1", 43210), kServer6);
  ASSERT_TRUE(other6);
  EXPECT_EQ(other6->status, 403);
  EXPECT_FALSE(check.check(SocketAddress("127.0.0.1", 43216), kServer4));
}

TEST(PeerUserCheck, AnUnknownPeerIsRefused) {
  const PeerUserCheck check = checkFor(0);
  // A closed (TIME_WAIT, uid 0) peer does not pass as root.
  const auto closed = check.check(SocketAddress("127.0.0.1", 43214), kServer4);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->status, 403);
  EXPECT_THAT(closed->message, ::testing::HasSubstr("could not be determined"));

  const PeerUserCheck unreadable(0, [](const std::string&) { return std::nullopt; });
  EXPECT_TRUE(unreadable.check(SocketAddress("127.0.0.1", 43210), kServer4));
}

TEST(PeerUserCheck, TheDefaultServesThisProcesssUser) {
  EXPECT_EQ(PeerUserCheck().owner(), ::geteuid());
  EXPECT_TRUE(PeerUserCheck::readTableFile(PeerUserCheck::kTcpTable));
  EXPECT_FALSE(PeerUserCheck::readTableFile("/nonexistent/tcp"));
}

/// A live loopback connection of this process: `client` connected to `listener`.
struct LiveConnection {
  explicit LiveConnection(const std::string& host) : listener(SocketAddress(host, 0)) {
    client.connect(listener.address());
    server = listener.acceptConnection();
  }
  Poco::Net::ServerSocket listener;
  Poco::Net::StreamSocket client;
  Poco::Net::StreamSocket server;
};

TEST(PeerUserCheckKernel, FindsTheOwnerOfALiveIpv4PeerSocket) {
  LiveConnection connection("127.0.0.1");
  const auto answer =
      PeerUserCheck::askKernel(connection.server.peerAddress(), connection.server.address());
  ASSERT_TRUE(answer.answered) << "sock_diag is unavailable here";
  ASSERT_TRUE(answer.owner);
  EXPECT_EQ(*answer.owner, ::geteuid());
  // The same answer as the table lookup it replaces.
  const PeerUserCheck tables(::geteuid());
  EXPECT_EQ(tables.peerOwner(connection.server.peerAddress(), connection.server.address()),
            answer.owner);
  EXPECT_FALSE(PeerUserCheck().check(connection.server.peerAddress(), connection.server.address()));
}

TEST(PeerUserCheckKernel, FindsTheOwnerOfALiveIpv6PeerSocket) {
  LiveConnection connection("::1");
  const auto answer =
      PeerUserCheck::askKernel(connection.server.peerAddress(), connection.server.address());
  ASSERT_TRUE(answer.answered);
  ASSERT_TRUE(answer.owner);
  EXPECT_EQ(*answer.owner, ::geteuid());
}

TEST(PeerUserCheckKernel, NoSuchConnectionIsNoOwnerNotTheListenerOnThatPort) {
  LiveConnection connection("127.0.0.1");
  // A "peer" whose local end is the listener's address: the kernel's exact
  // lookup falls back to the listener, which must not count as the peer.
  const auto listener =
      PeerUserCheck::askKernel(connection.listener.address(), SocketAddress("127.0.0.1", 9));
  ASSERT_TRUE(listener.answered);
  EXPECT_FALSE(listener.owner);
  const auto nobody =
      PeerUserCheck::askKernel(SocketAddress("127.0.0.1", 9), connection.server.address());
  ASSERT_TRUE(nobody.answered);
  EXPECT_FALSE(nobody.owner);
}

TEST(PeerUserCheckKernel, AClosedPeerIsNoOwner) {
  LiveConnection connection("127.0.0.1");
  const SocketAddress peer = connection.server.peerAddress();
  const SocketAddress daemon = connection.server.address();
  connection.client.close();  // FIN_WAIT/TIME_WAIT: no process holds it
  connection.server.close();
  const auto answer = PeerUserCheck::askKernel(peer, daemon);
  ASSERT_TRUE(answer.answered);
  EXPECT_FALSE(answer.owner);
  EXPECT_TRUE(PeerUserCheck().check(peer, daemon));
}

TEST(PeerUserCheckTable, TheServerEndOfAConnectionNotYetAcceptedCarriesTheListenersUid) {
  // The server end of a connection still in the accept queue has inode 0
  // and the listener's uid: the daemon's peer lookup ignores such rows, the
  // CLI's server-end lookup (issue 19 item 2) counts them.
  const std::string queued =
      kTcp +
      "   6: 0100007F:1E25 0100007F:A8D2 01 00000000:00000000 00:00000000 00000000  1001        0 "
      "0 1 0000000000000000 20 4 30 10 -1\n";
  const SocketAddress client("127.0.0.1", 43218);
  EXPECT_FALSE(PeerUserCheck::findSocketOwner(queued, kServer4, client));
  EXPECT_EQ(PeerUserCheck::findSocketOwner(queued, kServer4, client, true), 1001u);
  // TIME_WAIT still counts as no one's.
  EXPECT_FALSE(
      PeerUserCheck::findSocketOwner(kTcp, SocketAddress("127.0.0.1", 43214), kServer4, true));
  // An accepted server end (inode set) counts either way.
  EXPECT_EQ(
      PeerUserCheck::findSocketOwner(queued, kServer4, SocketAddress("127.0.0.1", 43210), true),
      1000u);
}

TEST(PeerUserCheckTable, TheListenerOwnerIsTheUidOfTheListeningRow) {
  const auto reader = [](const std::string& path) -> std::optional<std::string> {
    return path == PeerUserCheck::kTcpTable ? std::optional<std::string>(kTcp)
                                            : std::optional<std::string>(kTcp6);
  };
  EXPECT_EQ(PeerUserCheck::listenerOwner(kServer4, reader), 1000u);
  EXPECT_FALSE(PeerUserCheck::listenerOwner(SocketAddress("127.0.0.1", 7718), reader));
  EXPECT_FALSE(PeerUserCheck::listenerOwner(kServer6, reader));  // no listener row in kTcp6
}

TEST(PeerUserCheckKernel, TheServerEndOwnerIsTheListenersUserBeforeAndAfterAccept) {
  Poco::Net::ServerSocket listener(SocketAddress("127.0.0.1", 0));
  Poco::Net::StreamSocket client;
  client.connect(listener.address());
  // Not accepted yet: the server end is in the accept queue.
  EXPECT_EQ(PeerUserCheck::serverEndOwner(client.peerAddress(), client.address()), ::geteuid());
  Poco::Net::StreamSocket server = listener.acceptConnection();
  EXPECT_EQ(PeerUserCheck::serverEndOwner(client.peerAddress(), client.address()), ::geteuid());
  // The same through the tables alone.
  const auto noKernelNeeded =
      PeerUserCheck::findSocketOwner(*PeerUserCheck::readTableFile(PeerUserCheck::kTcpTable),
                                     client.peerAddress(), client.address(), true);
  EXPECT_EQ(noKernelNeeded, ::geteuid());
  // Nothing listens on port 9 of this connection's client: no owner.
  EXPECT_FALSE(PeerUserCheck::serverEndOwner(SocketAddress("127.0.0.1", 9), client.address()));
}

TEST(PeerUserCheckKernel, ListenerOwnerFindsThisProcesssListener) {
  Poco::Net::ServerSocket listener(SocketAddress("127.0.0.1", 0));
  EXPECT_EQ(PeerUserCheck::listenerOwner(listener.address()), ::geteuid());
}

}  // namespace
}  // namespace antidrift
