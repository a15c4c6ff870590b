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
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include <Poco/AutoPtr.h>
#include <Poco/Exception.h>
#include <Poco/Logger.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/StreamSocketImpl.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>
#include <Poco/Net/TCPServerDispatcher.h>
#include <Poco/Runnable.h>
#include <Poco/ThreadPool.h>

#include "antidrift/thread_name.h"

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

/// The sockets of the connections accepted and not yet ended, so stop() can
/// shut them down. The accept thread registers each socket here and keeps no
/// other reference to it; the pool thread that serves it removes it when done.
/// So the thread that frees a served socket is the one that served it: Poco
/// counts references in a library ThreadSanitizer does not see, and a free on
/// the accept thread after a pool thread read the socket looked like a race.
class LiveConnections {
 public:
  using Handle = std::list<StreamSocket>::iterator;

  /// Registers `socket`; after abortAll() it is shut down at once.
  Handle add(const StreamSocket& socket) {
    std::lock_guard<std::mutex> lock(mutex_);
    sockets_.push_front(socket);
    if (aborting_) {
      shutDown(sockets_.front());
    }
    return sockets_.begin();
  }

  void remove(Handle handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    sockets_.erase(handle);
  }

  /// Removes the registered socket that shares `socket`'s descriptor, if any.
  void remove(const StreamSocket& socket) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = std::find_if(sockets_.begin(), sockets_.end(), [&](const StreamSocket& s) {
      return s.impl() == socket.impl();
    });
    if (found != sockets_.end()) sockets_.erase(found);
  }

  /// Shuts down every registered socket and every one added later: the
  /// handler's next read or write fails and its connection ends.
  void abortAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    aborting_ = true;
    for (StreamSocket& socket : sockets_) {
      shutDown(socket);
    }
  }

 private:
  static void shutDown(StreamSocket& socket) {
    try {
      socket.shutdown();
    } catch (const Poco::Exception&) {
      // Already closed by the peer: nothing to end.
    }
  }

  std::mutex mutex_;
  std::list<StreamSocket> sockets_;  // guarded by mutex_
  bool aborting_ = false;            // guarded by mutex_
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

/// HttpApi's peer-checked HTTP connections (server/http/peer_checked_connections.h),
/// plus the thread name and the registration. createConnection() runs on the pool
/// thread that will serve the connection.
class TrackedConnectionFactory final : public Poco::Net::TCPServerConnectionFactory {
 public:
  TrackedConnectionFactory(Poco::Net::TCPServerConnectionFactory::Ptr http, LiveConnections& live)
      : http_(std::move(http)), live_(live) {}

  Poco::Net::TCPServerConnection* createConnection(const StreamSocket& socket) override {
    nameHttpThread();
    std::unique_ptr<Poco::Net::TCPServerConnection> http(http_->createConnection(socket));
    return new TrackedConnection(socket, std::move(http), live_);
  }

 private:
  Poco::Net::TCPServerConnectionFactory::Ptr http_;
  LiveConnections& live_;
};

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
  explicit Listener(int threads) : pool("antidrift-http", 2, threads < 2 ? 2 : threads) {}

  ~Listener() {
    if (wakeFd >= 0) {
      ::close(wakeFd);
    }
  }

  void acceptLoop();
  void acceptOne();
  /// Waits kAcceptPauseMs or until stop(); false when stopping.
  bool pause();
  /// Ends the accept thread and closes the listening socket.
  void stopAccepting();

  Poco::ThreadPool pool;
  LiveConnections live;
  Poco::Net::ServerSocket socket;
  Poco::AutoPtr<Poco::Net::TCPServerDispatcher> dispatcher;
  int wakeFd = -1;
  std::thread acceptor;
  bool acceptFailing = false;  // accept thread only: the last accept failed (logged once)
};

void ApiServer::Listener::acceptLoop() {
  const int listening = socket.impl()->sockfd();
  while (true) {
    pollfd watched[2] = {{listening, POLLIN, 0}, {wakeFd, POLLIN, 0}};
    const int ready = ::poll(watched, 2, -1);  // no timeout: stop() writes wakeFd
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
    if (watched[1].revents != 0) {
      return;
    }
    if ((watched[0].revents & POLLIN) != 0) {
      acceptOne();
    } else if ((watched[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
      serverLog().error("the listening socket failed; retrying");
      if (!pause()) {
        return;
      }
    }
  }
}

void ApiServer::Listener::acceptOne() {
  // Non-blocking listener: a connection reset between poll and accept gives
  // EAGAIN instead of a blocked thread. The accepted socket is blocking (Linux
  // accept4 does not inherit O_NONBLOCK), as Poco's sessions expect.
  const int client = ::accept4(socket.impl()->sockfd(), nullptr, nullptr, SOCK_CLOEXEC);
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
    // Registered, and held by this thread through LiveConnections only (see there).
    const LiveConnections::Handle connection =
        live.add(StreamSocket(new Poco::Net::StreamSocketImpl(client)));
    connection->setNoDelay(true);  // as TCPServer does
    const int refusedBefore = dispatcher->refusedConnections();
    dispatcher->enqueue(*connection);  // queued, or refused when the queue is full
    if (dispatcher->refusedConnections() != refusedBefore) {
      live.remove(connection);  // no pool thread has it: closed at once
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
  socket.close();
}

ApiServer::ApiServer(HttpApi& api, SseBroadcaster& broadcaster, ApiServerOptions options)
    : api_(api),
      broadcaster_(broadcaster),
      options_(std::move(options)),
      listener_(std::make_unique<Listener>(options_.threads)) {}

ApiServer::~ApiServer() {
  stop();
}

void ApiServer::start() {
  Listener& listener = *listener_;
  nameIdleThreads(listener.pool);
  // SO_REUSEADDR (quick restarts) but never SO_REUSEPORT: a second daemon on
  // the same port must fail to bind, not share the port.
  const Poco::Net::SocketAddress address(options_.address, options_.port);
  Poco::Net::ServerSocket& socket = listener.socket;
  if (address.family() == Poco::Net::SocketAddress::IPv6) {
    socket.bind6(address, true, false, true);
  } else {
    socket.bind(address, true, false);
  }
  // One waiting connection per pool thread: a local UI never needs more,
  // and a flood is refused instead of queued for minutes.
  const int queue = listener.pool.capacity();
  socket.listen(queue);
  socket.setBlocking(false);
  const int descriptorFlags = ::fcntl(socket.impl()->sockfd(), F_GETFD);
  if (descriptorFlags >= 0) {
    ::fcntl(socket.impl()->sockfd(), F_SETFD, descriptorFlags | FD_CLOEXEC);
  }
  boundPort_ = socket.address().port();

  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(listener.pool.capacity());
  params->setMaxQueued(queue);
  params->setThreadIdleTime(Poco::Timespan(kDispatcherIdleSecs, 0));
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(options_.keepAliveTimeout.count(), 0));
  // The socket receive timeout (HTTPServerSession applies it): an idle or
  // slow client holds a pool thread at most this long per read.
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
