#include "server/sse_broadcaster.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <Poco/Exception.h>

#include "server/http/peer_hangup.h"

namespace antidrift {

namespace {

/// Adds one to an eventfd's counter; never blocks (EFD_NONBLOCK).
void poke(int wakeFd) {
  const std::uint64_t one = 1;
  const ssize_t written = ::write(wakeFd, &one, sizeof one);
  static_cast<void>(written);  // EAGAIN: the counter is already non-zero
}

/// The first instant on the coalescing grid (multiples of kCoalesceInterval
/// on the steady clock) at least kCoalesceInterval after `lastEvent`. Every
/// stream waits for the same instants, so under a burst they all take the
/// same newest State and it is serialised once, not once per stream.
std::chrono::steady_clock::time_point nextEventAt(std::chrono::steady_clock::time_point lastEvent) {
  using Clock = std::chrono::steady_clock;
  const Clock::duration interval = SseBroadcaster::kCoalesceInterval;
  const Clock::duration earliest = (lastEvent + interval).time_since_epoch();
  const auto steps = (earliest.count() + interval.count() - 1) / interval.count();
  return Clock::time_point(Clock::duration(steps * interval.count()));
}

/// Resets an eventfd's counter; never blocks.
void drain(int wakeFd) {
  std::uint64_t count = 0;
  const ssize_t read = ::read(wakeFd, &count, sizeof count);
  static_cast<void>(read);
}

}  // namespace

SseBroadcaster::SseBroadcaster(std::size_t maxClients, std::chrono::milliseconds keepAlive,
                               std::chrono::milliseconds peerCheckInterval)
    : maxClients_(maxClients), keepAlive_(keepAlive), peerCheckInterval_(peerCheckInterval) {}

SseBroadcaster::~SseBroadcaster() {
  stop();
}

void SseBroadcaster::wakeAllLocked() {
  for (const Mailbox& mailbox : mailboxes_) {
    if (mailbox.wakeFd >= 0) poke(mailbox.wakeFd);
  }
}

SseBroadcaster::Event::Event(std::string json) : json_(std::move(json)) {
  std::call_once(rendered_, [] {});
}

SseBroadcaster::Event::Event(std::function<std::string()> render) : render_(std::move(render)) {}

const std::string& SseBroadcaster::Event::json() const {
  std::call_once(rendered_, [this] {
    json_ = render_();
    render_ = nullptr;  // frees what it captured (a whole State)
  });
  return json_;
}

void SseBroadcaster::publish(std::uint64_t version, std::string stateJson) {
  publishEvent(version, std::make_shared<const Event>(std::move(stateJson)));
}

void SseBroadcaster::publish(std::uint64_t version, std::function<std::string()> render) {
  publishEvent(version, std::make_shared<const Event>(std::move(render)));
}

void SseBroadcaster::publishEvent(std::uint64_t version, std::shared_ptr<const Event> shared) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    latestVersion_ = version;
    latestJson_ = shared;
    for (Mailbox& mailbox : mailboxes_) {
      const bool wasEmpty = mailbox.json == nullptr;
      mailbox.version = version;
      mailbox.json = shared;
      // A full mailbox's stream is awake already, a coalescing one wakes by
      // itself: no syscall.
      if (wasEmpty && !mailbox.coalescing && mailbox.wakeFd >= 0) poke(mailbox.wakeFd);
    }
    // Streams sleeping on their descriptors are woken by their eventfd
    // alone: no futex storm through the condition variable on every change.
    if (condvarStreams_ == 0) return;
  }
  changed_.notify_all();
}

void SseBroadcaster::notifyAll(const std::string& name, const std::string& dataJson) {
  const std::string text = "event: " + name + "\ndata: " + dataJson + "\n\n";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Mailbox& mailbox : mailboxes_) {
      if (mailbox.evicted) continue;
      mailbox.notices += text;
      if (mailbox.wakeFd >= 0) poke(mailbox.wakeFd);
    }
    if (condvarStreams_ == 0) return;
  }
  changed_.notify_all();
}

