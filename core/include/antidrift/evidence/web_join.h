/// @file web_join.h
/// Browser URL evidence (issue 16 item 4): what an aw-watcher-web heartbeat
/// (`web.tab.current`: url, title, incognito) adds to the browser window it
/// describes. One rule, used by the daemon (server/window_join.h) and the
/// replay (replay::joinWebEvents) alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace antidrift {

/// How long a tab heartbeat describes the browser, ms: three of
/// aw-watcher-web's 60 s heartbeats (it reports the active tab every minute and
/// at once when a tab is activated). A window observation joins only a tab
/// heard of within this long; in the replay, a web event joins a window event
/// that starts at most this long after the web event ended.
inline constexpr std::int64_t kWebTabFreshMs = 180'000;

/// The longest domain kept, bytes (a DNS name is at most 253).
inline constexpr std::size_t kMaxDomainBytes = 253;

/// The site of `url`: its host, lower-cased (ASCII), without a leading
/// "www." and without the port — never the user info, path, query or
/// fragment. Empty when the URL cannot be parsed (Poco::URI), has no host, or
/// its scheme is not http or https (file:, about:, chrome:, moz-extension:,
/// data:, …). An IDN host stays as given (punycode "xn--…" stays punycode; a
/// Unicode host is kept, lower-cased in ASCII only). A host longer than
/// kMaxDomainBytes or with characters outside printable ASCII and UTF-8 is
/// refused (empty). Examples: "https://www.YouTube.com:443/watch?v=x#t" →
/// "youtube.com"; "http://[::1]:8080/" → "[::1]"; "file:///etc/passwd" → "".
/// Pure; thread-safe; never throws.
std::string domainOfUrl(std::string_view url);

/// The registrable domain of `host` (a domainOfUrl() result): the public
/// suffix plus one label, from the public suffix list built into libpsl
/// (psl_builtin(), psl_registrable_domain): "m.youtube.com" → "youtube.com",
/// "i.redd.it" → "redd.it", "news.bbc.co.uk" → "bbc.co.uk", "me.github.io" →
/// "me.github.io" (github.io is a public suffix). "" when `host` is empty,
/// an IP literal, itself a public suffix ("co.uk"), or libpsl has no built-in
/// list. Used to match URL evidence to a known distraction by its site, not
/// its host (docs/DESIGN.md §4, known distractions). Pure; thread-safe (the
/// built-in list is immutable); never throws (bar std::bad_alloc).
std::string registrableDomain(std::string_view host);

/// The tab titles that describe a window titled `windowTitle`: the title
/// itself, and each part of it that is followed by a browser's own suffix
/// after a spaced dash (" - ", " – ", " — "), longest first. So
/// "Barba JS - YouTube — Mozilla Firefox" gives "Barba JS - YouTube — Mozilla
/// Firefox", "Barba JS - YouTube", "Barba JS". Both sides are compared as
/// sanitizeTitle() makes them, white space at either end ignored. Pure;
/// thread-safe.
std::vector<std::string> webTabTitleCandidates(std::string_view windowTitle);

/// What a tab adds to a window it describes.
struct WebJoin {
  /// The tab is incognito / private: the window is a private window (its title
  /// is replaced and its domain kept for the local tiers only, in memory:
  /// docs/DESIGN.md §4 "Private windows", drift::admitWindow).
  bool privateWindow = false;
  /// domainOfUrl(tab url), a private window's too (admission hides it). May be empty
  /// for a matching tab whose URL names no web site (about:blank, file:).
  std::string domain;
  /// The length in bytes of the tab title that matched: a longer match is the
  /// better one when several tabs match a window.
  std::size_t matchedBytes = 0;
};

/// The join rule (issue 16 item 4): a tab titled `tabTitle` describes the
/// browser window titled `windowTitle` when its (non-blank) title is one of
/// webTabTitleCandidates(windowTitle). Then the domain is domainOfUrl(url), and
/// an incognito tab makes the window private (drift::admitWindow keeps the
/// domain from everything but the local tiers).
/// nullopt when the titles do not match. Whether the window is a browser's
/// (drift::Rules::isPerPage) and whether the tab is recent are the caller's
/// checks. Pure; thread-safe; never throws.
std::optional<WebJoin> joinWebTab(std::string_view windowTitle, std::string_view tabTitle,
                                  std::string_view url, bool incognito);

}  // namespace antidrift
