/// @file evidence_sources.cpp
/// Wiring of the evidence sources (docs/DESIGN.md §3).

#include "server/evidence_sources.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include "server/sway/sway_source.h"

#ifdef ANTIDRIFT_HAVE_X11
#include "server/x11/x11_source.h"
#endif

namespace antidrift {

struct EvidenceSources::Impl {
  Impl(const DaemonConfig& daemonConfig, const ConfigEnvironment& processEnvironment,
       Controller& sessionController, WindowJoin& join)
      : config(daemonConfig),
        environment(processEnvironment),
        controller(sessionController),
        windowJoin(join) {}

  const DaemonConfig& config;
  const ConfigEnvironment& environment;
  Controller& controller;
  WindowJoin& windowJoin;  ///< every window goes through it (issue 16 item 4)
  Poco::Logger& log = Poco::Logger::get("antidrift.daemon");
  /// Guards x11, ipc and heartbeat: start() publishes a started source under it, and
  /// followSession() comes from the State delivery on any thread. Never held while joining
  /// a source, nor taken under the Controller's lock.
  std::mutex sourcesMutex;
  bool heartbeat = false;  // the last followSession(); applied to each source as it starts
#ifdef ANTIDRIFT_HAVE_X11
  std::unique_ptr<X11Source> x11;
#endif
  std::unique_ptr<sway::SwaySource> ipc;

  bool heartbeatWanted() {
    std::lock_guard<std::mutex> lock(sourcesMutex);
    return heartbeat;
  }

  /// The X11 source; with WindowReporting::Off only its idle time is used.
  enum class WindowReporting { On, Off };
  void startX11(WindowReporting windows);
  void startIpc(sway::IpcServer server);
};

void EvidenceSources::Impl::startX11(WindowReporting windows) {
  const std::string what = windows == WindowReporting::On ? "X11 evidence" : "X11 idle time";
  if (!config.x11) {
    log.information(what + " off (evidence.x11 = false)");
    return;
  }
  if (environment.display.empty()) {
    log.information(what + " off: $DISPLAY is not set");
    return;
  }
#ifdef ANTIDRIFT_HAVE_X11
  X11SourceCallbacks callbacks;
  if (windows == WindowReporting::On) {
    callbacks.onWindow = [this](const std::string& app, const std::string& title) {
      windowJoin.recordWindow(Observation{0, app, title, "x11"});
    };
  }
  callbacks.onAway = [this](bool away) { controller.setAway(away); };
  callbacks.onFailed = [this, what, windows](const std::string& why) {
    log.warning(what + " unavailable: " + why);
    if (windows == WindowReporting::On) {
      controller.setSourceRunning("x11", false);
    }
  };
  // Idle time only: no heartbeat, which would re-read a window nobody reports.
  const std::int64_t heartbeatSecs =
      windows == WindowReporting::On ? config.settings.heartbeatSecs : 0;
  auto source = std::make_unique<X11Source>("", heartbeatSecs, config.settings.idleAfterSecs,
                                            std::move(callbacks));
  source->setHeartbeat(heartbeatWanted());
  std::string why;
  if (source->start(why)) {
    const X11IdleDetection detection = source->idleDetection();
    {
      std::lock_guard<std::mutex> lock(sourcesMutex);
      x11 = std::move(source);
      x11->setHeartbeat(heartbeat);  // a change while it started
    }
    if (windows == WindowReporting::On) {
      controller.setSourceRunning("x11", true);
    }
    log.information(what + " from display " + environment.display + "; away after " +
                    std::to_string(config.settings.idleAfterSecs) + " s without input, by " +
                    std::string(toString(detection)));
  } else {
    log.warning(what + " unavailable: " + why);
  }
#else
  log.warning(what + " unavailable: antidriftd was built without X11 support");
#endif
}

void EvidenceSources::Impl::startIpc(sway::IpcServer server) {
  const std::string name(sway::toString(server));
  sway::SwaySourceOptions options;
  options.server = server;
  options.heartbeatSecs = config.settings.heartbeatSecs;
  sway::SwaySourceCallbacks callbacks;
  callbacks.onWindow = [this, name](const std::string& app, const std::string& title) {
    windowJoin.recordWindow(Observation{0, app, title, name});
  };
  callbacks.onConnected = [this, name](const std::string& path) {
    log.information(name + " evidence from " + path);
    controller.setSourceRunning(name, true);
  };
  callbacks.onDisconnected = [this, name](const std::string& why) {
    log.warning(name + " evidence unavailable: " + why + "; retrying");
    controller.setSourceRunning(name, false);
  };
  callbacks.onProblem = [this, name](const std::string& problem) {
    log.warning(name + " IPC: " + problem);
  };
  auto source = std::make_unique<sway::SwaySource>(std::move(options), std::move(callbacks));
  source->setHeartbeat(heartbeatWanted());
  std::string why;
  if (!source->start(why)) {
    log.warning(name + " evidence unavailable: " + why);
    return;
  }
  std::lock_guard<std::mutex> lock(sourcesMutex);
  ipc = std::move(source);
  ipc->setHeartbeat(heartbeat);  // a change while it started
}

EvidenceSources::EvidenceSources(const DaemonConfig& config, const ConfigEnvironment& environment,
                                 Controller& controller, WindowJoin& windows)
    : impl_(std::make_unique<Impl>(config, environment, controller, windows)) {}

EvidenceSources::~EvidenceSources() {
  stop();
}

void EvidenceSources::start() {
  Impl& impl = *impl_;
  impl.log.information("evidence source: " + std::string(toString(impl.config.evidenceSource)) +
                       " (" + impl.config.evidenceSourceReason + ")");
  switch (impl.config.evidenceSource) {
    case EvidenceSource::X11:
      impl.startX11(Impl::WindowReporting::On);
      break;
    case EvidenceSource::Sway:
      // sway offers no idle time over IPC (only through a Wayland protocol): away comes
      // from the ActivityWatch-compatible AFK API, e.g. fed by swayidle (README, "sway").
      impl.startIpc(sway::IpcServer::Sway);
      break;
    case EvidenceSource::I3:
      impl.startIpc(sway::IpcServer::I3);
      impl.startX11(Impl::WindowReporting::Off);
      break;
    case EvidenceSource::None:
      impl.log.information(
          "no built-in evidence source; windows arrive only through POST /evidence/window and "
          "the ActivityWatch-compatible API");
      break;
  }
}

void EvidenceSources::followSession(RuntimeState runtime) {
  Impl& impl = *impl_;
  std::lock_guard<std::mutex> lock(impl.sourcesMutex);
  const bool on = runtime == RuntimeState::Active;
  if (on == impl.heartbeat) {
    return;
  }
  impl.heartbeat = on;
  if (impl.ipc) {
    impl.ipc->setHeartbeat(on);
  }
#ifdef ANTIDRIFT_HAVE_X11
  if (impl.x11) {
    impl.x11->setHeartbeat(on);
  }
#endif
}

void EvidenceSources::stop() {
  // Only start() (this same thread) sets the pointers; stopping joins the sources'
  // threads, whose callbacks may call followSession(), so no lock is held here.
  if (impl_->ipc) {
    impl_->ipc->stop();
  }
#ifdef ANTIDRIFT_HAVE_X11
  if (impl_->x11) {
    impl_->x11->stop();
  }
#endif
}

}  // namespace antidrift