std::unique_ptr<SseBroadcaster::Subscription> SseBroadcaster::subscribe(int peerFd) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) {
    return nullptr;
  }
  if (mailboxes_.size() - evicted_ >= maxClients_) {
    // Issue 8 item 3: a reloaded tab's old stream may not have noticed yet
    // that its client closed; it must not cost the new one its slot.
    for (Mailbox& mailbox : mailboxes_) {
      if (!mailbox.evicted && mailbox.peerFd >= 0 && http::peerHasHungUp(mailbox.peerFd)) {
        mailbox.evicted = true;
        ++evicted_;
        poke(mailbox.wakeFd);
      }
    }
    if (mailboxes_.size() - evicted_ >= maxClients_) {
      return nullptr;
    }
  }
  int wakeFd = -1;
  if (peerFd >= 0) {
    wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wakeFd < 0) {
      throw Poco::SystemException("cannot create an eventfd for an event stream");
    }
  }
  auto slot = mailboxes_.insert(mailboxes_.end(),
                                Mailbox{latestVersion_, latestJson_, peerFd, wakeFd, false});
  if (wakeFd < 0) ++condvarStreams_;
  if (wakeFd >= 0 && latestJson_) poke(wakeFd);
  return std::unique_ptr<Subscription>(new Subscription(*this, slot));
}

void SseBroadcaster::primeFirstEvent(Subscription& subscription, std::uint64_t version,
                                     std::string stateJson) {
  auto shared = std::make_shared<const Event>(std::move(stateJson));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Mailbox& mailbox = *subscription.slot_;
    if (mailbox.version > version) {
      return;
    }
    mailbox.version = version;
    mailbox.json = std::move(shared);
    if (mailbox.wakeFd >= 0) poke(mailbox.wakeFd);
  }
  changed_.notify_all();
}

void SseBroadcaster::unsubscribe(std::list<Mailbox>::iterator slot) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot->evicted) --evicted_;
    if (slot->wakeFd >= 0) ::close(slot->wakeFd);
    if (slot->wakeFd < 0 || slot->peerSends) --condvarStreams_;
    mailboxes_.erase(slot);
  }
  changed_.notify_all();
}

SseBroadcaster::Subscription::~Subscription() {
  owner_.unsubscribe(slot_);
}

bool SseBroadcaster::waitOnDescriptors(Mailbox& mailbox,
                                       std::chrono::steady_clock::time_point until,
                                       bool& peerSends) {
  using Clock = std::chrono::steady_clock;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
  // Round up, so a wake-up never comes just before `until` and loops.
  const int timeoutMs = static_cast<int>(std::max<std::int64_t>(0, left.count() + 1));
  pollfd watched[2] = {{mailbox.peerFd, POLLIN | POLLRDHUP, 0}, {mailbox.wakeFd, POLLIN, 0}};
  const int ready = ::poll(watched, 2, timeoutMs);
  if (ready <= 0) {
    return true;  // the keep-alive is due (or EINTR: the caller loops)
  }
  if ((watched[1].revents & POLLIN) != 0) {
    drain(mailbox.wakeFd);
  }
  if (watched[0].revents != 0) {
    if (http::peerHasHungUp(mailbox.peerFd)) {
      return false;
    }
    peerSends = true;  // bytes from the client: poll would spin on them
    std::lock_guard<std::mutex> lock(mutex_);
    mailbox.peerSends = true;
    ++condvarStreams_;
  }
  return true;
}

