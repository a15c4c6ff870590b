/// @file api_server.cpp
/// The accept thread and the connection hand-off of the HTTP server.
///
/// Poco::Net::HTTPServer is a TCPServer whose thread polls the listening socket
/// every 250 ms to look at its stop flag. Here our own thread sleeps in poll(2)
/// on the socket and an eventfd instead; after accept(2) a Poco
/// TCPServerDispatcher hands the socket to HttpApi's peer-checked HTTP
/// connections (Poco's session, request and response objects), with the same
/// params and pool as HTTPServer builds them. Two thin wrappers sit in
/// between: one names each pool thread, one keeps the sockets of the
/// connections being served so stop() can shut them down, which
/// HTTPServer::stopAll(true) does through an event only HTTPServer may raise.

#include "server/api_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <Poco/AutoPtr.h>
#include <Poco/Exception.h>
#include <Poco/Logger.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/StreamSocketImpl.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerDispatcher.h>
#include <Poco/Runnable.h>
#include <Poco/ThreadPool.h>

#include "antidrift/text/duration.h"
#include "antidrift/thread_name.h"
#include "server/http/peer_checked_connections.h"
#include "server/http/responses.h"
#include "server/peer_user_check.h"

namespace antidrift {

namespace {

using Poco::Net::StreamSocket;

/// How long the accept thread pauses after an accept(2) failure that is not
/// about one connection (out of descriptors or memory): the listening socket
/// stays readable, so retrying at once would spin.
constexpr int kAcceptPauseMs = 50;
/// TCPServerParams threadIdleTime: how long the dispatcher's last idle pool
/// thread waits for a connection before it looks again whether to end. Poco's
/// default of 10 s wakes it every 10 s while nothing happens; a day is within
/// the int milliseconds Poco keeps.
constexpr Poco::Timespan::TimeDiff kDispatcherIdleSecs = 24 * 3600;

/// While stopping: how long the SSE streams get to write their goodbye
/// before the connections are shut down.
constexpr std::chrono::milliseconds kStreamsEndGrace{2000};
/// While stopping: how often the dispatcher's threads are woken again until all
/// have ended.
constexpr std::chrono::milliseconds kStopRecheck{10};

Poco::Logger& serverLog() {
  return Poco::Logger::get("antidrift.server");
}

/// Names the calling pool thread "ad-http-N" the first time it works for a
/// server; N counts the pool threads of the process.
void nameHttpThread() {
  static std::atomic<int> counter{0};
  thread_local bool named = false;
  if (!named) {
    named = true;
    setCurrentThreadName("ad-http-" + std::to_string(++counter));
  }
}

/// Milliseconds on the steady clock, never 0 (0 means "no request" below).
std::int64_t steadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
             .count() +
         1;
}

/// The sockets of the connections accepted and not yet ended, so stop() can
/// shut them down, with the Unix user of each (for the per-user cap) and when
/// its current request began (for the request deadline, issue 19 item 1).
/// The accept thread registers each socket here and keeps no other reference
/// to it; the pool thread that serves it removes it when done. So the thread
/// that frees a served socket is the one that served it: Poco counts
/// references in a library ThreadSanitizer does not see, and a free on the
/// accept thread after a pool thread read the socket looked like a race.
///
/// The deadline is kept by reap(), run on its own thread: it sleeps with no
/// timeout while no request is being read, and otherwise until the earliest
/// deadline, when it shuts down the sockets whose request is not read yet.
/// A request's start is an atomic store on the pool thread; only when the
/// reaper sleeps without a timeout does it also take the lock to wake it.
class LiveConnections {
 public:
  /// One registered connection; tells the reaper about its requests.
  class Entry final : public http::RequestWatch {
   public:
    Entry(const StreamSocket& socket, uid_t uid, LiveConnections& owner)
        : socket_(socket), uid_(uid), owner_(owner) {}
    void requestBegan() override {
      startedMs_.store(steadyMs());
      owner_.requestStarted();
    }
    void requestEnded() override { startedMs_.store(0); }
    StreamSocket& socket() { return socket_; }

