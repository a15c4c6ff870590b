#include "antidrift/drift/distractions.h"

#include <algorithm>
#include <stdexcept>

#include "antidrift/drift/title_normalizer.h"
#include "antidrift/evidence/web_join.h"
#include "antidrift/text/normalize.h"

namespace antidrift::drift {
namespace {

std::string trim(std::string_view text) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return std::string(text);
}

std::string lowerAscii(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::vector<std::string> splitList(std::string_view list) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = list.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? list.size() : comma;
    std::string item = trim(list.substr(start, end - start));
    if (!item.empty()) items.push_back(std::move(item));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

/// A host as compared: lower case, no trailing dot, no "www.".
std::string hostKey(std::string_view host) {
  std::string key = lowerAscii(trim(host));
  while (!key.empty() && key.back() == '.') key.pop_back();
  if (key.rfind("www.", 0) == 0) key.erase(0, 4);
  return key;
}

/// True when `text` could be a host name: a dot, no space, no slash.
bool looksLikeDomain(std::string_view text) {
  return text.find('.') != std::string_view::npos && text.find(' ') == std::string_view::npos &&
         text.find('/') == std::string_view::npos && text.front() != '.' && text.back() != '.';
}

// The separators a page's title puts before the site's name (in foldCase form).
constexpr std::string_view kSeparators[] = {" - ",
                                            " \xE2\x80\x93 ",  // en dash
                                            " \xE2\x80\x94 ",  // em dash
                                            " | ",
                                            " / ",
                                            " \xC2\xB7 ",       // middle dot
                                            " \xE2\x80\xA2 "};  // bullet

/// The parts of `key` between its separators, the last first; "" when it has
/// none. Edge's " and 2 more pages" after a part is dropped.
std::vector<std::string_view> partsLastFirst(std::string_view key) {
  std::vector<std::string_view> parts;
  std::size_t end = key.size();
  while (true) {
    std::size_t best = std::string_view::npos;
    std::size_t length = 0;
    for (const std::string_view separator : kSeparators) {
      if (end < separator.size()) continue;
      const std::size_t at = key.substr(0, end).rfind(separator);
      if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) {
        best = at;
        length = separator.size();
      }
    }
    if (best == std::string_view::npos) {
      if (!parts.empty()) parts.push_back(key.substr(0, end));
      break;
    }
    parts.push_back(key.substr(best + length, end - best - length));
    end = best;
  }
  for (std::string_view& part : parts) {
    // "youtube and 2 more pages" (Edge names the other tabs of its window).
    const std::size_t more = part.find(" and ");
    if (more != std::string_view::npos && part.find(" more ", more) != std::string_view::npos) {
      part = part.substr(0, more);
    }
  }
  return parts;
}

/// True when `title` is a Microsoft Edge window's (its own suffix, as
/// text::foldCase leaves it: the zero-width space Edge may write removed).
bool isEdgeTitle(std::string_view title) {
  const std::string folded = text::foldCase(title);
  constexpr std::string_view kEdge = "microsoft edge";
  return folded.size() >= kEdge.size() &&
         folded.compare(folded.size() - kEdge.size(), kEdge.size(), kEdge) == 0;
}

}  // namespace

std::vector<DistractionSite> parseDistractions(std::istream& in, const std::string& name) {
  std::vector<DistractionSite> sites;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string trimmed = trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const std::string where = name + " line " + std::to_string(number);
    const std::size_t first = trimmed.find('|');
    const std::size_t second =
        first == std::string::npos ? std::string::npos : trimmed.find('|', first + 1);
    if (second == std::string::npos || trimmed.find('|', second + 1) != std::string::npos) {
      throw std::invalid_argument(where +
                                  ": expected three fields separated by '|' "
                                  "(category | domains | names)");
    }
    DistractionSite site;
    site.category = lowerAscii(trim(std::string_view(trimmed).substr(0, first)));
    if (site.category.empty()) throw std::invalid_argument(where + ": the category is empty");
    for (std::string& domain :
         splitList(std::string_view(trimmed).substr(first + 1, second - first - 1))) {
      domain = hostKey(domain);
      if (!looksLikeDomain(domain)) {
        throw std::invalid_argument(where + ": \"" + domain + "\" is not a domain");
      }
      site.domains.push_back(std::move(domain));
    }
    site.names = splitList(std::string_view(trimmed).substr(second + 1));
    if (site.domains.empty() && site.names.empty()) {
      throw std::invalid_argument(where + ": a site needs a domain or a name");
    }
    sites.push_back(std::move(site));
  }
  return sites;
}

DistractionSite distractionFromList(const std::string& category, const std::string& list) {
  DistractionSite site;
  site.category = lowerAscii(trim(category));
  for (std::string& item : splitList(list)) {
    const std::string host = hostKey(item);
    if (looksLikeDomain(host)) {
      site.domains.push_back(host);
    } else {
      site.names.push_back(std::move(item));
    }
  }
  return site;
}

