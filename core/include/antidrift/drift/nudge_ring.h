/// @file nudge_ring.h
/// The trajectory the Nudger judges: the last distinct titles seen in the
/// allowed apps this session (seed 000 "recentTitles"; docs/DESIGN.md §5).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace antidrift::drift {

/// The last kCapacity distinct titles, oldest first, each kept under its
/// normalised key with the title the Nudger is shown. Not synchronised: the
/// owner's mutex guards it (the Controller's, docs/CONVENTIONS.md "Concurrency").
class NudgeRing {
 public:
  /// How many distinct titles the ring holds (seed 000: the last 10).
  static constexpr std::size_t kCapacity = 10;

  /// Records a title seen in an allowed app (seed 000 "recentTitles"). `key`
  /// is its normalizeTitle(); an empty key is ignored; a key equal to the
  /// newest entry's only refreshes its display title; a key present further
  /// back moves to the newest place (with the new display title); past
  /// kCapacity the oldest is dropped. `displayTitle` is what the Nudger is
  /// shown. Returns true if the ring's order or content of keys changed
  /// (false for an ignored key or a refresh of the newest entry).
  bool add(const std::string& key, const std::string& displayTitle);

  /// The display titles, oldest first (a copy, for a Nudger call).
  std::vector<std::string> titles() const;

  /// The keys of the newest `count` entries, newest first (fewer when the
  /// ring holds fewer).
  std::vector<std::string> newestKeys(std::size_t count) const;

  /// Number of distinct titles held (≤ kCapacity).
  std::size_t size() const;

  /// Forgets every title (a new session).
  void clear();

 private:
  std::deque<std::pair<std::string, std::string>> entries_;  ///< (key, display), oldest first
};

}  // namespace antidrift::drift
