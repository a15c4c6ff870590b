/// @file sse_broadcaster.h
/// Server-Sent Events fan-out of State snapshots (docs/DESIGN.md §10 "SSE",
/// docs/TECH-NOTES.md §2).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

namespace antidrift {

/// Fans each new State JSON out to every open /events stream.
///
/// Each client has a latest-wins mailbox holding only the newest published
/// snapshot (version + one shared Event: its JSON text is built at most once
/// per change, never per client, and only when a stream sends it: a change
/// that a newer one replaced within the coalescing interval is never
/// serialised at all), so memory per client is
/// constant and a slow client only ever gets the newest state. A stream
/// writes at most one event per kCoalesceInterval (the newest; issue 8 item
/// 2), at instants on a grid every stream shares (so under a burst all take
/// the same State, serialised once), so a burst of changes costs each client
/// one write per interval, and the first
/// change after a quiet spell goes out at once. Streams are capped at
/// `maxClients`; `stop()` wakes every stream so its handler returns
/// (docs/TECH-NOTES.md §2.4).
///
/// A stream subscribed with its socket's descriptor waits in poll(2) on that
/// socket and on its own eventfd, with no timeout but the keep-alive: an SSE
/// client never sends, so the socket turning readable means it closed, and
/// the stream ends at once (issue 8 item 3) without any periodic wake-up
/// while nothing happens. A subscribe() at the cap first evicts the streams
/// whose clients have gone. A stream without a descriptor (tests, fuzzing)
/// waits on a condition variable and asks its PeerGone probe, if any, every
/// `peerCheckInterval` (issue 9 item 6). Every method is thread-safe.
class SseBroadcaster {
 public:
  class Subscription;

  /// Says whether the client of a stream has closed or reset its connection
  /// (without writing to it). Called on the streaming thread only; must not
  /// block.
  using PeerGone = std::function<bool()>;

  /// How often an idle stream asks its PeerGone probe by default.
  static constexpr std::chrono::milliseconds kPeerCheckInterval{250};
  /// Least time between two state events of one stream: changes closer than
  /// this are coalesced into the newest (issue 8 item 2). 25 ms: 40 events a
  /// second is more than a page shows; at 10 ms, 30 streams cost a quarter of
  /// a core at 10,000 observations/s (docs/PERFORMANCE.md §3).
  static constexpr std::chrono::milliseconds kCoalesceInterval{25};

  /// `maxClients`: open streams allowed (server.max_sse_clients, ≥ 1);
  /// `keepAlive`: idle time after which a `: keep-alive` comment is written
  /// (server.sse_keepalive_s; 15 s in production); `peerCheckInterval`: how
  /// often an idle stream with a PeerGone probe asks it.
  SseBroadcaster(std::size_t maxClients, std::chrono::milliseconds keepAlive,
                 std::chrono::milliseconds peerCheckInterval = kPeerCheckInterval);
  /// Calls stop(). Every Subscription must be gone before destruction.
  ~SseBroadcaster();
  SseBroadcaster(const SseBroadcaster&) = delete;
  SseBroadcaster& operator=(const SseBroadcaster&) = delete;

  /// The JSON text of one published State: given, or rendered on first use
  /// by the first stream that sends it (once, whatever the number of
  /// streams; issue 8 item 2) and then shared. Immutable once rendered;
  /// thread-safe.
  class Event {
   public:
    /// The text is known already.
    explicit Event(std::string json);
    /// The text is `render()`, called at most once, on a streaming thread.
    explicit Event(std::function<std::string()> render);
    /// The JSON text; the first call renders it. Rethrows what render threw
    /// (the next call tries again).
    const std::string& json() const;

   private:
    mutable std::once_flag rendered_;
    mutable std::function<std::string()> render_;
    mutable std::string json_;
  };

  /// Publishes the State JSON of `version` (one line of compact JSON).
  /// Versions come in order: the daemon publishes through StateDelivery
  /// (server/state_delivery.h, issue 15 item 3), which drops a late State
  /// before any sink sees it. It replaces the content of every mailbox and
  /// wakes the streams. Never blocks on a client.
  void publish(std::uint64_t version, std::string stateJson);
  /// The same with the JSON rendered by `render` when a stream first sends
  /// it (Event): a change replaced by a newer one before any stream sent it
  /// costs nothing. `render` must be thread-safe to call once from any
  /// thread (e.g. capture the State by value).
  void publish(std::uint64_t version, std::function<std::string()> render);

  /// Opens a stream slot whose mailbox starts with the newest published
  /// state. `peerFd`: the client's connected socket (−1: none), watched by
  /// stream() for the client closing; it must stay open while the
  /// Subscription lives. At the cap, the streams whose clients have hung up
  /// (http::peerHasHungUp) are evicted first (their stream() returns soon
  /// and they no longer count). Returns nullptr when `maxClients` live
  /// streams are still open or the broadcaster is stopping (the handler
  /// answers 503). The slot is freed when the Subscription is destroyed.
  /// Throws Poco::SystemException if no eventfd can be created.
  std::unique_ptr<Subscription> subscribe(int peerFd = -1);

