#include "server/sse_broadcaster.h"
#include "server/state_delivery.h"

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <sstream>
#include <streambuf>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

namespace antidrift {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kDeadline = 5s;

/// A stream buffer that records what is written and lets a test wait for it.
/// `failAfterFlushes` > 0 makes the n-th sync fail, as a closed socket does.
class RecordingBuffer : public std::streambuf {
 public:
  explicit RecordingBuffer(int failAfterFlushes = 0) : failAfterFlushes_(failAfterFlushes) {}

  std::string text() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return text_;
  }

  /// Waits until the recorded text contains `needle`; false at the deadline.
  bool waitFor(const std::string& needle) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, kDeadline,
                             [&] { return text_.find(needle) != std::string::npos; });
  }

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) {
      std::lock_guard<std::mutex> lock(mutex_);
      text_.push_back(static_cast<char>(c));
    }
    return c;
  }
  std::streamsize xsputn(const char* data, std::streamsize count) override {
    std::lock_guard<std::mutex> lock(mutex_);
    text_.append(data, static_cast<std::size_t>(count));
    return count;
  }
  int sync() override {
    bool fail = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++flushes_;
      fail = failAfterFlushes_ > 0 && flushes_ >= failAfterFlushes_;
    }
    changed_.notify_all();
    return fail ? -1 : 0;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string text_;
  int flushes_ = 0;
  int failAfterFlushes_;
};

std::string event(std::uint64_t version, const std::string& json) {
  return "id: " + std::to_string(version) + "\nevent: state\ndata: " + json + "\n\n";
}

TEST(SseBroadcaster, SendsRetryThenTheLatestStateOnConnectAndEachChange) {
  SseBroadcaster broadcaster(4, 1h);
  broadcaster.publish(1, R"({"runtime":"locked","version":1})");
  auto subscription = broadcaster.subscribe();
  ASSERT_TRUE(subscription);
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });

  ASSERT_TRUE(buffer.waitFor(event(1, R"({"runtime":"locked","version":1})")));
  broadcaster.publish(2, R"({"runtime":"planning","version":2})");
  ASSERT_TRUE(buffer.waitFor(event(2, R"({"runtime":"planning","version":2})")));
  broadcaster.stop();
  streamer.join();

  EXPECT_EQ(buffer.text(), "retry: 2000\n\n" + event(1, R"({"runtime":"locked","version":1})") +
                               event(2, R"({"runtime":"planning","version":2})") +
                               "event: bye\ndata: {}\n\n");
}

TEST(SseBroadcaster, ALazyStateIsRenderedOnceForEveryStreamAndAReplacedOneNever) {
  SseBroadcaster broadcaster(4, 1h);
  std::atomic<int> renders2{0};
  std::atomic<int> renders3{0};
  // Version 2 is replaced by 3 before any stream exists: never rendered.
  broadcaster.publish(2, std::function<std::string()>([&] {
                        ++renders2;
                        return std::string(R"({"version":2})");
                      }));
  broadcaster.publish(3, std::function<std::string()>([&] {
                        ++renders3;
                        return std::string(R"({"version":3})");
                      }));
  auto first = broadcaster.subscribe();
  auto second = broadcaster.subscribe();
  ASSERT_TRUE(first && second);
  RecordingBuffer firstBuffer;
  RecordingBuffer secondBuffer;
  std::ostream firstOut(&firstBuffer);
  std::ostream secondOut(&secondBuffer);
  std::thread firstStreamer([&] { broadcaster.stream(*first, firstOut); });
  std::thread secondStreamer([&] { broadcaster.stream(*second, secondOut); });
  ASSERT_TRUE(firstBuffer.waitFor(event(3, R"({"version":3})")));
  ASSERT_TRUE(secondBuffer.waitFor(event(3, R"({"version":3})")));
  broadcaster.stop();
  firstStreamer.join();
  secondStreamer.join();
  EXPECT_EQ(renders2.load(), 0);
  EXPECT_EQ(renders3.load(), 1);
}

TEST(SseBroadcaster, APrimedFirstEventReplacesTheStaleBroadcast) {
  SseBroadcaster broadcaster(4, 1h);
  broadcaster.publish(3, R"({"now":1000,"version":3})");
  auto subscription = broadcaster.subscribe();
  ASSERT_TRUE(subscription);
  broadcaster.primeFirstEvent(*subscription, 3, R"({"now":61000,"version":3})");
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  ASSERT_TRUE(buffer.waitFor(event(3, R"({"now":61000,"version":3})")));
  broadcaster.stop();
  streamer.join();
  EXPECT_THAT(buffer.text(), Not(HasSubstr(R"("now":1000)")));
}

