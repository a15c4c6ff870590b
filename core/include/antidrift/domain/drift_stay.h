/// @file drift_stay.h
/// The window the drift status was about when the daemon stopped (issue 17
/// item 4, the re-walk; docs/DESIGN.md §9 "Restart"): kept in the snapshot so
/// the first observation of the same window after a restart continues its
/// stay — the same verdict, no new visit, no new drift episode.
#pragma once

#include <string>

namespace antidrift {

/// A verdict about the window in front, as plain data (the snapshot's
/// `drift_stay`; drift::Engine::stay() and resumeStay()).
struct DriftStay {
  std::string key;        ///< the window's verdict-cache key (drift::verdictKey)
  bool drifting = false;  ///< drifting (true) or on task by a verdict (false)
  std::string reason;     ///< the reason shown, verbatim
  bool blocked = false;   ///< drifting by a hard rule (then the rule decides again)

  bool operator==(const DriftStay& other) const {
    return key == other.key && drifting == other.drifting && reason == other.reason &&
           blocked == other.blocked;
  }
};

}  // namespace antidrift
