/// @file verdict_cache.h
/// The session's cache of DriftJudge verdicts (docs/DESIGN.md §4 step 3; issue 6
/// item 2).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_map>

#include "antidrift/drift/rules.h"
#include "antidrift/evidence/observation.h"

namespace antidrift::drift {

/// A verdict as cached for the session (docs/DESIGN.md §4 step 3).
struct CachedVerdict {
  bool onTask = false;  ///< true: on task; false: drifting
  std::string reason;   ///< the judge's one short sentence (may be empty when on task)
  /// The verdict memory's key when a remembered verdict gave it (DELETE
  /// /verdicts?key= forgets it; issue 17, re-walk A); "" otherwise.
  std::string memoryKey = {};
};

/// The cache key: the app, or for a title-sensitive app app + '\n' +
/// normalizeTitle(title), so one browser is judged per page while a title that
/// changes every second keeps one key (docs/DESIGN.md §4 step 3; issue 6 item 2).
/// `obs.app` is already normalised. Pure; thread-safe.
std::string verdictKey(const Rules& rules, const Observation& obs);

/// The key a site-scoped verdict (ai::VerdictScope::Site) is cached under:
/// app + "\ndomain:" + obs.domain for a per-page window when URL evidence
/// gave the page's domain (issue 16 item 4); "" otherwise — never a site the
/// title names in its own text, which its author chooses (issue 19 item 4),
/// and none for an app judged per app (a verdict about an app is about the
/// whole app already). Issue 8 item 5. Pure; thread-safe.
std::string siteVerdictKey(const Rules& rules, const Observation& obs);

/// The site a person's "all of <site> this session" mark and the review's
/// drift-by-site tally name (issue 17 items 4 and 5): siteVerdictKey() when
/// URL evidence gave the domain, else app + "\nsite:" + the title's site
/// suffix ("… - YouTube"), else "". Unlike siteVerdictKey() it may come from
/// the title: it only ever widens what the person chose themselves, and a
/// judge's answer never reaches it (issue 19 item 4). Pure; thread-safe.
std::string markSiteKey(const Rules& rules, const Observation& obs);

/// Verdicts by key for one session, at most kMaxEntries of them. Not
/// synchronised: the owner's mutex guards it (the Controller's, docs/CONVENTIONS.md
/// "Concurrency").
class VerdictCache {
 public:
  /// The most entries kept; past this the oldest inserted is evicted.
  static constexpr std::size_t kMaxEntries = 1024;

  /// The verdict for `key`, or nullptr when absent. The pointer is valid until
  /// the next put() or clear().
  const CachedVerdict* find(const std::string& key) const;

  /// Inserts or replaces the verdict for `key`. A replaced entry keeps its age;
  /// a new one past kMaxEntries evicts the oldest inserted.
  void put(const std::string& key, CachedVerdict verdict);

  /// Forgets the verdict for `key` (an undone "This is on task", issue 17
  /// item 4); false when there was none.
  bool erase(const std::string& key);

  /// Forgets every verdict (a new session).
  void clear();

  /// Number of verdicts held (≤ kMaxEntries).
  std::size_t size() const;

 private:
  std::unordered_map<std::string, CachedVerdict> verdicts_;
  std::deque<std::string> insertionOrder_;  ///< oldest first; same keys as verdicts_
};

}  // namespace antidrift::drift