   private:
    friend class LiveConnections;
    StreamSocket socket_;
    uid_t uid_;
    LiveConnections& owner_;
    std::atomic<std::int64_t> startedMs_{0};  // 0: no request being read
  };
  using Handle = std::list<Entry>::iterator;

  /// `maxPerUid` connections of one user at most; `deadline` for each request.
  LiveConnections(int maxPerUid, std::chrono::milliseconds deadline)
      : maxPerUid_(maxPerUid), deadlineMs_(deadline.count()) {}

  /// Registers `socket` of a peer owned by `uid`; nullopt when that user
  /// holds maxPerUid connections already. After abortAll() it is shut down
  /// at once.
  std::optional<Handle> add(const StreamSocket& socket, uid_t uid) {
    std::lock_guard<std::mutex> lock(mutex_);
    int& count = perUid_[uid];
    if (count >= maxPerUid_) {
      return std::nullopt;
    }
    ++count;
    entries_.emplace_front(socket, uid, *this);
    if (aborting_) {
      shutDown(entries_.front().socket_);
    }
    return entries_.begin();
  }

  void remove(Handle handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    erase(handle);
  }

  /// The registered entry that shares `socket`'s descriptor; null if none.
  Entry* find(const StreamSocket& socket) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& entry : entries_) {
      if (entry.socket_.impl() == socket.impl()) return &entry;
    }
    return nullptr;
  }

  /// Removes the registered entry that shares `socket`'s descriptor, if any.
  void remove(const StreamSocket& socket) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto found = entries_.begin(); found != entries_.end(); ++found) {
      if (found->socket_.impl() == socket.impl()) {
        erase(found);
        return;
      }
    }
  }

  /// Shuts down every registered socket and every one added later: the
  /// handler's next read or write fails and its connection ends.
  void abortAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborting_ = true;
    for (Entry& entry : entries_) {
      shutDown(entry.socket_);
    }
  }

  /// The reaper thread's loop (see the class comment) until stopReaping().
  void reap() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      reaperIdle_.store(true);  // before the scan: see requestStarted()
      const std::int64_t now = steadyMs();
      std::int64_t earliest = 0;
      int cut = 0;
      for (Entry& entry : entries_) {
        const std::int64_t started = entry.startedMs_.load();
        if (started == 0) continue;
        if (now - started >= deadlineMs_) {
          entry.startedMs_.store(0);
          shutDown(entry.socket_);
          ++cut;
        } else if (earliest == 0 || started + deadlineMs_ < earliest) {
          earliest = started + deadlineMs_;
        }
      }
      if (cut > 0) {
        serverLog().notice("closed " + text::countText(cut, "connection") +
                           " whose request was not read within " + std::to_string(deadlineMs_) +
                           " ms (server.request_deadline_s)");
      }
      if (earliest == 0) {
        wake_.wait(lock, [this] { return stopping_ || !reaperIdle_.load(); });
      } else {
        reaperIdle_.store(false);
        wake_.wait_for(lock, std::chrono::milliseconds(earliest - now));
      }
    }
  }

  /// Ends reap().
  void stopReaping() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }

 private:
  /// A request began: wakes the reaper if it sleeps without a timeout.
  void requestStarted() {
    if (reaperIdle_.exchange(false)) {
      std::lock_guard<std::mutex> lock(mutex_);
      wake_.notify_one();
    }
  }

  void erase(Handle handle) {
    auto count = perUid_.find(handle->uid_);
    if (count != perUid_.end() && --count->second <= 0) perUid_.erase(count);
    entries_.erase(handle);
  }

  static void shutDown(StreamSocket& socket) {
    // ::shutdown, not Poco's: the entry stays valid and nothing throws.
    ::shutdown(socket.impl()->sockfd(), SHUT_RDWR);
  }

  const int maxPerUid_;
  const std::int64_t deadlineMs_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::list<Entry> entries_;     // guarded by mutex_
  std::map<uid_t, int> perUid_;  // guarded by mutex_
  bool aborting_ = false;        // guarded by mutex_
  bool stopping_ = false;        // guarded by mutex_
  std::atomic<bool> reaperIdle_{false};
};

