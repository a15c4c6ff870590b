// The CLI's client bounds what it reads from whatever answers on the port
// (issue 19 item 7, review L7): an impostor cannot make it buffer without end.
#include "cli/daemon_client.h"

#include <atomic>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

namespace antidrift::cli {
namespace {

using ::testing::HasSubstr;

/// A real listener on an ephemeral loopback port that answers one request
/// with `head` and then streams `filler` until the client goes away.
class EndlessServer {
 public:
  EndlessServer(std::string head, char filler)
      : socket_(Poco::Net::SocketAddress("127.0.0.1", 0)), head_(std::move(head)) {
    thread_ = std::thread([this, filler] {
      try {
        Poco::Net::StreamSocket client = socket_.acceptConnection();
        char request[4096];
        client.receiveBytes(request, sizeof request);
        client.sendBytes(head_.data(), static_cast<int>(head_.size()));
        const std::string block(64 * 1024, filler);
        while (!stop_) {
          if (client.sendBytes(block.data(), static_cast<int>(block.size())) <= 0) break;
          sent_ += block.size();
        }
      } catch (...) {
        // The client closed the connection: done.
      }
    });
  }
  ~EndlessServer() {
    stop_ = true;
    socket_.close();
    thread_.join();
  }
  std::uint16_t port() const { return socket_.address().port(); }
  std::size_t sent() const { return sent_; }

 private:
  Poco::Net::ServerSocket socket_;
  std::string head_;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> sent_{0};
  std::thread thread_;
};

TEST(DaemonClient, AnOversizedAnswerIsRefusedNotBuffered) {
  EndlessServer server(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
      "Content-Length: 104857600\r\n\r\n",
      'x');
  DaemonClient client(Endpoint{"127.0.0.1", server.port()}, std::chrono::seconds(20));
  try {
    client.get("/state");
    FAIL() << "a 100 MB answer was read";
  } catch (const DaemonUnreachable& error) {
    EXPECT_THAT(error.what(), HasSubstr("refused"));
  }
}

TEST(DaemonClient, AnEndlessEventLineIsRefused) {
  EndlessServer server("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ", 'y');
  DaemonClient client(Endpoint{"127.0.0.1", server.port()}, std::chrono::seconds(20));
  try {
    client.streamEvents([](const ServerEvent&) { return true; }, std::chrono::seconds(20));
    FAIL() << "an endless event line was read";
  } catch (const DaemonUnreachable& error) {
    EXPECT_THAT(error.what(), HasSubstr("refused"));
  }
}

}  // namespace
}  // namespace antidrift::cli
