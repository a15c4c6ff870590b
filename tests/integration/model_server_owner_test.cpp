// Another local user's model server (docs/SECURITY.md N1): the real antidriftd
// with `ai.backend = auto` (the default) and with the openai plugin and an
// API key, against a listener of a second Unix user on 127.0.0.1:11434
// (Ollama's port) inside a private network namespace, so no other process on
// the machine is disturbed and nothing else can hold the port. The listener
// counts every byte it receives: the daemon must send none, and say whose
// listener it refused.
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/JSON/Object.h>

#include "http_test_support.h"
#include "other_user.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif

namespace antidrift {
namespace {

using test::RunningDaemon;
using ::testing::HasSubstr;

/// Moves this test process (ctest runs each test in its own) into a new
/// network namespace with its loopback up; "" on success, else why not.
std::string enterPrivateNetwork() {
  if (::unshare(CLONE_NEWNET) != 0) return std::string("unshare: ") + std::strerror(errno);
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return std::string("socket: ") + std::strerror(errno);
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  request.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
  const int result = ::ioctl(fd, SIOCSIFFLAGS, &request);
  ::close(fd);
  return result == 0 ? "" : std::string("lo up: ") + std::strerror(errno);
}

class ModelServerOwnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: it creates a second user (useradd)";
    const std::string created = test::ensureOtherUser();
    ASSERT_EQ(created, "");
    const std::string network = enterPrivateNetwork();
    if (!network.empty()) GTEST_SKIP() << "no private network namespace here: " << network;
    ids_ = test::otherUserIds();
    environment_["HOME"] = directory_.path() + "/home";
    environment_["PATH"] = directory_.path() + "/bin";  // no claude, no codex
    environment_["ANTHROPIC_API_KEY"] = "";
    environment_["XDG_CONFIG_HOME"] = directory_.path() + "/config";
  }

  std::vector<std::string> args(std::vector<std::string> more) const {
    std::vector<std::string> all = {
        "-D", "server.port=0",           "-D", "store.dir=" + directory_.path() + "/store",
        "-D", "evidence.source=none",    "-D", "notify.desktop=false",
        "-D", "focus.do_not_disturb=off"};
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }

  test::TempDirectory directory_;
  test::OtherUserIds ids_;
  Poco::Process::Env environment_;
};

TEST_F(ModelServerOwnerTest, AutoSendsNothingToAnotherUsersServerOnOllamasPort) {
  test::ForeignListener evil(ids_, "127.0.0.1", 11434);
  ASSERT_EQ(evil.port(), 11434) << evil.errorText();
  RunningDaemon daemon(ANTIDRIFTD_PATH, args({}), environment_);  // ai.backend = auto
  ASSERT_NE(daemon.port(), 0) << daemon.err();
  const auto ai = test::sendRequest(daemon.port(), "GET", "/state").json()->getObject("ai");
  EXPECT_NE(ai->getValue<std::string>("backend"), "openai");
  daemon.stop();
  EXPECT_EQ(evil.stop(), 0u) << "the other user's listener received bytes";
  EXPECT_THAT(daemon.err(), HasSubstr("refused 127.0.0.1:11434: the model server is run by "
                                      "another user (uid " +
                                      std::to_string(ids_.uid) + ")"));
}

TEST_F(ModelServerOwnerTest, TheOpenAiPluginSendsNeitherPromptNorKeyToAnotherUsersServer) {
  test::ForeignListener evil(ids_, "127.0.0.1", 11434);
  ASSERT_EQ(evil.port(), 11434) << evil.errorText();
  const std::string keyFile = directory_.path() + "/key";
  std::ofstream(keyFile) << "sk-secret-key\n";
  RunningDaemon daemon(ANTIDRIFTD_PATH,
                       args({"-D", "ai.backend=openai", "-D", "ai.openai.model=stand-in", "-D",
                             "ai.openai.api_key_file=" + keyFile, "-D", "ai.timeout_s=2"}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.err();
  const auto ai = test::sendRequest(daemon.port(), "GET", "/state").json()->getObject("ai");
  EXPECT_EQ(ai->getValue<std::string>("destination"), "unchecked 127.0.0.1:11434");
  test::sendRequest(daemon.port(), "POST", "/planning", "{}");
  const auto coached =
      test::sendRequest(daemon.port(), "POST", "/coach", R"({"intent":"the tax return"})");
  EXPECT_NE(coached.status, 200) << coached.body;
  daemon.stop();
  EXPECT_EQ(evil.stop(), 0u) << "the other user's listener received bytes";
  EXPECT_THAT(daemon.err(), HasSubstr("(uid " + std::to_string(ids_.uid) + ")"));
}

TEST_F(ModelServerOwnerTest, AUserListedInTrustedUsersIsAsked) {
  // The control: the same listener, trusted by name, is sent the probe.
  test::ForeignListener trusted(ids_, "127.0.0.1", 11434);
  ASSERT_EQ(trusted.port(), 11434) << trusted.errorText();
  RunningDaemon daemon(ANTIDRIFTD_PATH,
                       args({"-D", std::string("ai.openai.trusted_users=") + test::kOtherUser}),
                       environment_);
  ASSERT_NE(daemon.port(), 0) << daemon.err();
  daemon.stop();
  EXPECT_GT(trusted.stop(), 0u);
  EXPECT_THAT(daemon.err(), ::testing::Not(HasSubstr("refused 127.0.0.1:11434")));
}

}  // namespace
}  // namespace antidrift