/// One connection served by HttpApi's HTTP connection; its socket leaves
/// LiveConnections when it ends.
class TrackedConnection final : public Poco::Net::TCPServerConnection {
 public:
  TrackedConnection(const StreamSocket& socket,
                    std::unique_ptr<Poco::Net::TCPServerConnection> http, LiveConnections& live)
      : TCPServerConnection(socket), http_(std::move(http)), live_(live) {}

  void run() override {
    try {
      static_cast<Poco::Runnable&>(*http_).run();
    } catch (...) {
      live_.remove(socket());
      throw;  // TCPServerConnection::start() reports it, as for HTTPServer
    }
    live_.remove(socket());
  }

 private:
  std::unique_ptr<Poco::Net::TCPServerConnection> http_;
  LiveConnections& live_;
};

/// HttpApi's HTTP connections (server/http/peer_checked_connections.h), watched
/// by their LiveConnections entry, plus the thread name. createConnection()
/// runs on the pool thread that will serve the connection.
class TrackedConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  TrackedConnectionFactory(Poco::SharedPtr<http::PeerCheckedConnectionFactory> http,
                           LiveConnections& live)
      : http_(std::move(http)), live_(live) {}

  Poco::Net::TCPServerConnection* createConnection(const StreamSocket& socket) override {
    nameHttpThread();
    std::unique_ptr<Poco::Net::TCPServerConnection> http(
        http_->createConnection(socket, live_.find(socket)));
    return new TrackedConnection(socket, std::move(http), live_);
  }

 private:
  Poco::SharedPtr<http::PeerCheckedConnectionFactory> http_;
  LiveConnections& live_;
};

/// Answers a connection that is not served with `status` and `message` as
/// JSON, without reading the request: a non-blocking send (it fits in any
/// socket buffer), the write side shut, what has already arrived discarded
/// (so the close sends no reset that could destroy the answer), and the
/// caller closes. Costs no pool thread and never blocks (issue 19 item 1).
void refuseAtOnce(int fd, int status, const std::string& message) {
  const std::string body = http::errorJson(message);
  const std::string reason = status == 403 ? "Forbidden" : "Service Unavailable";
  const std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                             "\r\nContent-Type: " + http::kJsonContentType +
                             "\r\nContent-Length: " + std::to_string(body.size()) +
                             "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n" + body;
  static_cast<void>(::send(fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL));
  ::shutdown(fd, SHUT_WR);
  char discard[4096];
  for (int i = 0; i < 16; ++i) {  // at most 64 KiB, only what is already there
    if (::recv(fd, discard, sizeof discard, MSG_DONTWAIT) <= 0) break;
  }
}

/// Names the idle threads a Poco::ThreadPool starts in its constructor, which
/// Poco 1.11 leaves with the process's name: one task per idle thread names it
/// and waits until all are started, so no thread takes two.
void nameIdleThreads(Poco::ThreadPool& pool) {
  class Namer final : public Poco::Runnable {
   public:
    void run() override {
      nameHttpThread();
      std::unique_lock<std::mutex> lock(mutex_);
      opened_.wait(lock, [this] { return open_; });
    }
    void open() {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        open_ = true;
      }
      opened_.notify_all();
    }

   private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
  };
  Namer namer;
  const int idle = pool.available() - (pool.capacity() - pool.allocated());
  for (int i = 0; i < idle; ++i) {
    pool.start(namer);
  }
  namer.open();
  pool.joinAll();
}

}  // namespace

struct ApiServer::Listener {
  Listener(int threads, const PeerUserCheck& check, int maxPerUid,
           std::chrono::milliseconds deadline)
      : pool("antidrift-http", 2, threads < 2 ? 2 : threads),
        live(maxPerUid, deadline),
        peerCheck(check) {}

  ~Listener() {
    if (wakeFd >= 0) {
      ::close(wakeFd);
    }
  }

  void acceptLoop();
  void acceptOne(Poco::Net::ServerSocket& listening);
  /// Waits kAcceptPauseMs or until stop(); false when stopping.
  bool pause();
  /// Ends the accept and reaper threads and closes the listening sockets.
  void stopAccepting();

