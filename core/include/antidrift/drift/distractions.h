/// @file distractions.h
/// Known distractions: the first step of the local tier (issue 16 item 3).
/// Well-known distracting sites and apps by category — video, social, news,
/// adult, shopping, games, chat — read from the shipped data file
/// (data/distractions.txt, installed as share/antidrift/distractions.txt) and
/// the config (drift.categories.<category>), matched on the site a browser
/// page's URL or title names, or on an app's window class. A match raises the
/// banner at once, AI on or off, unless the commitment's own words say the
/// window serves it (relevance.h).
#pragma once

#include <istream>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "antidrift/evidence/observation.h"
#include "antidrift/settings.h"

namespace antidrift::drift {

/// Reads the known-distractions file format (data/distractions.txt): one site
/// a line, `category | domain, domain… | name, name…` ('#' lines and blank
/// lines skipped; the domains or the names may be empty, not both). Category
/// and domains are lower-cased, names kept as written. Throws
/// std::invalid_argument "<name> line N: …" for a line of another shape.
/// Pure apart from reading `in`; thread-safe.
std::vector<DistractionSite> parseDistractions(std::istream& in, const std::string& name);

/// Parses one config entry of drift.categories.<category> (issue 16 item 3):
/// a comma-separated list whose items with a dot and no space are domains
/// ("reddit.com") and the others names ("Reddit"). Pure; never throws.
DistractionSite distractionFromList(const std::string& category, const std::string& list);

/// What a known-distraction match found.
struct DistractionMatch {
  std::string category;  ///< the site's category ("video")
  std::string site;      ///< the site as a person reads it: its first name, else its first domain
  /// How it matched, for the banner's reason: "the page is on youtube.com",
  /// "the title names YouTube", "the app is Discord".
  std::string how;
};

/// The known distractions of the active categories, compiled for matching.
/// Immutable after construction: const methods may be used from many threads.
class Distractions {
 public:
  /// Keeps the sites of `settings.distractionSites` whose category is in
  /// `settings.distractionCategories` (compared case-insensitively). Never throws.
  explicit Distractions(const Settings& settings);

  /// The known distraction `obs` shows, or nullopt — recognised where the
  /// site itself writes its name (docs/DESIGN.md §4, known distractions):
  /// - for a browser page (`perPage`) with URL evidence, its domain or a
  ///   parent of it down to the registrable domain (obs.domain:
  ///   "m.youtube.com" → youtube.com, "i.redd.it" → redd.it); the title is
  ///   then not second-guessed;
  /// - for a browser page without it, the title's own site parts, in the
  ///   normalised title (the browser's suffix and unread counters gone):
  ///   the whole title ("(2) facebook", "pornhub.com"); its site suffix, the
  ///   last part after " - ", " – ", " — ", " | ", " / ", " · " or " • "
  ///   ("funny cats - youtube", "home / x"; Edge's " and N more pages"
  ///   dropped), or in an Edge window the part before the profile's name
  ///   ("clip - youtube - work - Microsoft Edge"); "… on <name>: …" as posts
  ///   are titled, when it is the whole title or the post follows in quotes;
  ///   and, in a title without a suffix, the part before a leading ": "
  ///   ("windy: weather radar"). A name anywhere else is the page's own
  ///   words: "Twitter - Google Docs", "Reddit · Issue #3 · owner/repo" and
  ///   "#twitter - Slack" are no known distraction;
  /// - for any window, a window class equal to a name ("discord").
  /// `obs.app` is already normalised. Pure; thread-safe; never throws (bar
  /// std::bad_alloc).
  std::optional<DistractionMatch> match(const Observation& obs, bool perPage) const;

  /// Sites kept (those of the active categories).
  std::size_t size() const { return sites_.size(); }

 private:
  std::optional<DistractionMatch> byName(std::string_view folded, const char* how) const;
  std::optional<DistractionMatch> byDomain(std::string_view host) const;
  std::optional<DistractionMatch> postOn(std::string_view key, bool whole) const;

  std::vector<DistractionSite> sites_;
  std::unordered_map<std::string, std::size_t> byName_;    ///< folded name → index in sites_
  std::unordered_map<std::string, std::size_t> byDomain_;  ///< domain → index in sites_
};

}  // namespace antidrift::drift