TEST(SseBroadcaster, APrimedFirstEventNeverHidesANewerPublish) {
  SseBroadcaster broadcaster(4, 1h);
  broadcaster.publish(3, R"({"version":3})");
  auto subscription = broadcaster.subscribe();
  // A change lands between subscribe() and the caller taking its state.
  broadcaster.publish(4, R"({"version":4})");
  broadcaster.primeFirstEvent(*subscription, 3, R"({"fresh":true,"version":3})");
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  ASSERT_TRUE(buffer.waitFor(event(4, R"({"version":4})")));
  broadcaster.stop();
  streamer.join();
  EXPECT_THAT(buffer.text(), Not(HasSubstr("fresh")));
}

TEST(SseBroadcaster, ASlowClientOnlyGetsTheNewestState) {
  SseBroadcaster broadcaster(4, 1h);
  auto subscription = broadcaster.subscribe();
  for (std::uint64_t version = 1; version <= 50; ++version) {
    broadcaster.publish(version, "{\"version\":" + std::to_string(version) + "}");
  }
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  ASSERT_TRUE(buffer.waitFor(event(50, R"({"version":50})")));
  broadcaster.stop();
  streamer.join();
  EXPECT_THAT(buffer.text(), Not(HasSubstr("id: 49")));
  EXPECT_THAT(buffer.text(), Not(HasSubstr("id: 1\n")));
}

// Racing listeners are put in order by the one delivery point the daemon
// publishes through (StateDelivery, issue 15 item 3), not by the broadcaster.
TEST(SseBroadcaster, IgnoresOlderVersionsFromRacingListeners) {
  SseBroadcaster broadcaster(4, 1h);
  StateDelivery delivery;
  delivery.addSink("sse", [&broadcaster](const State& state) {
    broadcaster.publish(state.version, "{\"version\":" + std::to_string(state.version) + "}");
  });
  State five;
  five.version = 5;
  delivery.deliver(five);
  State four;
  four.version = 4;
  delivery.deliver(four);
  auto subscription = broadcaster.subscribe();
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  ASSERT_TRUE(buffer.waitFor(event(5, R"({"version":5})")));
  broadcaster.stop();
  streamer.join();
  EXPECT_THAT(buffer.text(), Not(HasSubstr("id: 4")));
}

TEST(SseBroadcaster, WritesAKeepAliveCommentWhenIdle) {
  SseBroadcaster broadcaster(4, 10ms);
  auto subscription = broadcaster.subscribe();
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  EXPECT_TRUE(buffer.waitFor(": keep-alive\n\n"));
  broadcaster.stop();
  streamer.join();
}

TEST(SseBroadcaster, ReturnsWhenTheClientIsGoneAndFreesTheSlot) {
  SseBroadcaster broadcaster(1, 10ms);
  {
    auto subscription = broadcaster.subscribe();
    ASSERT_TRUE(subscription);
    EXPECT_FALSE(broadcaster.subscribe()) << "the cap is 1";
    RecordingBuffer buffer(/*failAfterFlushes=*/2);
    std::ostream out(&buffer);
    broadcaster.stream(*subscription, out);  // returns by itself after the failed flush
    EXPECT_FALSE(out.good());
  }
  EXPECT_EQ(broadcaster.clientCount(), 0u);
  EXPECT_TRUE(broadcaster.subscribe());
}

