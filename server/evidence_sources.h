/// @file evidence_sources.h
/// The daemon's long-running evidence sources (docs/DESIGN.md §3; issue 10 item 1): which one runs
/// (evidence.source), how it feeds the Controller, and stopping it.
#pragma once

#include <memory>

#include <Poco/Logger.h>

#include "antidrift/session/controller.h"
#include "server/config.h"
#include "server/window_join.h"

namespace antidrift {

/// Starts the source that `config.evidenceSource` names and wires it to `controller`:
/// observations into WindowJoin::recordWindow, then Controller::recordWindow (source "x11", "sway"
/// or "i3"), away state into Controller::setAway, running state into Controller::setSourceRunning.
/// A source that cannot start is a warning on "antidrift.daemon"; the daemon then runs with
/// evidence "unavailable" (docs/DESIGN.md §3). Sway and i3: see server/sway/sway_source.h; under i3
/// the X11 source runs too, for its idle time only (SYNC alarms, else XScreenSaver), when $DISPLAY
/// is set.
///
/// Owned by the daemon's main thread; the sources' own threads call the Controller, which
/// must outlive this object (stop() or the destructor joins them).
class EvidenceSources {
 public:
  /// Windows go through `windows` (the daemon's WindowJoin: the site of a browser's page
  /// from aw-watcher-web, issue 16 item 4) to `controller`; both must outlive this object.
  EvidenceSources(const DaemonConfig& config, const ConfigEnvironment& environment,
                  Controller& controller, WindowJoin& windows);
  ~EvidenceSources();  ///< stops every source
  EvidenceSources(const EvidenceSources&) = delete;
  EvidenceSources& operator=(const EvidenceSources&) = delete;

  /// Starts the configured source(s). Never throws; call once, after the daemon forked.
  void start();
  /// Heartbeats on while the Controller's session is active, off otherwise (issue 8 item 2:
  /// while no session runs nothing wakes the daemon; a running event-driven source still
  /// reports every change, and Controller health counts it ok). `runtime` is the one of the
  /// State being delivered: a sink of StateDelivery (server/state_delivery.h), which hands
  /// States over in version order, so the last call carries the current runtime (issue 15
  /// item 3). Off until the first call. Thread-safe; before or after start().
  void followSession(RuntimeState runtime);
  /// Stops and joins every source. Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace antidrift