void SseBroadcaster::stream(Subscription& subscription, std::ostream& out,
                            const PeerGone& peerGone) {
  using Clock = std::chrono::steady_clock;
  out << "retry: 2000\n\n";
  out.flush();
  if (!out.good()) {
    return;
  }
  Mailbox& mailbox = *subscription.slot_;
  Clock::time_point lastWrite = Clock::now();
  Clock::time_point lastEvent = lastWrite - kCoalesceInterval;
  bool peerSends = false;
  while (true) {
    std::uint64_t version = 0;
    std::shared_ptr<const Event> json;
    std::string notices;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // Coalescing: an event soon after the last one waits for the rest of
      // the interval, then sends the newest state.
      const Clock::time_point eventAt = nextEventAt(lastEvent);
      if (mailbox.json && Clock::now() < eventAt) {
        if (mailbox.peerFd >= 0 && !peerSends) {
          // Sleep on the socket alone: publishes must not wake it again.
          lock.unlock();
          const auto left =
              std::chrono::duration_cast<std::chrono::milliseconds>(eventAt - Clock::now());
          pollfd peer{mailbox.peerFd, POLLRDHUP, 0};
          if (::poll(&peer, 1, static_cast<int>(std::max<std::int64_t>(0, left.count()) + 1)) > 0 &&
              http::peerHasHungUp(mailbox.peerFd)) {
            return;
          }
          lock.lock();
        } else {
          changed_.wait_until(lock, eventAt, [&] { return stopping_ || mailbox.evicted; });
        }
      }
      if (mailbox.peerFd < 0 || peerSends) {
        const Clock::time_point keepAliveAt = lastWrite + keepAlive_;
        const Clock::time_point wakeAt =
            peerGone ? std::min(keepAliveAt, Clock::now() + peerCheckInterval_) : keepAliveAt;
        changed_.wait_until(lock, wakeAt, [&] {
          return stopping_ || mailbox.evicted || mailbox.json != nullptr ||
                 !mailbox.notices.empty();
        });
      }
      stopping = stopping_;
      if (mailbox.evicted && !stopping) {
        return;  // its client hung up; a new stream has the slot
      }
      if (!stopping) {
        notices.swap(mailbox.notices);
      }
      if (!stopping && mailbox.json) {
        version = mailbox.version;
        json = std::move(mailbox.json);
        mailbox.json = nullptr;
        mailbox.coalescing = mailbox.peerFd >= 0 && !peerSends;
      }
    }
    if (stopping) {
      out << "event: bye\ndata: {}\n\n";
      out.flush();
      return;
    }
    if (!notices.empty() || json) {
      out << notices;
      if (json) {
        out << "id: " << version << "\nevent: state\ndata: " << json->json() << "\n\n";
        lastEvent = Clock::now();
      }
    } else if (mailbox.peerFd >= 0 && !peerSends) {
      if (mailbox.coalescing) {
        // Just after an event: sleep out the interval on the socket alone
        // (publishes meanwhile do not poke), then send what came, if anything.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            nextEventAt(lastEvent) - Clock::now());
        pollfd peer{mailbox.peerFd, POLLRDHUP, 0};
        if (left.count() >= 0 && ::poll(&peer, 1, static_cast<int>(left.count()) + 1) > 0 &&
            http::peerHasHungUp(mailbox.peerFd)) {
          return;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        mailbox.coalescing = false;  // from here a publish pokes again
        continue;
      }
      // Sleep on the socket and the eventfd: no wake-up until news, the
      // client's hangup, or the keep-alive (issue 8 item 3).
      if (Clock::now() < lastWrite + keepAlive_) {
        if (!waitOnDescriptors(mailbox, lastWrite + keepAlive_, peerSends)) {
          return;
        }
        continue;
      }
      out << ": keep-alive\n\n";
    } else {
      // A closed tab is otherwise noticed only by the next write, which may
      // be a keep-alive minutes away; meanwhile it holds a slot and a thread.
      if ((peerGone && peerGone()) ||
          (mailbox.peerFd >= 0 && http::peerHasHungUp(mailbox.peerFd))) {
        return;
      }
      if (Clock::now() < lastWrite + keepAlive_) {
        continue;
      }
      out << ": keep-alive\n\n";
    }
    out.flush();
    lastWrite = Clock::now();
    if (!out.good()) {
      return;
    }
  }
}

void SseBroadcaster::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    wakeAllLocked();
  }
  changed_.notify_all();
}

std::size_t SseBroadcaster::clientCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mailboxes_.size();
}

bool SseBroadcaster::waitForStreamsToEnd(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return mailboxes_.empty(); });
}

bool SseBroadcaster::waitForClientCountForTest(std::size_t count,
                                               std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return mailboxes_.size() == count; });
}

}  // namespace antidrift