TEST(SseBroadcaster, ANoticeReachesEveryOpenStreamOnceAndTheStreamGoesOn) {
  // POST /token/rotate tells the open pages (issue 19 item 7).
  SseBroadcaster broadcaster(4, 1h);
  broadcaster.publish(1, R"({"runtime":"locked","version":1})");
  auto open = broadcaster.subscribe();
  RecordingBuffer openBuffer;
  std::ostream openOut(&openBuffer);
  std::thread openStream([&] { broadcaster.stream(*open, openOut); });
  ASSERT_TRUE(openBuffer.waitFor(event(1, R"({"runtime":"locked","version":1})")));

  const std::string notice = "event: token\ndata: {\"rotated\":true}\n\n";
  broadcaster.notifyAll("token", R"({"rotated":true})");
  ASSERT_TRUE(openBuffer.waitFor(notice));
  broadcaster.publish(2, R"({"runtime":"planning","version":2})");
  ASSERT_TRUE(openBuffer.waitFor(event(2, R"({"runtime":"planning","version":2})")));

  auto later = broadcaster.subscribe();
  RecordingBuffer laterBuffer;
  std::ostream laterOut(&laterBuffer);
  std::thread laterStream([&] { broadcaster.stream(*later, laterOut); });
  ASSERT_TRUE(laterBuffer.waitFor(event(2, R"({"runtime":"planning","version":2})")));
  broadcaster.stop();
  openStream.join();
  laterStream.join();

  EXPECT_EQ(openBuffer.text(), "retry: 2000\n\n" + event(1, R"({"runtime":"locked","version":1})") +
                                   notice + event(2, R"({"runtime":"planning","version":2})") +
                                   "event: bye\ndata: {}\n\n");
  EXPECT_THAT(laterBuffer.text(), Not(HasSubstr("event: token")));
}

TEST(SseBroadcaster, StopRefusesNewClientsAndEndsStreams) {
  SseBroadcaster broadcaster(4, 1h);
  auto first = broadcaster.subscribe();
  auto second = broadcaster.subscribe();
  RecordingBuffer bufferA;
  RecordingBuffer bufferB;
  std::ostream outA(&bufferA);
  std::ostream outB(&bufferB);
  std::thread streamA([&] { broadcaster.stream(*first, outA); });
  std::thread streamB([&] { broadcaster.stream(*second, outB); });
  ASSERT_TRUE(bufferA.waitFor("retry: 2000"));
  ASSERT_TRUE(bufferB.waitFor("retry: 2000"));
  broadcaster.stop();
  streamA.join();
  streamB.join();
  EXPECT_THAT(bufferA.text(), HasSubstr("event: bye"));
  EXPECT_THAT(bufferB.text(), HasSubstr("event: bye"));
  EXPECT_FALSE(broadcaster.subscribe());
}

TEST(SseBroadcaster, WaitForClientCountSeesSlotsFreed) {
  SseBroadcaster broadcaster(2, 1h);
  auto subscription = broadcaster.subscribe();
  EXPECT_EQ(broadcaster.clientCount(), 1u);
  std::thread closer([&] { subscription.reset(); });
  EXPECT_TRUE(broadcaster.waitForClientCountForTest(0, kDeadline));
  closer.join();
}

}  // namespace
}  // namespace antidrift

