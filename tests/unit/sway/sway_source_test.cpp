/// @file sway_source_test.cpp
/// The i3/sway IPC source (server/sway/sway_source.h) against a fake IPC server on a temporary
/// UNIX socket: subscription, the initial tree, focus and title events, malformed and
/// oversized messages, a closed socket and reconnection, socket discovery. Every wait is on a
/// reported callback with a deadline; no sleeps.

#include "server/sway/sway_source.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "server/sway/ipc_codec.h"
#include "server/sway/unix_socket.h"
#include "support/temp_dir.h"

namespace antidrift::sway {
namespace {

using test::TempDirectory;

constexpr std::chrono::milliseconds kDeadline = std::chrono::seconds(10);

int remainingMs(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<long long>(left.count(), 0));
}

/// A listening UNIX socket at `path` (the IPC server side), driven by the test thread.
class FakeIpcServer {
 public:
  explicit FakeIpcServer(std::string path) : path_(std::move(path)) {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof address.sun_path - 1);
    if (listener_ < 0 ||
        ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 4) != 0) {
      throw std::system_error(errno, std::generic_category(), "fake IPC server at " + path_);
    }
  }
  ~FakeIpcServer() {
    closeConnection();
    ::close(listener_);
    ::unlink(path_.c_str());
  }
  FakeIpcServer(const FakeIpcServer&) = delete;
  FakeIpcServer& operator=(const FakeIpcServer&) = delete;

  /// Accepts the source's next connection; false when none came within the deadline.
  bool accept() {
    closeConnection();
    pollfd descriptor{listener_, POLLIN, 0};
    if (poll(&descriptor, 1, static_cast<int>(kDeadline.count())) != 1) {
      return false;
    }
    connection_ = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    decoder_ = IpcDecoder();
    return connection_ >= 0;
  }

  /// The next message the source sent; type 0xFFFFFFFF when none came within the deadline.
  IpcMessage receive() {
    const auto deadline = std::chrono::steady_clock::now() + kDeadline;
    IpcMessage message;
    while (decoder_.next(message) != IpcDecodeStatus::Message) {
      pollfd descriptor{connection_, POLLIN, 0};
      char buffer[4096];
      if (poll(&descriptor, 1, remainingMs(deadline)) != 1) {
        return IpcMessage{0xFFFFFFFFU, ""};
      }
      const ssize_t count = ::read(connection_, buffer, sizeof buffer);
      if (count <= 0) {
        return IpcMessage{0xFFFFFFFFU, ""};
      }
      decoder_.append(buffer, static_cast<std::size_t>(count));
    }
    return message;
  }

  /// Accepts and answers the handshake: SUBSCRIBE (success) and GET_TREE (`tree`).
  ::testing::AssertionResult acceptAndGreet(const std::string& tree) {
    if (!accept()) {
      return ::testing::AssertionFailure() << "the source did not connect";
    }
    const IpcMessage subscribe = receive();
    if (subscribe.type != static_cast<std::uint32_t>(IpcRequest::Subscribe) ||
        subscribe.payload != R"(["window","shutdown"])") {
      return ::testing::AssertionFailure()
             << "expected SUBSCRIBE, got type " << subscribe.type << " " << subscribe.payload;
    }
    const IpcMessage getTree = receive();
    if (getTree.type != static_cast<std::uint32_t>(IpcRequest::GetTree)) {
      return ::testing::AssertionFailure() << "expected GET_TREE, got type " << getTree.type;
    }
    send(encodeIpcMessage(2, R"({"success":true})"));
    send(encodeIpcMessage(4, tree));
    return ::testing::AssertionSuccess();
  }

  void send(const std::string& bytes) {
    ASSERT_EQ(::send(connection_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  void sendEvent(const std::string& json) { send(encodeIpcMessage(kIpcWindowEvent, json)); }

  void closeConnection() {
    if (connection_ >= 0) {
      ::close(connection_);
      connection_ = -1;
    }
  }

 private:
  std::string path_;
  int listener_ = -1;
  int connection_ = -1;
  IpcDecoder decoder_;
};

/// Everything the source reported, in order, as text lines ("window app|title",
/// "connected", "disconnected why", "problem …").
class Recorder {
 public:
  SwaySourceCallbacks callbacks() {
    SwaySourceCallbacks result;
    result.onWindow = [this](const std::string& app, const std::string& title) {
      add("window " + app + "|" + title);
    };
    result.onConnected = [this](const std::string&) { add("connected"); };
    result.onDisconnected = [this](const std::string& why) { add("disconnected " + why); };
    result.onProblem = [this](const std::string& problem) { add("problem " + problem); };
    return result;
  }

  /// Waits until a line starting with `prefix` arrives after the ones already consumed, and
  /// consumes up to it. Returns that line, or "" on timeout.
  std::string waitFor(const std::string& prefix) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::string found;
    changed_.wait_for(lock, kDeadline, [&] {
      for (; consumed_ < lines_.size(); ++consumed_) {
        if (lines_[consumed_].rfind(prefix, 0) == 0) {
          found = lines_[consumed_++];
          return true;
        }
      }
      return false;
    });
    return found;
  }

  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

  /// Whether more than `count` lines arrive within `timeout` (false: none came).
  bool waitForMoreThan(std::size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return lines_.size() > count; });
  }

 private:
  void add(std::string line) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(std::move(line));
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
  std::size_t consumed_ = 0;
};

