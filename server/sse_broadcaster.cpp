#include "server/sse_broadcaster.h"

#include <algorithm>

namespace antidrift {

SseBroadcaster::SseBroadcaster(std::size_t maxClients, std::chrono::milliseconds keepAlive,
                               std::chrono::milliseconds peerCheckInterval)
    : maxClients_(maxClients), keepAlive_(keepAlive), peerCheckInterval_(peerCheckInterval) {}

SseBroadcaster::~SseBroadcaster() {
  stop();
}

void SseBroadcaster::publish(std::uint64_t version, std::string stateJson) {
  auto shared = std::make_shared<const std::string>(std::move(stateJson));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (latestJson_ && version < latestVersion_) {
      return;
    }
    latestVersion_ = version;
    latestJson_ = shared;
    for (Mailbox& mailbox : mailboxes_) {
      mailbox.version = version;
      mailbox.json = shared;
    }
  }
  changed_.notify_all();
}

std::unique_ptr<SseBroadcaster::Subscription> SseBroadcaster::subscribe() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || mailboxes_.size() >= maxClients_) {
    return nullptr;
  }
  auto slot = mailboxes_.insert(mailboxes_.end(), Mailbox{latestVersion_, latestJson_});
  return std::unique_ptr<Subscription>(new Subscription(*this, slot));
}

void SseBroadcaster::primeFirstEvent(Subscription& subscription, std::uint64_t version,
                                     std::string stateJson) {
  auto shared = std::make_shared<const std::string>(std::move(stateJson));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Mailbox& mailbox = *subscription.slot_;
    if (mailbox.version > version) {
      return;
    }
    mailbox.version = version;
    mailbox.json = std::move(shared);
  }
  changed_.notify_all();
}

void SseBroadcaster::unsubscribe(std::list<Mailbox>::iterator slot) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    mailboxes_.erase(slot);
  }
  changed_.notify_all();
}

SseBroadcaster::Subscription::~Subscription() {
  owner_.unsubscribe(slot_);
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
  while (true) {
    std::uint64_t version = 0;
    std::shared_ptr<const std::string> json;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const Clock::time_point keepAliveAt = lastWrite + keepAlive_;
      const Clock::time_point wakeAt =
          peerGone ? std::min(keepAliveAt, Clock::now() + peerCheckInterval_) : keepAliveAt;
      changed_.wait_until(lock, wakeAt, [&] { return stopping_ || mailbox.json != nullptr; });
      stopping = stopping_;
      if (!stopping && mailbox.json) {
        version = mailbox.version;
        json = std::move(mailbox.json);
        mailbox.json = nullptr;
      }
    }
    if (stopping) {
      out << "event: bye\ndata: {}\n\n";
      out.flush();
      return;
    }
    if (json) {
      out << "id: " << version << "\nevent: state\ndata: " << *json << "\n\n";
    } else {
      // A closed tab is otherwise noticed only by the next write, which may
      // be a keep-alive minutes away; meanwhile it holds a slot and a thread.
      if (peerGone && peerGone()) {
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
  }
  changed_.notify_all();
}

std::size_t SseBroadcaster::clientCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mailboxes_.size();
}

bool SseBroadcaster::waitForClientCountForTest(std::size_t count,
                                               std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return mailboxes_.size() == count; });
}

}  // namespace antidrift