namespace antidrift {
namespace {

TEST(SseBroadcaster, AnIdleStreamReturnsSoonAfterItsPeerHasGoneAndFreesTheSlot) {
  // The keep-alive is an hour away: only the probe can notice the hangup.
  SseBroadcaster broadcaster(1, 1h, 5ms);
  auto subscription = broadcaster.subscribe();
  ASSERT_TRUE(subscription);
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::atomic<bool> gone{false};
  std::promise<void> returned;
  std::thread streamer([&] {
    broadcaster.stream(*subscription, out, [&] { return gone.load(); });
    subscription.reset();
    returned.set_value();
  });
  ASSERT_TRUE(buffer.waitFor("retry: 2000"));
  gone = true;
  const bool ended = returned.get_future().wait_for(kDeadline) == std::future_status::ready;
  if (!ended) {
    broadcaster.stop();  // so the thread can be joined
  }
  streamer.join();
  EXPECT_TRUE(ended) << "the stream did not notice that its peer had gone";
  EXPECT_EQ(broadcaster.clientCount(), 0u);
  EXPECT_THAT(buffer.text(), Not(HasSubstr("keep-alive")));
}

TEST(SseBroadcaster, APeerProbeThatSaysPresentChangesNeitherEventsNorKeepAlives) {
  SseBroadcaster broadcaster(1, 20ms, 5ms);
  broadcaster.publish(1, "{\"v\":1}");
  auto subscription = broadcaster.subscribe();
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::atomic<int> asked{0};
  std::thread streamer([&] {
    broadcaster.stream(*subscription, out, [&] {
      ++asked;
      return false;
    });
  });
  EXPECT_TRUE(buffer.waitFor(event(1, "{\"v\":1}")));
  EXPECT_TRUE(buffer.waitFor(": keep-alive\n\n"));
  broadcaster.publish(2, "{\"v\":2}");
  EXPECT_TRUE(buffer.waitFor(event(2, "{\"v\":2}")));
  broadcaster.stop();
  streamer.join();
  EXPECT_GT(asked.load(), 0);
  EXPECT_THAT(buffer.text(), HasSubstr("event: bye"));
}

/// A connected TCP pair on loopback: `server` is the daemon's end whose
/// descriptor a stream watches, `client` the browser's.
struct TcpPair {
  TcpPair() : listener(Poco::Net::SocketAddress("127.0.0.1", 0)) {
    client.connect(Poco::Net::SocketAddress("127.0.0.1", listener.address().port()));
    server = listener.acceptConnection();
  }
  int serverFd() const { return server.impl()->sockfd(); }
  Poco::Net::ServerSocket listener;
  Poco::Net::StreamSocket client;
  Poco::Net::StreamSocket server;
};

TEST(SseBroadcaster, AStreamOnASocketEndsAtOnceWhenItsClientCloses) {
  // No probe and a keep-alive an hour away: only the socket can tell.
  SseBroadcaster broadcaster(1, 1h);
  TcpPair pair;
  auto subscription = broadcaster.subscribe(pair.serverFd());
  ASSERT_TRUE(subscription);
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::promise<void> returned;
  std::thread streamer([&] {
    broadcaster.stream(*subscription, out);
    subscription.reset();
    returned.set_value();
  });
  broadcaster.publish(1, "{\"v\":1}");
  ASSERT_TRUE(buffer.waitFor(event(1, "{\"v\":1}")));
  pair.client.close();
  const bool ended = returned.get_future().wait_for(kDeadline) == std::future_status::ready;
  if (!ended) broadcaster.stop();
  streamer.join();
  EXPECT_TRUE(ended) << "the stream did not notice its client closing";
  EXPECT_EQ(broadcaster.clientCount(), 0u);
}

TEST(SseBroadcaster, ASubscribeAtTheCapEvictsAStreamWhoseClientHasGone) {
  SseBroadcaster broadcaster(1, 1h);
  TcpPair gone;
  auto old = broadcaster.subscribe(gone.serverFd());
  ASSERT_TRUE(old);
  TcpPair alive;
  EXPECT_FALSE(broadcaster.subscribe(alive.serverFd())) << "the old client is still there";
  gone.client.close();
  // The old stream has not noticed (its thread is not even running): the
  // new subscribe evicts it instead of answering 503.
  auto fresh = broadcaster.subscribe(alive.serverFd());
  ASSERT_TRUE(fresh);
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  broadcaster.stream(*old, out);  // returns at once: it was evicted
  EXPECT_THAT(buffer.text(), Not(HasSubstr("event: bye")));
  old.reset();
  EXPECT_EQ(broadcaster.clientCount(), 1u);
  TcpPair third;
  EXPECT_FALSE(broadcaster.subscribe(third.serverFd())) << "a live stream is never evicted";
}

TEST(SseBroadcaster, ABurstOfChangesIsCoalescedAndEndsOnTheNewest) {
  SseBroadcaster broadcaster(1, 1h);
  TcpPair pair;
  auto subscription = broadcaster.subscribe(pair.serverFd());
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  for (std::uint64_t version = 1; version <= 1000; ++version) {
    broadcaster.publish(version, "{\"v\":" + std::to_string(version) + "}");
  }
  EXPECT_TRUE(buffer.waitFor(event(1000, "{\"v\":1000}")));
  broadcaster.stop();
  streamer.join();
  std::size_t events = 0;
  const std::string text = buffer.text();
  for (std::size_t at = text.find("event: state"); at != std::string::npos;
       at = text.find("event: state", at + 1)) {
    ++events;
  }
  EXPECT_LT(events, 1000u) << "one write per change: nothing was coalesced";
  EXPECT_THAT(text, HasSubstr("event: bye"));
}

TEST(SseBroadcaster, StopEndsAStreamSleepingOnItsSocket) {
  SseBroadcaster broadcaster(2, 1h);
  TcpPair pair;
  auto subscription = broadcaster.subscribe(pair.serverFd());
  RecordingBuffer buffer;
  std::ostream out(&buffer);
  std::thread streamer([&] { broadcaster.stream(*subscription, out); });
  ASSERT_TRUE(buffer.waitFor("retry: 2000"));
  broadcaster.stop();
  EXPECT_TRUE(buffer.waitFor("event: bye"));
  streamer.join();
}

}  // namespace
}  // namespace antidrift