const std::string kTree =
    R"({"id":1,"type":"root","nodes":[{"id":3,"type":"workspace","nodes":[)"
    R"({"id":4,"type":"con","app_id":"foot","name":"first-window","focused":true},)"
    R"({"id":5,"type":"con","app_id":"editor","name":"notes.md","focused":false}]}]})";

class SwaySourceTest : public ::testing::Test {
 protected:
  std::string socketPath() const { return directory_.path() + "/sway-ipc.1000.42.sock"; }

  std::unique_ptr<SwaySource> makeSource(std::int64_t heartbeatSecs = 3600) {
    SwaySourceOptions options;
    options.server = IpcServer::Sway;
    options.heartbeatSecs = heartbeatSecs;
    options.firstRetryDelayMs = 10;
    options.maxRetryDelayMs = 50;
    const std::string path = socketPath();
    options.locate = [path] { return IpcSocketLocation{path, ""}; };
    return std::make_unique<SwaySource>(options, recorder_.callbacks());
  }

  TempDirectory directory_;
  Recorder recorder_;
};

TEST_F(SwaySourceTest, ReportsTheFocusedWindowOfTheTreeThenFollowsFocusAndTitle) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("connected"), "connected");
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");

  server.sendEvent(R"({"change":"focus","container":{"id":5,"type":"con","app_id":"editor",)"
                   R"("name":"notes.md"}})");
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|notes.md");
  // A title change of another window is not the focused one's; the focused one's is.
  server.sendEvent(R"({"change":"title","container":{"id":4,"app_id":"foot","name":"vim"}})");
  server.sendEvent(
      R"({"change":"title","container":{"id":5,"app_id":"editor","name":"● notes.md"}})");
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|● notes.md");
  // An XWayland window: app_id null, the X11 class instead.
  server.sendEvent(R"({"change":"focus","container":{"id":9,"app_id":null,)"
                   R"("window_properties":{"class":"Firefox"},"name":"Docs"}})");
  EXPECT_EQ(recorder_.waitFor("window"), "window Firefox|Docs");
  source->stop();
  for (const std::string& line : recorder_.lines()) {
    EXPECT_NE(line, "window foot|vim");
    EXPECT_EQ(line.rfind("problem", 0), std::string::npos) << line;
  }
}

TEST_F(SwaySourceTest, MalformedEventsAreReportedAndSkippedAndTheSourceGoesOn) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(R"({"broken": )"));  // a tree that is no JSON
  EXPECT_NE(recorder_.waitFor("problem skipped a GET_TREE reply"), "");
  server.sendEvent("not json at all");
  EXPECT_NE(recorder_.waitFor("problem skipped a window event"), "");
  server.sendEvent(R"({"change":"focus"})");
  EXPECT_NE(recorder_.waitFor("problem skipped a window event"), "");
  server.send(encodeIpcMessage(0x80000099U, "{}"));  // an event it did not ask for
  server.sendEvent(R"({"change":"focus","container":{"id":5,"app_id":"editor","name":"ok"}})");
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|ok");
  for (const std::string& line : recorder_.lines()) {
    EXPECT_EQ(line.rfind("disconnected", 0), std::string::npos) << line;
  }
}