  Poco::ThreadPool pool;
  LiveConnections live;
  const PeerUserCheck& peerCheck;
  std::vector<Poco::Net::ServerSocket> sockets;  // the address, and its loopback twin
  Poco::AutoPtr<Poco::Net::TCPServerDispatcher> dispatcher;
  int wakeFd = -1;
  std::thread acceptor;
  std::thread reaper;
  bool acceptFailing = false;  // accept thread only: the last accept failed (logged once)
};

void ApiServer::Listener::acceptLoop() {
  std::vector<pollfd> watched;
  for (Poco::Net::ServerSocket& listening : sockets) {
    watched.push_back({listening.impl()->sockfd(), POLLIN, 0});
  }
  watched.push_back({wakeFd, POLLIN, 0});
  const std::size_t wake = watched.size() - 1;
  while (true) {
    for (pollfd& one : watched) one.revents = 0;
    const int ready = ::poll(watched.data(), watched.size(), -1);  // stop() writes wakeFd
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      serverLog().error(std::string("waiting for connections failed: ") + std::strerror(errno));
      if (!pause()) {
        return;
      }
      continue;
    }
    if (watched[wake].revents != 0) {
      return;
    }
    for (std::size_t i = 0; i < wake; ++i) {
      if ((watched[i].revents & POLLIN) != 0) {
        acceptOne(sockets[i]);
      } else if ((watched[i].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        serverLog().error("the listening socket failed; retrying");
        if (!pause()) {
          return;
        }
      }
    }
  }
}

void ApiServer::Listener::acceptOne(Poco::Net::ServerSocket& listening) {
  // Non-blocking listener: a connection reset between poll and accept gives
  // EAGAIN instead of a blocked thread. The accepted socket is blocking (Linux
  // accept4 does not inherit O_NONBLOCK), as Poco's sessions expect.
  const int client = ::accept4(listening.impl()->sockfd(), nullptr, nullptr, SOCK_CLOEXEC);
  if (client < 0) {
    const int error = errno;
    switch (error) {
      case EAGAIN:
#if EWOULDBLOCK != EAGAIN
      case EWOULDBLOCK:
#endif
      case EINTR:
      case ECONNABORTED:
      case EPROTO:
        return;  // about that one connection: the next one is fine
      default:
        break;
    }
    if (!acceptFailing) {  // e.g. EMFILE while too many connections are open
      serverLog().error(std::string("accepting a connection failed: ") + std::strerror(error));
    }
    acceptFailing = true;
    pause();
    return;
  }
  acceptFailing = false;
  try {
    const StreamSocket socket(new Poco::Net::StreamSocketImpl(client));  // closes `client`
    // Whose connection this is, here in the accept thread before anything is
    // read (issue 19 item 1): another user costs no pool thread and no read.
    std::optional<uid_t> peer;
    try {
      peer = peerCheck.peerOwner(socket.peerAddress(), socket.address());
    } catch (const Poco::Exception&) {
      // Closed before it could be checked: refused below.
    }
    if (!peer || *peer != peerCheck.owner()) {
      refuseAtOnce(client, 403,
                   peer ? "only the user running antidriftd may use it"
                        : "only the user running antidriftd may use it, and the user of this "
                          "connection could not be determined");
      return;
    }
    // Registered, and held by this thread through LiveConnections only (see there).
    const std::optional<LiveConnections::Handle> connection = live.add(socket, *peer);
    if (!connection) {
      refuseAtOnce(client, 503,
                   "too many connections from this user at once "
                   "(server.max_connections_per_uid); close some and retry");
      return;
    }
    (*connection)->socket().setNoDelay(true);  // as TCPServer does
    const int refusedBefore = dispatcher->refusedConnections();
    dispatcher->enqueue((*connection)->socket());  // queued, or refused when the queue is full
    if (dispatcher->refusedConnections() != refusedBefore) {
      live.remove(*connection);  // no pool thread has it: closed at once
    }
  } catch (const Poco::Exception& failure) {
    serverLog().warning("dropping a new connection: " + failure.displayText());
  }
}

