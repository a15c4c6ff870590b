/// @file rules.h
/// The local drift rules: what kind of window an observation shows, and the
/// hard rules that need no AI (docs/DESIGN.md §4 step 1; issue 6 items 3 and 5).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "antidrift/evidence/observation.h"
#include "antidrift/settings.h"

namespace Poco {
class RegularExpression;
}

namespace antidrift::drift {

/// What kind of window an observation shows (issue 6 items 3 and 8).
enum class WindowKind {
  Normal,      ///< an ordinary window: the drift rules apply
  Unreadable,  ///< app "unknown" and an empty title: says nothing, never judged
  LockScreen,  ///< a lock screen or screensaver: says nothing, never judged
  OwnPage,     ///< AntiDrift's own page in a browser tab: neutral, never drift
};

/// The local rules compiled from the settings. Immutable after construction,
/// so one instance may be used from many threads at once (const methods
/// only); cheap to copy (compiled patterns are shared).
class Rules {
 public:
  /// Compiles settings.blockedApps, blockedTitles (name → PCRE,
  /// case-insensitive, UTF-8; empty = off), titleSensitiveApps,
  /// lockScreenApps and neverSendApps (core/include/antidrift/settings.h). App
  /// names go through normalizeApp(); blank entries are ignored. Throws
  /// std::invalid_argument naming the key ("drift.blocked_titles.<name>:
  /// <reason>") for a pattern that does not compile (docs/DESIGN.md §4 step 1).
  explicit Rules(const Settings& settings);

  /// Unreadable: app "unknown" and an empty title (only white space or
  /// invisible characters counts as empty) — a window that cannot be read;
  /// LockScreen: app in lockScreenApps; OwnPage: AntiDrift's own page in a
  /// browser tab — a per-page window whose normalizeTitle() is "antidrift
  /// <tag>" or ends with it after a non-alphanumeric character, where <tag>
  /// is settings.ownPageTag (issue 19 item 3: a tag only the served page
  /// knows, so no other page can title itself into the exemption; never with
  /// an empty tag); else Normal. Checked in that order. The hard rules come
  /// before the OwnPage exemption in Engine::observe. `obs.app` is already
  /// normalised (issue 6 items 3 and 8).
  WindowKind classify(const Observation& obs) const;

  /// A hard rule that fires (docs/DESIGN.md §4 step 1): "<app> is blocked during
  /// focus" for an app in blockedApps, else `obs.blockedTitle` (the title
  /// rules' result on entry: admitWindow), else — unless
  /// `obs.titleRulesChecked` (then nullopt, and no pattern runs) —
  /// blockedTitleReason(obs).
  /// `obs.app` is already normalised. Never throws for any title.
  std::optional<std::string> blockedReason(const Observation& obs) const;

  /// The drift.blocked_titles rule alone (issue 19 item 7, review L5: what
  /// admitWindow runs before the Controller's lock): for the
  /// first blockedTitles pattern (in name order) found in the title (in
  /// text::normalizeUnicode form), what matched: "\"<match>\" in the title
  /// is blocked (drift.blocked_titles.<name>)" (issue 17 item 4) — or "the
  /// title matches the blocked pattern \"<name>\"" for a private window (its
  /// text is never shown), an empty match or one over 60 bytes; nullopt
  /// otherwise. Thread-safe; never throws for any title.
  std::optional<std::string> blockedTitleReason(const Observation& obs) const;

  /// How many blockedTitles matches gave up on their budget (issue 19 item 7,
  /// review L5): each pattern runs with PCRE's (*LIMIT_MATCH=100000) and
  /// (*LIMIT_RECURSION=10000), and a title that exhausts them counts as no
  /// match. Shared by copies of these Rules. Thread-safe.
  std::uint64_t matchesGivenUp() const;

  /// True when `app` (already normalised) is judged per normalised title
  /// (drift.title_sensitive_apps; docs/DESIGN.md §4 step 3).
  bool isTitleSensitive(std::string_view app) const;

