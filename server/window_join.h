/// @file window_join.h
/// Browser URL evidence in the daemon (issue 16 item 4): every window
/// observation, from any source (X11, sway, i3, POST /evidence/window, an
/// ActivityWatch window bucket), passes through here on its way to the
/// Controller, and gets the site of the page from the latest aw-watcher-web
/// heartbeats (`web.tab.current`) when a tab describes it (joinWebTab,
/// core/include/antidrift/evidence/web_join.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "antidrift/clock.h"
#include "antidrift/drift/rules.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/session/controller.h"
#include "antidrift/settings.h"

namespace antidrift {

/// One aw-watcher-web heartbeat's data, as received.
struct WebTabHeartbeat {
  std::string url;         ///< data.url, as sent (only its domain is ever kept)
  std::string title;       ///< data.title
  bool incognito = false;  ///< data.incognito: a private tab
};

/// Joins tab heartbeats to window observations, then hands the windows to the
/// Controller (Controller::recordWindow).
///
/// The rule: a window whose app is a browser's (drift::Rules::isPerPage with
/// the Controller's rules, compiled once for the daemon) takes the domain (or the private mark) of
/// the tab heartbeat, of any bucket, whose title describes it (joinWebTab) and that arrived within
/// kWebTabFreshMs (monotonic clock); of several, the longest title match, then the newest. Only the
/// latest heartbeat of each bucket (one per browser) is kept, at most kMaxBuckets of them. The
/// reverse order: a tab heartbeat that changes what the last window joins to (a tab activated just
/// after its window was reported, or a page loaded in the same tab) re-delivers that window,
/// stamped now, with its domain.
///
/// Thread-safe: the sources' threads and the HTTP threads call it at once. The
/// Controller is called under this object's lock, so the order of windows the
/// Controller sees is the order decided here (lock order: this, then the
/// Controller's; nothing calls back into this object from a Controller
/// listener).
class WindowJoin {
 public:
  /// Tab heartbeats kept at most: one per bucket; the oldest is dropped.
  static constexpr std::size_t kMaxBuckets = 16;

  /// `controller` and `clock` must outlive this object; the browser rule
  /// (drift.title_sensitive_apps and the built-in browser names) and the
  /// own-page tag are the controller's (Controller::rules), not compiled again.
  /// Never throws (bar std::bad_alloc).
  WindowJoin(Controller& controller, const Clock& clock);

  /// The own-page tags served before this start (TokenFile::recordPageTag):
  /// a window whose title carries "AntiDrift <earlier tag>" reaches the
  /// Controller with the current tag (drift::Rules::ownPageTag) in its place, so a tab opened
  /// before a token rotation and a restart stays AntiDrift's own page (neutral, never judged,
  /// remembered or scored) until it reloads with the new tag; the drift rules then decide as for
  /// the current tag. Call before any window arrives; not thread-safe against recordWindow.
  void setEarlierPageTags(std::vector<std::string> tags);

  /// A window observation from any source: joined when a recent tab describes
  /// it (domain, or privateWindow for an incognito tab), then given to
  /// Controller::recordWindow. An observation that already names a domain or
  /// is already private is passed on as it is.
  void recordWindow(Observation observation);

  /// The latest heartbeat of the web bucket `bucket` (an incognito tab's URL
  /// is dropped at once: only its title is kept, for the match). When it makes
  /// the last window join to a domain or the private mark it did not have, that
  /// window is given to the Controller again with atMs 0 (now); a tab that no
  /// longer matches takes nothing away from it.
  void recordTab(const std::string& bucket, WebTabHeartbeat tab);

 private:
  struct Tab {
    WebTabHeartbeat heartbeat;
    std::int64_t seenMono = 0;  ///< monotonic ms of receipt
  };
  /// What a window joins to now.
  struct Joined {
    std::string domain;
    bool privateWindow = false;
    bool operator==(const Joined& other) const {
      return domain == other.domain && privateWindow == other.privateWindow;
    }
  };

  Joined joinLocked(const Observation& window, std::int64_t nowMono) const;
  void deliverLocked(const Observation& window, const Joined& joined, bool now);
  /// `title` with an earlier own-page tag after "AntiDrift " replaced by pageTag_.
  std::string withCurrentPageTag(std::string title) const;

  Controller& controller_;
  const Clock& clock_;
  const drift::Rules& rules_;             ///< controller_.rules()
  const std::string& pageTag_;            ///< rules_.ownPageTag()
  std::vector<std::string> earlierTags_;  ///< setEarlierPageTags
  std::mutex mutex_;
  std::map<std::string, Tab> tabs_;  // guarded by mutex_; bucket id → latest heartbeat
  /// The last window received, as received (guarded by mutex_), and what it was
  /// delivered with.
  std::optional<Observation> window_;
  Joined delivered_;
};

}  // namespace antidrift
