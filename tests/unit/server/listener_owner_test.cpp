// checkListenerOwner() against real listeners this test owns on ephemeral
// loopback ports (docs/SECURITY.md N1): this process's own listener is
// trusted and called local; a socket with no peer is refused. Another user's
// listener is integration.ModelServerOwnerTest (it needs a second user).
#include "server/listener_owner.h"

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

namespace antidrift {
namespace {

TEST(ParseUserList, TrimsAndDropsEmptyEntries) {
  EXPECT_THAT(parseUserList(" ollama, llm ,,\tbob "),
              ::testing::ElementsAre("ollama", "llm", "bob"));
  EXPECT_TRUE(parseUserList("").empty());
  EXPECT_THAT(parseUserList(kDefaultTrustedModelServerUsers), ::testing::ElementsAre("ollama"));
}

TEST(CheckListenerOwner, OwnListenerOnLoopbackIsTrustedAndLocal) {
  Poco::Net::ServerSocket listener(Poco::Net::SocketAddress("127.0.0.1", 0));
  Poco::Net::StreamSocket client;
  client.connect(listener.address());
  const ListenerOwner owner = checkListenerOwner(static_cast<int>(client.impl()->sockfd()), {});
  EXPECT_TRUE(owner.trusted) << owner.problem;
  EXPECT_TRUE(owner.local);
  ASSERT_TRUE(owner.owner.has_value());
  EXPECT_EQ(*owner.owner, ::geteuid());
  EXPECT_EQ(owner.problem, "");
}

TEST(CheckListenerOwner, OwnListenerOnIpv6LoopbackIsTrustedAndLocal) {
  Poco::Net::ServerSocket listener;
  try {
    listener.bind6(Poco::Net::SocketAddress("::1", 0), false, true);
    listener.listen();
  } catch (const Poco::Exception& error) {
    GTEST_SKIP() << "no IPv6 loopback here: " << error.displayText();
  }
  Poco::Net::StreamSocket client;
  client.connect(listener.address());
  const ListenerOwner owner = checkListenerOwner(static_cast<int>(client.impl()->sockfd()), {});
  EXPECT_TRUE(owner.trusted) << owner.problem;
  EXPECT_TRUE(owner.local);
}

TEST(CheckListenerOwner, ASocketWithoutAPeerIsRefused) {
  Poco::Net::StreamSocket unconnected(Poco::Net::SocketAddress::IPv4);
  const ListenerOwner owner =
      checkListenerOwner(static_cast<int>(unconnected.impl()->sockfd()), {"ollama"});
  EXPECT_FALSE(owner.trusted);
  EXPECT_FALSE(owner.local);
  EXPECT_THAT(owner.problem, ::testing::HasSubstr("cannot tell who runs the model server"));
}

}  // namespace
}  // namespace antidrift
