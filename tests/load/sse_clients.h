/// @file sse_clients.h
/// The event-stream clients of the load tool (issue 9 item 6): a reading
/// client on its own thread that keeps the newest state version it saw, and
/// a raw socket that asks for /events and then stalls or is killed without
/// reading (docs/DESIGN.md §10 "SSE").
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPResponse.h>

namespace antidrift::load {

/// A well-behaved /events client (like an open AntiDrift tab): reads every
/// event on its own thread and remembers the `id:` (State version) of the
/// newest. Not copyable; close() and the destructor join the thread. The
/// query methods may be called from any thread.
class SseReader {
 public:
  /// Called on the reader's thread as each `event: state` ends (its blank
  /// line is read), with the event's id and its `data:` text; the benchmarks
  /// time the arrival there. It must not block.
  using StateListener = std::function<void(std::uint64_t version, const std::string& data)>;

  /// Connects to 127.0.0.1:`port` and sends GET /events; status() is the
  /// HTTP status (0 when the connection failed, see error()). `listener`,
  /// when given, sees every state event.
  explicit SseReader(std::uint16_t port, StateListener listener = {});
  ~SseReader();  ///< close()
  SseReader(const SseReader&) = delete;
  SseReader& operator=(const SseReader&) = delete;

  /// HTTP status of the /events answer; 0 when none came.
  int status() const { return status_; }
  /// Why the connection failed or the stream ended early; "" when it did not.
  std::string error() const;
  /// The version of the newest `event: state` received; 0 before the first.
  std::uint64_t lastVersion() const { return lastVersion_.load(); }
  /// How many `event: state` events arrived.
  std::uint64_t eventCount() const { return eventCount_.load(); }
  /// True once the stream ended (server closed it, or it broke).
  bool ended() const { return ended_.load(); }
  /// Waits until lastVersion() == `version`, at most `timeout`; true if so.
  bool waitForVersion(std::uint64_t version, std::chrono::milliseconds timeout) const;
  /// Goes away like a closed tab: aborts the connection, joins the reader.
  void close();

 private:
  void read(std::istream& in);

  StateListener listener_;
  Poco::Net::HTTPClientSession session_;
  Poco::Net::HTTPResponse response_;
  int status_ = 0;
  std::thread reader_;
  bool closed_ = false;
  std::atomic<std::uint64_t> lastVersion_{0};
  std::atomic<std::uint64_t> eventCount_{0};
  std::atomic<bool> ended_{false};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::string error_;
};

/// Whether RawEventSocket::close() resets the connection.
enum class CloseMode {
  Reset,    ///< SO_LINGER 0: the kernel sends RST, like a killed process
  Orderly,  ///< plain close(2) (still RST when unread data is pending)
};

/// A bare TCP socket that sends GET /events and then reads only when told:
/// a client that never reads (with a tiny receive buffer) or one killed
/// mid-stream. Not copyable; the destructor closes the socket. One thread.
class RawEventSocket {
 public:
  /// Opens a socket with SO_RCVBUF `receiveBufferBytes` (0: the system
  /// default; the kernel doubles the value and keeps a minimum), connects to
  /// 127.0.0.1:`port` and sends the request. Throws std::runtime_error on a
  /// socket error.
  RawEventSocket(std::uint16_t port, int receiveBufferBytes);
  ~RawEventSocket();
  RawEventSocket(const RawEventSocket&) = delete;
  RawEventSocket& operator=(const RawEventSocket&) = delete;

  /// Waits at most `timeout` until the answer's first bytes can be read and
  /// reads up to 64 bytes of them; the HTTP status (200, 503, …) or 0 when
  /// nothing (or no status line) came.
  int readStatus(std::chrono::milliseconds timeout);
  /// Reads everything until the server closes the connection or `timeout`
  /// passes; true if the server closed it (EOF or reset).
  bool drainUntilClosed(std::chrono::milliseconds timeout);
  /// Closes the socket without reading what is pending.
  void close(CloseMode mode);
  /// The socket's own port on 127.0.0.1.
  std::uint16_t localPort() const;

 private:
  int fd_ = -1;
};

}  // namespace antidrift::load
