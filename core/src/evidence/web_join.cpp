#include "antidrift/evidence/web_join.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>
#include <libpsl.h>

#include "antidrift/evidence/observation.h"
#include "antidrift/text/utf8.h"

namespace antidrift {
namespace {

std::string_view trimSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string asciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// A host name's bytes: ASCII letters, digits, '-', '.', '_' (seen in real
/// host names), ':' (an IPv6 literal) and the bytes of valid UTF-8 (an IDN
/// written in Unicode). Anything else (space, '@', '/', '%', controls) is not a host.
bool isHostText(std::string_view host) {
  for (const char c : host) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80) continue;  // checked as UTF-8 below
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                    c == '_' || c == ':';
    if (!ok) return false;
  }
  std::size_t pos = 0;
  while (pos < host.size()) {
    if (text::decodeOne(host, pos) == text::kReplacementCharacter) return false;  // invalid UTF-8
  }
  return true;
}

/// The spaced dashes a browser puts between a page's title and its own name.
constexpr std::string_view kSeparators[] = {" - ", " \xE2\x80\x93 ", " \xE2\x80\x94 "};

}  // namespace

std::string domainOfUrl(std::string_view url) {
  const std::string_view trimmed = trimSpaces(url);
  if (trimmed.empty() || trimmed.size() > 8192) return {};
  Poco::URI uri;
  try {
    uri = Poco::URI(std::string(trimmed));
  } catch (const Poco::Exception&) {
    return {};
  }
  const std::string scheme = asciiLower(uri.getScheme());
  if (scheme != "http" && scheme != "https") return {};
  std::string host = asciiLower(uri.getHost());
  while (!host.empty() && host.back() == '.') host.pop_back();  // "example.com." is example.com
  if (host.rfind("www.", 0) == 0) host.erase(0, 4);
  if (host.empty() || !isHostText(host)) return {};
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 literal
  if (host.size() > kMaxDomainBytes) return {};
  return host;
}

std::string registrableDomain(std::string_view host) {
  if (host.empty() || host.front() == '[') return {};  // nothing, or an IPv6 literal
  const psl_ctx_t* list = psl_builtin();
  if (list == nullptr) return {};
  const std::string key(host);
  const char* domain = psl_registrable_domain(list, key.c_str());
  return domain == nullptr ? std::string() : std::string(domain);
}

std::vector<std::string> webTabTitleCandidates(std::string_view windowTitle) {
  const std::string sanitized = sanitizeTitle(windowTitle);
  const std::string_view title = trimSpaces(sanitized);
  std::vector<std::string> candidates;
  if (title.empty()) return candidates;
  candidates.emplace_back(title);
  // Every spaced dash, from the last to the first: longest prefix first.
  std::size_t end = title.size();
  while (end > 0) {
    std::size_t best = std::string_view::npos;
    for (const std::string_view separator : kSeparators) {
      const std::size_t at = title.rfind(separator, end - 1);
      if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) best = at;
    }
    if (best == std::string_view::npos) break;
    const std::string_view prefix = trimSpaces(title.substr(0, best));
    if (!prefix.empty() && prefix != candidates.back()) candidates.emplace_back(prefix);
    end = best;
  }
  return candidates;
}

std::optional<WebJoin> joinWebTab(std::string_view windowTitle, std::string_view tabTitle,
                                  std::string_view url, bool incognito) {
  const std::string sanitizedTab = sanitizeTitle(tabTitle);
  const std::string_view tab = trimSpaces(sanitizedTab);
  if (tab.empty()) return std::nullopt;
  for (const std::string& candidate : webTabTitleCandidates(windowTitle)) {
    if (candidate != tab) continue;
    WebJoin join;
    join.privateWindow = incognito;
    // A private tab's domain too: admission keeps it from everything but
    // the local tiers (docs/DESIGN.md §4 "Private windows").
    join.domain = domainOfUrl(url);
    join.matchedBytes = tab.size();
    return join;
  }
  return std::nullopt;
}

}  // namespace antidrift