bool ApiServer::Listener::pause() {
  pollfd wake{wakeFd, POLLIN, 0};
  return ::poll(&wake, 1, kAcceptPauseMs) == 0;
}

void ApiServer::Listener::stopAccepting() {
  if (acceptor.joinable()) {
    const std::uint64_t one = 1;
    // A full counter (impossible here) would still leave the descriptor readable.
    static_cast<void>(::write(wakeFd, &one, sizeof one));
    acceptor.join();
  }
  if (reaper.joinable()) {
    live.stopReaping();
    reaper.join();
  }
  for (Poco::Net::ServerSocket& listening : sockets) {
    listening.close();
  }
}

namespace {

/// The other family's loopback address of `address` ("::1" for 127.0.0.1
/// and back); "" for any other address.
std::string loopbackTwin(const std::string& address) {
  Poco::Net::IPAddress parsed;
  if (!Poco::Net::IPAddress::tryParse(address, parsed) || !parsed.isLoopback()) return "";
  return parsed.family() == Poco::Net::IPAddress::IPv4 ? "::1" : "127.0.0.1";
}

/// "127.0.0.1:7717" or "[::1]:7717".
std::string hostPort(const Poco::Net::SocketAddress& address) {
  const std::string host = address.host().toString();
  return (address.family() == Poco::Net::SocketAddress::IPv6 ? "[" + host + "]" : host) + ":" +
         std::to_string(address.port());
}

/// Who holds `address` when it cannot be bound, for the error message.
std::string heldBy(const Poco::Net::SocketAddress& address) {
  const std::optional<uid_t> holder = PeerUserCheck::listenerOwner(address);
  if (!holder) return "another process";
  if (*holder == ::geteuid())
    return "another process of this user (uid " + std::to_string(*holder) +
           ", another antidriftd?)";
  return "another user (uid " + std::to_string(*holder) + ")";
}

/// Binds `socket` to `address` (SO_REUSEADDR, never SO_REUSEPORT; IPv6
/// only for an IPv6 address) and listens, non-blocking and close-on-exec.
void bindAndListen(Poco::Net::ServerSocket& socket, const Poco::Net::SocketAddress& address,
                   int queue) {
  if (address.family() == Poco::Net::SocketAddress::IPv6) {
    socket.bind6(address, true, false, true);
  } else {
    socket.bind(address, true, false);
  }
  socket.listen(queue);
  socket.setBlocking(false);
  const int descriptorFlags = ::fcntl(socket.impl()->sockfd(), F_GETFD);
  if (descriptorFlags >= 0) {
    ::fcntl(socket.impl()->sockfd(), F_SETFD, descriptorFlags | FD_CLOEXEC);
  }
}

/// How many times an ephemeral port is tried again when its twin is taken.
constexpr int kEphemeralTries = 8;

}  // namespace

ApiServer::ApiServer(HttpApi& api, SseBroadcaster& broadcaster, ApiServerOptions options)
    : api_(api),
      broadcaster_(broadcaster),
      options_(std::move(options)),
      listener_(std::make_unique<Listener>(
          options_.threads, api.peerCheck(),
          options_.maxConnectionsPerUid > 0 ? options_.maxConnectionsPerUid : 2 * options_.threads,
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.requestDeadline))) {}

ApiServer::~ApiServer() {
  stop();
}