TEST_F(SwaySourceTest, AClosedSocketIsReportedOnceAndTheSourceReconnects) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  server.closeConnection();
  EXPECT_EQ(recorder_.waitFor("disconnected"), "disconnected the sway IPC socket was closed");
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("connected"), "connected");
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
}

TEST_F(SwaySourceTest, AStreamOutOfStepOrAnOversizedPayloadDropsTheConnection) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  server.send("garbage that is not i3-ipc");
  EXPECT_NE(recorder_.waitFor("disconnected the IPC stream is out of step"), "");

  ASSERT_TRUE(server.acceptAndGreet(kTree));
  std::string huge = "i3-ipc";
  const std::uint32_t length = 0x7FFFFFFFU;
  huge.append(reinterpret_cast<const char*>(&length), 4);
  huge.append(reinterpret_cast<const char*>(&kIpcWindowEvent), 4);
  server.send(huge);
  EXPECT_NE(recorder_.waitFor("disconnected an IPC message announced a payload over"), "");
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("connected"), "connected");
}

TEST_F(SwaySourceTest, ARefusedSubscriptionIsAnOutage) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.accept());
  server.receive();
  server.receive();
  server.send(encodeIpcMessage(2, R"({"success":false})"));
  EXPECT_EQ(recorder_.waitFor("disconnected"),
            "disconnected the sway IPC server refused the window subscription");
}