  /// Replaces the first event of a new stream with `stateJson`, the State of
  /// `version` serialised for this client just now, so its "now" and
  /// "remaining_secs" are fresh rather than those of the last broadcast,
  /// which may be minutes old. Call it after subscribe() and before
  /// stream(); taking the state after subscribing loses no change, because
  /// a newer publish() already in the mailbox (version greater than
  /// `version`) is kept instead. Thread-safe.
  void primeFirstEvent(Subscription& subscription, std::uint64_t version, std::string stateJson);

  /// Writes the stream to `out` until the client goes away (`out.good()` is
  /// false after a flush, its socket reports a hangup, or `peerGone` says
  /// so while idle), it is evicted, or stop() is called: first `retry:
  /// 2000`, then for each mailbox delivery (at most one per
  /// kCoalesceInterval) `id: <version>\nevent: state\ndata: <json>\n\n`, and
  /// `: keep-alive\n\n` after `keepAlive` without a write. With a `peerFd`
  /// it sleeps in poll(2) until a publish, the socket's hangup or the
  /// keep-alive; without one it asks `peerGone` (when given) every
  /// `peerCheckInterval`. Events from notifyAll() go out as soon as the
  /// stream wakes, ahead of the State. On stop it writes `event: bye` and
  /// returns.
  /// Blocks the calling (HTTP pool) thread.
  void stream(Subscription& subscription, std::ostream& out, const PeerGone& peerGone = {});

  /// Sends `event: <name>` with `data: <dataJson>` once on every stream
  /// open now (not on later ones), before the next State and without ending
  /// the stream: POST /token/rotate tells open pages their token is stale
  /// (`event: token`, issue 19 item 7). `name` must be a bare word and
  /// `dataJson` one line. Never blocks on a client. Thread-safe.
  void notifyAll(const std::string& name, const std::string& dataJson);

  /// Sets the stop flag and wakes every stream; later subscribe() calls
  /// return nullptr. Idempotent.
  void stop();

  /// Number of open streams.
  std::size_t clientCount() const;

  /// Waits until every stream has ended (its Subscription destroyed: after
  /// stop(), once each handler has written `event: bye` and returned) or
  /// `timeout` passes; true if they did. Lets a server shutting down close
  /// the connections only after the goodbyes were written.
  bool waitForStreamsToEnd(std::chrono::milliseconds timeout) const;

  /// Waits until clientCount() == `count` or `timeout` passes; true if it
  /// did. For tests that watch a disconnected client free its slot.
  bool waitForClientCountForTest(std::size_t count, std::chrono::milliseconds timeout) const;

 private:
  struct Mailbox {
    std::uint64_t version = 0;
    std::shared_ptr<const Event> json;  ///< nullptr: nothing new to send
    int peerFd = -1;                    ///< the client's socket; −1 none
    int wakeFd = -1;                    ///< eventfd poked on news; −1 with no peerFd
    bool evicted = false;               ///< its client hung up; not counted
    bool peerSends = false;             ///< its client sent bytes: waits on changed_
    /// Its stream sent an event less than kCoalesceInterval ago and wakes by itself when
    /// the interval ends: a publish meanwhile only fills the mailbox (no eventfd write,
    /// no second wake-up per event under load).
    bool coalescing = false;
    /// Whole events from notifyAll() not yet written; "" none.
    std::string notices = {};
  };

  void unsubscribe(std::list<Mailbox>::iterator slot);
  /// Pokes every mailbox's eventfd (under mutex_).
  void wakeAllLocked();
  /// Sleeps until news for `mailbox`, its peer hanging up, or `until`.
  /// Returns false when the peer hung up. Sets `peerSends` when the peer
  /// wrote bytes instead (then the caller falls back to the probe).
  bool waitOnDescriptors(Mailbox& mailbox, std::chrono::steady_clock::time_point until,
                         bool& peerSends);

  const std::size_t maxClients_;
  const std::chrono::milliseconds keepAlive_;
  const std::chrono::milliseconds peerCheckInterval_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  std::uint64_t latestVersion_ = 0;
  std::shared_ptr<const Event> latestJson_;
  /// publish()'s common part.
  void publishEvent(std::uint64_t version, std::shared_ptr<const Event> event);
  std::list<Mailbox> mailboxes_;
  std::size_t evicted_ = 0;  ///< mailboxes marked evicted, not yet unsubscribed
  /// Streams that wait on changed_ (no descriptor, or a client that sends):
  /// publish() notifies the condition variable only when there are any.
  std::size_t condvarStreams_ = 0;
};

/// One open stream slot (RAII): frees the slot on destruction. Obtained from
/// SseBroadcaster::subscribe(); must not outlive the broadcaster.
class SseBroadcaster::Subscription {
 public:
  /// Frees the slot.
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

 private:
  friend class SseBroadcaster;
  Subscription(SseBroadcaster& owner, std::list<Mailbox>::iterator slot)
      : owner_(owner), slot_(slot) {}

  SseBroadcaster& owner_;
  std::list<Mailbox>::iterator slot_;
};

}  // namespace antidrift