  /// True when `obs` is a browser window judged per page (issue 16 item 2):
  /// its app is title-sensitive, or a Windows browser class (firefox.exe,
  /// chrome.exe, msedge.exe, brave.exe, opera.exe, vivaldi.exe,
  /// librewolf.exe, waterfox.exe), or its title ends in a browser's own
  /// suffix after a dash (" - Mozilla Firefox", " — Firefox Developer
  /// Edition", " - Google Chrome", " - Chromium", " - Microsoft Edge", with
  /// or without a zero-width space, " - Brave", " - Vivaldi", " - Opera").
  /// `obs.app` is already normalised. Pure; thread-safe.
  bool isPerPage(const Observation& obs) const;

  /// True when `app` (already normalised) is judged by local rules only: its
  /// titles never go to the AI (privacy.never_send_apps; docs/DESIGN.md §8).
  bool neverSend(std::string_view app) const;

  /// drift.private_windows: how far a private window's raw title reaches
  /// (docs/DESIGN.md §4 "Private windows"). Pure.
  Settings::PrivateWindows privateWindows() const { return privateWindows_; }

  /// settings.ownPageTag, as given ("" = no own page): what the window join
  /// writes in place of an earlier tag (server/window_join.h). Pure.
  const std::string& ownPageTag() const { return ownPageTag_; }

 private:
  using AppSet = std::set<std::string, std::less<>>;

  /// One compiled drift.blocked_titles entry.
  struct TitlePattern {
    std::string name;
    std::shared_ptr<const Poco::RegularExpression> regex;
  };

  AppSet blockedApps_;
  std::vector<TitlePattern> blockedTitles_;  ///< in name order
  AppSet titleSensitiveApps_;
  AppSet lockScreenApps_;
  AppSet neverSendApps_;
  Settings::PrivateWindows privateWindows_ = Settings::PrivateWindows::Ask;
  std::string ownPageTag_;  ///< settings.ownPageTag
  std::string ownPageKey_;  ///< "antidrift <tag>"; "" = no own page (no tag)
  /// Matches that gave up on their budget (matchesGivenUp()).
  std::shared_ptr<std::atomic<std::uint64_t>> gaveUp_ =
      std::make_shared<std::atomic<std::uint64_t>>(0);
};

/// What every drift.blocked_titles pattern starts with: PCRE's own match
/// budget (issue 19 item 7, review L5).
inline constexpr std::string_view kMatchBudget = "(*LIMIT_MATCH=100000)(*LIMIT_RECURSION=10000)";

/// The tag that marks AntiDrift's own page in a window title (issue 19 item
/// 3): the first 8 hex digits (lower case) of HMAC-SHA256(`token`,
/// "antidrift own page title"). Only a holder of the token (the served page,
/// which has it injected) can know it; it reveals nothing usable about the
/// token. "" for an empty token. Pure; thread-safe.
std::string ownPageTag(std::string_view token);

/// True for a private-browsing window, by each browser's own marker where only
/// the browser writes it (issue 19 item 3; issue 6 item 5): the title (in
/// text::foldCase form) ends in a browser's name followed by " Private
/// Browsing", " (Private Browsing)", " (Incognito)", " (Private)" or
/// " (InPrivate)" ("… — Mozilla Firefox Private Browsing", "… - Chromium
/// (Incognito)"), or in "[InPrivate] - Microsoft Edge"; or the title is
/// kPrivateWindowTitle; or the app (raw or normalised) is Tor Browser. A word
/// in a page's own title ("I went incognito - YouTube — Mozilla Firefox") is
/// not a marker. Pure; thread-safe; never throws.
bool isPrivateWindow(std::string_view app, std::string_view title);

/// What replaces a private window's title on entry (never stored, shown,
/// logged or sent; issue 6 item 5).
inline constexpr std::string_view kPrivateWindowTitle = "Private browsing window";

}  // namespace antidrift::drift