TEST_F(SwaySourceTest, WithNoSocketItSaysSoOnceAndConnectsWhenOneAppears) {
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  EXPECT_NE(recorder_.waitFor("disconnected no sway IPC socket found"), "");
  FakeIpcServer server(socketPath());
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  int outages = 0;
  for (const std::string& line : recorder_.lines()) {
    outages += line.rfind("disconnected", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(outages, 1);  // one report per outage, however many attempts it took
}

TEST_F(SwaySourceTest, TheHeartbeatReEmitsTheCurrentWindow) {
  FakeIpcServer server(socketPath());
  auto source = makeSource(1);
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");  // about 1 s later
}

TEST_F(SwaySourceTest, WithTheHeartbeatOffOnlyChangesComeAndTurningItOnReemitsAtOnce) {
  FakeIpcServer server(socketPath());
  auto source = makeSource(1);
  source->setHeartbeat(false);  // as the daemon does while no session is active
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  server.sendEvent(R"({"change":"focus","container":{"id":5,"type":"con","app_id":"editor",)"
                   R"("name":"notes.md"}})");
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|notes.md");  // changes come at once
  // Nothing happens: no heartbeat (at 1 s it would come twice here).
  const std::size_t quiet = recorder_.lines().size();
  EXPECT_FALSE(recorder_.waitForMoreThan(quiet, std::chrono::milliseconds(2500)));

  const auto on = std::chrono::steady_clock::now();
  source->setHeartbeat(true);
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|notes.md");
  // At once: before a heartbeat could.
  EXPECT_LT(std::chrono::steady_clock::now() - on, std::chrono::milliseconds(900));
  EXPECT_EQ(recorder_.waitFor("window"), "window editor|notes.md");  // then every second
  source->stop();
  source->setHeartbeat(false);  // after stop: a no-op
}

TEST_F(SwaySourceTest, TurningTheHeartbeatOnWhileDisconnectedWaitsForAConnection) {
  auto source = makeSource(1);
  source->setHeartbeat(false);
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  EXPECT_NE(recorder_.waitFor("disconnected"), "");
  source->setHeartbeat(true);  // wakes the retry wait; nothing to emit yet
  FakeIpcServer server(socketPath());
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");  // the heartbeat runs
}

TEST_F(SwaySourceTest, StopEndsTheThreadWhileConnectedOrWaiting) {
  FakeIpcServer server(socketPath());
  auto source = makeSource();
  std::string error;
  ASSERT_TRUE(source->start(error)) << error;
  EXPECT_FALSE(source->start(error));
  EXPECT_NE(error, "");
  ASSERT_TRUE(server.acceptAndGreet(kTree));
  EXPECT_EQ(recorder_.waitFor("window"), "window foot|first-window");
  source->stop();
  source->stop();  // idempotent
  const std::size_t before = recorder_.lines().size();
  source.reset();
  EXPECT_EQ(recorder_.lines().size(), before);  // no outage reported for a requested stop
}

TEST(IpcSocketCandidatesTest, TheConfiguredSocketFirstThenOthersOfTheSameKindNewestFirst) {
  TempDirectory runtime;
  FakeIpcServer older(runtime.path() + "/sway-ipc.1000.10.sock");
  FakeIpcServer newer(runtime.path() + "/sway-ipc.1000.20.sock");
  const auto past = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  std::filesystem::last_write_time(runtime.path() + "/sway-ipc.1000.10.sock", past);
  test::writeWholeFile(runtime.path() + "/sway-ipc.1000.30.sock", "a file, not a socket");
  FakeIpcServer other(runtime.path() + "/unrelated.sock");

  const std::string configured = runtime.path() + "/sway-ipc.1000.10.sock";
  EXPECT_EQ(ipcSocketCandidates(IpcServer::Sway, {configured, runtime.path()}),
            (std::vector<std::string>{configured, runtime.path() + "/sway-ipc.1000.20.sock"}));
  // The configured socket is gone (sway restarted): the others of its folder remain.
  EXPECT_EQ(ipcSocketCandidates(IpcServer::Sway, {runtime.path() + "/sway-ipc.1000.5.sock", ""}),
            (std::vector<std::string>{runtime.path() + "/sway-ipc.1000.20.sock", configured}));
  EXPECT_TRUE(ipcSocketCandidates(IpcServer::Sway, {"", ""}).empty());
  EXPECT_TRUE(ipcSocketCandidates(IpcServer::Sway, {"", "/nonexistent/folder"}).empty());
}

TEST(IpcSocketCandidatesTest, I3SocketsLiveInTheI3SubfolderOfTheRuntimeDirectory) {
  TempDirectory runtime;
  std::filesystem::create_directory(runtime.path() + "/i3");
  FakeIpcServer i3(runtime.path() + "/i3/ipc-socket.77");
  FakeIpcServer sway(runtime.path() + "/sway-ipc.1000.20.sock");
  EXPECT_EQ(ipcSocketCandidates(IpcServer::I3, {"", runtime.path()}),
            (std::vector<std::string>{runtime.path() + "/i3/ipc-socket.77"}));
  EXPECT_EQ(toString(IpcServer::I3), "i3");
  EXPECT_EQ(toString(IpcServer::Sway), "sway");
}

TEST(IpcSocketCandidatesTest, IgnoresSocketsOfOtherUsers) {
  // Issue 19 item 7 (review L9): another user's newer socket beside ours (sway's
  // /tmp fallback) is never a candidate, nor is a configured socket of theirs.
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a socket to another uid (CI runs as root)";
  }
  TempDirectory runtime;
  FakeIpcServer ours(runtime.path() + "/sway-ipc.1000.10.sock");
  FakeIpcServer theirs(runtime.path() + "/sway-ipc.1001.99.sock");
  ASSERT_EQ(::chown((runtime.path() + "/sway-ipc.1001.99.sock").c_str(), 65534, 65534), 0);
  EXPECT_EQ(ipcSocketCandidates(IpcServer::Sway, {"", runtime.path()}),
            (std::vector<std::string>{runtime.path() + "/sway-ipc.1000.10.sock"}));
  EXPECT_EQ(ipcSocketCandidates(IpcServer::Sway, {runtime.path() + "/sway-ipc.1001.99.sock", ""}),
            (std::vector<std::string>{runtime.path() + "/sway-ipc.1000.10.sock"}));
}

TEST(UnixSocketTest, ConnectingToNothingOrAnOverlongPathThrows) {
  EXPECT_THROW(UnixSocket::connect("/nonexistent/sway.sock"), std::system_error);
  EXPECT_THROW(UnixSocket::connect("/" + std::string(200, 'x')), std::length_error);
  auto [left, right] = UnixSocket::pairForTest();
  left.sendAll("ping");
  char buffer[8];
  ASSERT_EQ(right.receiveSome(buffer, sizeof buffer), 4u);
  EXPECT_EQ(std::string(buffer, 4), "ping");
  left.close();
  EXPECT_EQ(right.receiveSome(buffer, sizeof buffer), 0u);
}

}  // namespace
}  // namespace antidrift::sway
