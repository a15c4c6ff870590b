/// @file state_delivery.h
/// The one delivery point of the Controller's States (issue 15 item 3): every
/// State the Controller announces passes here, and each sink (the SSE
/// broadcaster, the ticker, the evidence sources, the desktop notifier,
/// do-not-disturb, …) sees them in strictly increasing `version`, so no sink
/// keeps a guard of its own against a State delivered late.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "antidrift/session/state.h"

namespace antidrift {

/// Delivers States to a list of sinks in version order.
///
/// The Controller calls its change listener outside its own lock, on the
/// thread that made the change, so two threads may announce versions 7 and 8
/// and reach the listener as 8, then 7. deliver() serialises the delivery:
/// under one mutex it drops a State whose version is not above the last one
/// delivered (the sinks already have something newer) and otherwise calls
/// every sink, in the order they were added, before the next State may pass.
/// What a sink needs comes with the State itself (its `runtime`, its
/// `nextWakeMonotonicMs`), so no sink calls back into the Controller.
///
/// A sink must not block (it queues work for its own thread if it has slow
/// work) and must not call deliver() itself; it runs with this object's
/// mutex held, never under the Controller's.
class StateDelivery {
 public:
  /// One consumer of States, e.g. `[&api](const State& s) { api.publish(s); }`.
  using Sink = std::function<void(const State&)>;

  /// Adds `sink` under `name` (for the log and tests) at the end of the list.
  /// Call before the first deliver() (the daemon adds every sink at start).
  void addSink(std::string name, Sink sink);

  /// Hands `state` to every sink, in order, unless a State of the same or a
  /// newer version was delivered already; returns whether it was delivered.
  /// The first State is always delivered. Thread-safe: callable from any
  /// thread; sinks never run concurrently with each other.
  bool deliver(const State& state);

  /// The names of the sinks, in delivery order. Thread-safe.
  std::vector<std::string> sinkNames() const;

 private:
  struct Named {
    std::string name;
    Sink sink;
  };

  mutable std::mutex mutex_;
  std::vector<Named> sinks_;       // guarded by mutex_
  bool deliveredAny_ = false;      // guarded by mutex_
  std::uint64_t lastVersion_ = 0;  // guarded by mutex_: the version last delivered
};

}  // namespace antidrift