Distractions::Distractions(const Settings& settings) {
  std::set<std::string> categories;
  for (const std::string& category : settings.distractionCategories) {
    categories.insert(lowerAscii(trim(category)));
  }
  for (const DistractionSite& site : settings.distractionSites) {
    if (categories.count(lowerAscii(site.category)) == 0) continue;
    const std::size_t index = sites_.size();
    sites_.push_back(site);
    for (const std::string& domain : site.domains) byDomain_.emplace(hostKey(domain), index);
    for (const std::string& name : site.names) {
      std::string folded = text::foldCase(name);
      if (!folded.empty()) byName_.emplace(std::move(folded), index);
    }
  }
}

std::optional<DistractionMatch> Distractions::byName(std::string_view folded,
                                                     const char* how) const {
  if (folded.empty()) return std::nullopt;
  const auto found = byName_.find(std::string(folded));
  if (found != byName_.end()) {
    const DistractionSite& site = sites_[found->second];
    const std::string shown = site.names.empty() ? site.domains.front() : site.names.front();
    return DistractionMatch{site.category, shown, std::string(how) + shown};
  }
  if (looksLikeDomain(folded)) return byDomain(folded);
  return std::nullopt;
}

std::optional<DistractionMatch> Distractions::byDomain(std::string_view host) const {
  std::string key = hostKey(host);
  // The host, then each parent down to its registrable domain (the public
  // suffix list's, through libpsl): m.youtube.com → youtube.com, i.redd.it →
  // redd.it; never a public suffix itself (co.uk, github.io).
  const std::string registrable = registrableDomain(key);
  while (!key.empty()) {
    const auto found = byDomain_.find(key);
    if (found != byDomain_.end()) {
      const DistractionSite& site = sites_[found->second];
      return DistractionMatch{site.category,
                              site.names.empty() ? site.domains.front() : site.names.front(),
                              "the page is on " + key};
    }
    if (registrable.empty() || key == registrable || key.find('.') == std::string::npos) break;
    key.erase(0, key.find('.') + 1);
  }
  return std::nullopt;
}

std::optional<DistractionMatch> Distractions::postOn(std::string_view key, bool whole) const {
  // "<someone> on <site>: <post>", as posts on Twitter, Instagram and others
  // are titled: the site's writing when it is the whole title, or when the
  // post follows in quotes (whose text may hold any separator).
  for (std::size_t at = key.find(" on "); at != std::string_view::npos;
       at = key.find(" on ", at + 1)) {
    const std::size_t start = at + 4;
    const std::size_t colon = key.find(':', start);
    if (colon == std::string_view::npos) break;
    if (colon - start > 30) continue;
    const std::string_view after = key.substr(colon + 1);
    const bool quoted = after.rfind(" \"", 0) == 0 || after.rfind(" \xE2\x80\x9C", 0) == 0;
    if (!whole && !quoted) continue;
    if (auto post = byName(key.substr(start, colon - start), "the title names ")) return post;
  }
  return std::nullopt;
}

std::optional<DistractionMatch> Distractions::match(const Observation& obs, bool perPage) const {
  if (sites_.empty()) return std::nullopt;
  if (auto app = byName(obs.app, "the app is ")) return app;
  if (!perPage) return std::nullopt;
  if (!obs.domain.empty()) {
    // URL evidence names the site exactly: the title is not second-guessed.
    return byDomain(obs.domain);
  }
  const std::string key = normalizeTitle(obs.title);
  if (key.empty()) return std::nullopt;
  // A site writes its name in its titles' site suffix, or as the whole title;
  // a name elsewhere in a title is the page's words ("Twitter - Google Docs"
  // is a document, "#twitter - Slack" a channel).
  if (auto whole = byName(key, "the title names ")) return whole;
  const std::vector<std::string_view> parts = partsLastFirst(key);
  if (auto post = postOn(key, parts.empty())) return post;
  if (!parts.empty()) {
    if (auto suffix = byName(parts[0], "the title names ")) return suffix;
    // Edge writes the profile's name after the page's ("Clip - YouTube -
    // Work - Microsoft Edge"): its site suffix is the part before.
    if (parts.size() >= 3 && isEdgeTitle(obs.title)) {
      if (auto suffix = byName(parts[1], "the title names ")) return suffix;
    }
    return std::nullopt;
  }
  // A title without a suffix is all the site's writing; some sites put their
  // name first: "<site>: <page>" ("windy: weather radar").
  if (const std::size_t colon = key.find(": "); colon != std::string::npos && colon <= 30) {
    if (auto first = byName(std::string_view(key).substr(0, colon), "the title names ")) {
      return first;
    }
  }
  return std::nullopt;
}

}  // namespace antidrift::drift
