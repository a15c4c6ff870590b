/// @file observation.h
/// What a window source reports (docs/DESIGN.md §3 "Evidence").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace antidrift {

/// The byte cap on a sanitised title (docs/DESIGN.md §3).
inline constexpr std::size_t kMaxTitleBytes = 512;

/// One look at the foreground window.
struct Observation {
  std::int64_t atMs = 0;  ///< when it was seen, UTC ms
  std::string app;        ///< window class, normalised by normalizeApp()
  std::string title;      ///< window title, sanitised by sanitizeTitle()
  std::string source;     ///< "x11", "http", "activitywatch"
  /// The site of the page a browser window shows (issue 16 item 4): the host
  /// of the tab's URL as domainOfUrl() gives it (lower-cased, no "www.", no
  /// port, never a path, query or fragment), joined from an aw-watcher-web
  /// heartbeat (evidence/web_join.h); empty when unknown, and always for a
  /// private window.
  std::string domain{};  // (a default, so Observation{at, app, title, source} stays complete)
  /// A source knows this window is private (an incognito tab was joined to
  /// it): the Controller treats it as drift::isPrivateWindow() does — its
  /// title replaced, no domain (issue 6 item 5, issue 16 item 4).
  bool privateWindow = false;
  /// The window's title (for a private window its raw title, before it was
  /// dropped; issue 19 item 3) matched drift.blocked_titles on entry: the
  /// hard rule's reason; "" else. Set with titleRulesChecked by
  /// drift::admitWindow, never by a source.
  std::string blockedTitle{};
  /// drift.blocked_titles already ran on this window on entry
  /// (drift::admitWindow), and blockedTitle is their result: the drift engine
  /// runs no pattern on it again, so none runs under the Controller's lock
  /// (issue 19 item 7, review L5).
  bool titleRulesChecked = false;
  /// A private window's raw title and site (docs/DESIGN.md §4 "Private
  /// windows"), kept by drift::admitWindow for the local tiers only, in
  /// memory: never stored, shown, logged, exported or sent (nothing
  /// serialises them). Empty for any other window, and with
  /// drift.private_windows = ignore.
  std::string localTitle{};
  std::string localDomain{};  ///< see localTitle
};

/// Makes raw title bytes safe (docs/DESIGN.md §3): each invalid UTF-8 sequence becomes
/// U+FFFD, C0/C1 control characters and DEL are dropped (tab and newlines too),
/// and the result is cut to at most kMaxTitleBytes bytes on a character
/// boundary. Pure; thread-safe; never throws.
std::string sanitizeTitle(std::string_view raw);

/// Normalises a window class so that one app has one name (docs/DESIGN.md §3; issue 6
/// item 3): sanitised like a title (sanitizeTitle), then in the one normal form
/// of text::normalizeUnicode (NFC, zero-width and bidi characters removed,
/// white space folded and trimmed) and case-folded (text::foldCase); an empty
/// result becomes "unknown". So "Code\u200B" and a decomposed "Codé" name the
/// same app as "code" and "codé". Allowed, blocked and never-send lists are
/// compared in this form. Pure; thread-safe; never throws.
std::string normalizeApp(std::string_view raw);

}  // namespace antidrift
