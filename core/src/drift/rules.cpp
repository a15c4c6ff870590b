#include "antidrift/drift/rules.h"

#include <stdexcept>

#include <Poco/DigestEngine.h>
#include <Poco/Exception.h>
#include <Poco/HMACEngine.h>
#include <Poco/RegularExpression.h>
#include <Poco/SHA2Engine.h>
#include <Poco/String.h>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/text/normalize.h"

namespace antidrift::drift {
namespace {

/// The longest match a blocked-title reason quotes, in bytes; a longer one is named by its rule.
constexpr std::size_t kMaxMatchShown = 60;

// The names of the apps in `rawApps`, normalised; blank entries (which
// normalizeApp() would turn into "unknown") are left out.
std::set<std::string, std::less<>> normalizeApps(const std::vector<std::string>& rawApps) {
  std::set<std::string, std::less<>> apps;
  for (const std::string& raw : rawApps) {
    if (text::normalizeUnicode(sanitizeTitle(raw)).empty()) continue;
    apps.insert(normalizeApp(raw));
  }
  return apps;
}

bool isAsciiAlphanumeric(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// True for the normalised title of AntiDrift's own page: `ownKey` ("antidrift
// <tag>"), or a title ending in it as a word ("drifting · antidrift <tag>").
bool isOwnPageKey(std::string_view key, std::string_view ownKey) {
  if (ownKey.empty()) return false;
  if (key.size() < ownKey.size() || key.substr(key.size() - ownKey.size()) != ownKey) return false;
  return key.size() == ownKey.size() || !isAsciiAlphanumeric(key[key.size() - ownKey.size() - 1]);
}

// SHA-256 as Poco's HMACEngine wants it (a default-constructible engine).
class Sha256 : public Poco::SHA2Engine {
 public:
  enum { BLOCK_SIZE = 64, DIGEST_SIZE = 32 };
  Sha256() : Poco::SHA2Engine(Poco::SHA2Engine::SHA_256) {}
};

}  // namespace

Rules::Rules(const Settings& settings)
    : blockedApps_(normalizeApps(settings.blockedApps)),
      titleSensitiveApps_(normalizeApps(settings.titleSensitiveApps)),
      lockScreenApps_(normalizeApps(settings.lockScreenApps)),
      neverSendApps_(normalizeApps(settings.neverSendApps)),
      privateWindows_(settings.privateWindows),
      ownPageTag_(settings.ownPageTag),
      ownPageKey_(settings.ownPageTag.empty()
                      ? std::string()
                      : "antidrift " + text::foldCase(settings.ownPageTag)) {
  for (const auto& [name, pattern] : settings.blockedTitles) {  // std::map: name order
    if (pattern.empty()) continue;                              // rule off
    try {
      // A budget per match (issue 19 item 7, review L5): PCRE's own
      // start-of-pattern limits, far below its default of 10,000,000 steps, so
      // a pathological pattern against a crafted title gives up in about a
      // millisecond instead of holding the controller's lock for a second.
      blockedTitles_.push_back(TitlePattern{
          name, std::make_shared<const Poco::RegularExpression>(
                    std::string(kMatchBudget) + pattern,
                    Poco::RegularExpression::RE_CASELESS | Poco::RegularExpression::RE_UTF8)});
    } catch (const Poco::Exception& error) {
      throw std::invalid_argument("drift.blocked_titles." + name + ": " + error.message());
    }
  }
}

WindowKind Rules::classify(const Observation& obs) const {
  if (obs.app == "unknown" && text::normalizeUnicode(obs.title).empty()) {
    return WindowKind::Unreadable;
  }
  if (lockScreenApps_.count(obs.app) > 0) return WindowKind::LockScreen;
  if (isPerPage(obs) && isOwnPageKey(normalizeTitle(obs.title), ownPageKey_)) {
    return WindowKind::OwnPage;
  }
  return WindowKind::Normal;
}

std::optional<std::string> Rules::blockedReason(const Observation& obs) const {
  if (blockedApps_.count(obs.app) > 0) return obs.app + " is blocked during focus";
  // A private window's title was dropped on entry; its raw title was matched then.
  if (!obs.blockedTitle.empty()) return obs.blockedTitle;
  if (obs.titleRulesChecked) return std::nullopt;  // matched on entry (admitWindow)
  return blockedTitleReason(obs);
}

std::optional<std::string> Rules::blockedTitleReason(const Observation& obs) const {
  if (blockedTitles_.empty()) return std::nullopt;
  const std::string title = text::normalizeUnicode(obs.title);  // valid UTF-8
  for (const TitlePattern& pattern : blockedTitles_) {
    Poco::RegularExpression::Match match;
    try {
      if (pattern.regex->match(title, 0, match) > 0) {
        // What matched, as the person reads it (issue 17 item 4); never a
        // private window's text, and only a short, non-empty match.
        const bool nameable = !obs.privateWindow && match.offset != std::string::npos &&
                              match.length > 0 && match.length <= kMaxMatchShown;
        if (!nameable) return "the title matches the blocked pattern \"" + pattern.name + "\"";
        std::string matched = Poco::trim(title.substr(match.offset, match.length));
        if (matched.empty())
          return "the title matches the blocked pattern \"" + pattern.name + "\"";
        return "\"" + matched + "\" in the title is blocked (drift.blocked_titles." + pattern.name +
               ")";
      }
    } catch (const Poco::RegularExpressionException&) {
      // The match budget ran out on a pathological title: no match, counted.
      gaveUp_->fetch_add(1, std::memory_order_relaxed);
    }
  }
  return std::nullopt;
}

std::uint64_t Rules::matchesGivenUp() const {
  return gaveUp_->load(std::memory_order_relaxed);
}

bool Rules::isTitleSensitive(std::string_view app) const {
  return titleSensitiveApps_.count(app) > 0;
}

namespace {

// Windows browser classes (ActivityWatch reports the executable name).
constexpr std::string_view kBrowserExecutables[] = {"firefox.exe",   "chrome.exe",  "msedge.exe",
                                                    "brave.exe",     "opera.exe",   "vivaldi.exe",
                                                    "librewolf.exe", "waterfox.exe"};

// The suffixes browsers append to a page's title, after a dash.
constexpr std::string_view kBrowserSuffixes[] = {"Mozilla Firefox",
                                                 "Firefox Developer Edition",
                                                 "Firefox Nightly",
                                                 "Google Chrome",
                                                 "Chromium",
                                                 "Microsoft Edge",
                                                 "Microsoft\xE2\x80\x8B Edge",
                                                 "Brave",
                                                 "Vivaldi",
                                                 "Opera",
                                                 "Mozilla Firefox Private Browsing"};

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// True when `title` ends in " <dash> <browser name>" (the raw title: cheap,
// no normalisation on the hot path).
bool hasBrowserSuffix(std::string_view title) {
  while (!title.empty() && title.back() == ' ') title.remove_suffix(1);
  for (const std::string_view suffix : kBrowserSuffixes) {
    if (!endsWith(title, suffix)) continue;
    std::string_view before = title.substr(0, title.size() - suffix.size());
    if (before.empty() || before.back() != ' ') continue;
    before.remove_suffix(1);
    for (const std::string_view dash : {std::string_view("-"), std::string_view("\xE2\x80\x93"),
                                        std::string_view("\xE2\x80\x94")}) {
      if (endsWith(before, dash)) return true;
    }
  }
  return false;
}

}  // namespace

bool Rules::isPerPage(const Observation& obs) const {
  if (isTitleSensitive(obs.app)) return true;
  for (const std::string_view exe : kBrowserExecutables) {
    if (obs.app == exe) return true;
  }
  return hasBrowserSuffix(obs.title);
}

bool Rules::neverSend(std::string_view app) const {
  return neverSendApps_.count(app) > 0;
}

std::string ownPageTag(std::string_view token) {
  if (token.empty()) return {};
  Poco::HMACEngine<Sha256> hmac{std::string(token)};
  hmac.update(std::string("antidrift own page title"));
  return Poco::DigestEngine::digestToHex(hmac.digest()).substr(0, 8);
}

bool isPrivateWindow(std::string_view app, std::string_view title) {
  const std::string normalizedApp = normalizeApp(app);
  if (normalizedApp == "tor browser" || normalizedApp == "torbrowser") return true;
  // Each browser's own marker, where only the browser writes it: after its
  // name at the very end of the window title (issue 19 item 3). A page's
  // title cannot reach there, so "I went incognito - YouTube — Mozilla
  // Firefox" is an ordinary window.
  const std::string folded = text::foldCase(title);
  static const std::string kPlaceholder = text::foldCase(kPrivateWindowTitle);
  if (folded == kPlaceholder) return true;  // already replaced
  static constexpr std::string_view kBrowsers[] = {
      "mozilla firefox", "firefox",   "firefox developer edition",
      "firefox nightly", "librewolf", "waterfox",
      "google chrome",   "chromium",  "brave",
      "vivaldi",         "opera",     "microsoft edge"};
  static constexpr std::string_view kMarkers[] = {" private browsing", " (private browsing)",
                                                  " (incognito)", " (private)", " (inprivate)"};
  for (const std::string_view marker : kMarkers) {
    if (!endsWith(folded, marker)) continue;
    const std::string_view before =
        std::string_view(folded).substr(0, folded.size() - marker.size());
    for (const std::string_view browser : kBrowsers) {
      if (endsWith(before, browser)) return true;
    }
  }
  // Edge: "Page - [InPrivate] - Microsoft Edge" (its profile's place).
  for (const std::string_view edge : {std::string_view("[inprivate] - microsoft edge"),
                                      std::string_view("inprivate - microsoft edge")}) {
    if (endsWith(folded, edge)) return true;
  }
  return false;
}

}  // namespace antidrift::drift