void ApiServer::bindSockets() {
  Listener& listener = *listener_;
  // The kernel's backlog is as long as it allows (net.core.somaxconn): the
  // accept thread empties it at once — another user's connection is refused
  // there and then, and beyond the dispatcher's queue (one waiting
  // connection per pool thread) a connection is closed at once, so a flood
  // is refused rather than queued for minutes. A short backlog would make a
  // burst of connections wait for the client's SYN retransmission (1 s and
  // more) instead: the owner's among them (issue 19 item 1).
  const int queue = SOMAXCONN;
  const std::string twin = options_.bothLoopbacks ? loopbackTwin(options_.address) : "";
  for (int attempt = 1;; ++attempt) {
    listener.sockets.clear();
    listener.sockets.emplace_back();
    const Poco::Net::SocketAddress address(options_.address, options_.port);
    try {
      bindAndListen(listener.sockets[0], address, queue);
    } catch (const Poco::Exception& error) {
      if (error.code() == EADDRINUSE) {
        throw Poco::Net::NetException(hostPort(address) + " is held by " + heldBy(address));
      }
      throw;
    }
    boundPort_ = listener.sockets[0].address().port();
    listening_ = {hostPort(listener.sockets[0].address())};
    if (twin.empty()) return;
    // The other loopback family on the same port, so that no one else can
    // take it and catch the clients of "localhost" (issue 19 item 2).
    const Poco::Net::SocketAddress twinAddress(twin, boundPort_);
    listener.sockets.emplace_back();
    try {
      bindAndListen(listener.sockets[1], twinAddress, queue);
      listening_.push_back(hostPort(twinAddress));
      return;
    } catch (const Poco::Exception& error) {
      listener.sockets.pop_back();
      if (error.code() == EADDRINUSE) {
        if (options_.port == 0 && attempt < kEphemeralTries) continue;  // another port
        throw Poco::Net::NetException(
            hostPort(twinAddress) + " is held by " + heldBy(twinAddress) +
            "; refusing to start, since clients that say localhost would reach it");
      }
      // No IPv6 (or IPv4) loopback on this machine: no one can take it either.
      twinUnavailable_ = hostPort(twinAddress) + " cannot be bound (" + error.displayText() +
                         "); listening on " + listening_[0] + " only";
      return;
    }
  }
}

void ApiServer::start() {
  Listener& listener = *listener_;
  nameIdleThreads(listener.pool);
  bindSockets();
  if (!twinUnavailable_.empty()) {
    serverLog().warning(twinUnavailable_);
  }
  // One waiting connection per pool thread: a local UI never needs more.
  const int queue = listener.pool.capacity();

  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(listener.pool.capacity());
  params->setMaxQueued(queue);
  params->setThreadIdleTime(Poco::Timespan(kDispatcherIdleSecs, 0));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(options_.keepAliveTimeout.count(), 0));
  // The socket receive timeout (HTTPServerSession applies it): an idle or
  // slow client holds a pool thread at most this long per read; the request
  // deadline (LiveConnections) bounds the whole request.
  params->setTimeout(Poco::Timespan(options_.requestTimeout.count(), 0));
  params->setServerName("antidriftd");

  listener.dispatcher = new Poco::Net::TCPServerDispatcher(
      new TrackedConnectionFactory(api_.createConnectionFactory(params), listener.live),
      listener.pool, params);
  listener.wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (listener.wakeFd < 0) {
    throw Poco::SystemException("cannot create an eventfd for the accept thread");
  }
  try {
    listener.reaper = std::thread([&listener] { listener.live.reap(); });
    setThreadName(listener.reaper, "ad-http-reaper");
    listener.acceptor = std::thread([&listener] { listener.acceptLoop(); });
    setThreadName(listener.acceptor, "ad-http-accept");  // named before start() returns
  } catch (const std::system_error& failure) {
    throw Poco::SystemException(std::string("cannot start the accept thread: ") + failure.what());
  }
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
  Listener& listener = *listener_;
  listener.stopAccepting();
  // Each stream writes `event: bye` and returns; its connection is shut down
  // only after that (a send timeout bounds a write to a client that stopped
  // reading, and a stuck one does not hold the shutdown longer than this).
  static_cast<void>(broadcaster_.waitForStreamsToEnd(kStreamsEndGrace));
  if (listener.dispatcher) {
    listener.dispatcher->stop();  // drops the queued connections, ends idle dispatchers
  }
  listener.live.abortAll();
  // TCPServerDispatcher::stop() wakes the dispatcher threads waiting for a
  // connection, but one that was between two connections starts waiting after
  // it, for up to threadIdleTime (a day here): wake them again until every
  // pool thread is back. Only the dispatcher uses this pool.
  while (listener.dispatcher && listener.pool.used() > 0) {
    std::this_thread::sleep_for(kStopRecheck);
    listener.dispatcher->stop();
  }
  listener.pool.joinAll();
}

}  // namespace antidrift
