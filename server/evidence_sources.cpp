/// @file evidence_sources.cpp
/// Wiring of the evidence sources (DESIGN §3).

#include "server/evidence_sources.h"

#include <string>
#include <utility>

#ifdef ANTIDRIFT_HAVE_X11
#include "server/x11/x11_source.h"
#endif

namespace antidrift {

struct EvidenceSources::Impl {
  Impl(const DaemonConfig& daemonConfig, const ConfigEnvironment& processEnvironment,
       Controller& sessionController)
      : config(daemonConfig), environment(processEnvironment), controller(sessionController) {}

  const DaemonConfig& config;
  const ConfigEnvironment& environment;
  Controller& controller;
  Poco::Logger& log = Poco::Logger::get("antidrift.daemon");
#ifdef ANTIDRIFT_HAVE_X11
  std::unique_ptr<X11Source> x11;
#endif

  void startX11();
};

void EvidenceSources::Impl::startX11() {
  if (!config.x11) {
    log.information("X11 evidence off (evidence.x11 = false)");
    return;
  }
  if (environment.display.empty()) {
    log.information("X11 evidence off: $DISPLAY is not set");
    return;
  }
#ifdef ANTIDRIFT_HAVE_X11
  X11SourceCallbacks callbacks;
  callbacks.onWindow = [this](const std::string& app, const std::string& title) {
    controller.recordWindow(Observation{0, app, title, "x11"});
  };
  callbacks.onAway = [this](bool away) { controller.setAway(away); };
  callbacks.onFailed = [this](const std::string& why) {
    log.warning("X11 evidence unavailable: " + why);
    controller.setSourceRunning("x11", false);
  };
  x11 = std::make_unique<X11Source>("", config.settings.heartbeatSecs,
                                    config.settings.idleAfterSecs, std::move(callbacks));
  std::string why;
  if (x11->start(why)) {
    controller.setSourceRunning("x11", true);
    log.information("X11 evidence from display " + environment.display);
  } else {
    log.warning("X11 evidence unavailable: " + why);
    x11.reset();
  }
#else
  log.warning("X11 evidence unavailable: antidriftd was built without X11 support");
#endif
}

EvidenceSources::EvidenceSources(const DaemonConfig& config, const ConfigEnvironment& environment,
                                 Controller& controller)
    : impl_(std::make_unique<Impl>(config, environment, controller)) {}

EvidenceSources::~EvidenceSources() {
  stop();
}

void EvidenceSources::start() {
  impl_->startX11();
}

void EvidenceSources::stop() {
#ifdef ANTIDRIFT_HAVE_X11
  if (impl_->x11) {
    impl_->x11->stop();
  }
#endif
}

}  // namespace antidrift
