/// @file verdict_memory.h
/// drift::VerdictMemory — the judge's verdicts and the person's own
/// corrections, remembered across sessions (issue 16 item 3, "the verdict
/// memory"). Pure and in memory: the Controller owns one, persists it with
/// store::VerdictStore (write-behind) and lends it to the drift::Engine, which
/// consults it after its session cache and before the judge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "antidrift/domain/commitment.h"

namespace antidrift::drift {

/// Who gave a remembered verdict.
enum class VerdictSource {
  Judge,  ///< the DriftJudge ("judge")
  You,    ///< the person: "This is on task", or "Back to task" on a drifting window ("you")
};

/// "judge" | "you". Pure.
std::string_view toString(VerdictSource source);
/// The inverse of toString; nullopt for any other text. Pure.
std::optional<VerdictSource> parseVerdictSource(std::string_view text);

/// One remembered verdict about a window, for a commitment described by `words`.
struct RememberedVerdict {
  bool onTask = false;                          ///< true: on task; false: drift
  std::string reason;                           ///< the judge's sentence, or what the person said
  VerdictSource source = VerdictSource::Judge;  ///< who said it
  /// The distinctive words of the commitment(s) it was given for (folded case):
  /// it is reused only for a commitment that shares at least one of them.
  std::set<std::string> words;
  std::int64_t lastUsedMs = 0;  ///< UTC ms it was last given or reused
};

/// A remembered verdict with its key, as listed (GET /verdicts).
struct RememberedEntry {
  std::string key;  ///< drift::verdictKey or drift::siteVerdictKey
  RememberedVerdict verdict;
};

/// What a verdict key is about, for showing it to the person.
struct VerdictKeyView {
  std::string kind;   ///< "app" | "page" | "site"
  std::string app;    ///< the normalised app
  std::string label;  ///< the app, the page's normalised title, or the site's name or domain
};

/// Splits a key of drift::verdictKey / drift::siteVerdictKey ("app",
/// "app\ntitle", "app\nsite:name", "app\ndomain:example.com") into what it
/// names. Pure.
VerdictKeyView describeVerdictKey(const std::string& key);

/// The distinctive words of `commitment` the memory is keyed on:
/// drift::distinctiveWords (relevance.h: next action, success condition and
/// allowed apps, stop words and generic words out, lightly stemmed), the same
/// words the relevance step scores titles with. Pure; thread-safe.
std::set<std::string> memoryWords(const Commitment& commitment);

/// The remembered verdicts by key, at most maxEntries() of them, least
/// recently used dropped first (issue 16 item 3). Rules:
/// - reuse: lookup() answers only when the current commitment's words share
///   at least one word with the entry's (a verdict is about a window *for a
///   commitment*); an entry or a commitment without words is never reused;
/// - corrections win: a judge verdict never replaces the person's own
///   correction for the same key while their words overlap; the person's
///   correction always replaces what was there;
/// - the same verdict given again merges its words (at most kMaxWords).
/// Not synchronised: the owner's mutex guards it (the Controller's).
class VerdictMemory {
 public:
  /// Default bound on entries (drift.memory_max_entries).
  static constexpr std::size_t kDefaultMaxEntries = 5000;
  /// Words kept per entry; more are dropped (alphabetically last first).
  static constexpr std::size_t kMaxWords = 48;
  /// Longest reason kept, bytes (cut at a UTF-8 boundary).
  static constexpr std::size_t kMaxReasonBytes = 600;
  /// Longest key kept, bytes: a longer one is not remembered.
  static constexpr std::size_t kMaxKeyBytes = 1200;
  /// First line of the serialised form; parse() refuses text without it.
  static constexpr std::string_view kHeader = "{\"antidrift_verdicts\":1}";

  /// An empty memory holding at most `maxEntries` (≥ 1; 0 is taken as 1).
  explicit VerdictMemory(std::size_t maxEntries = kDefaultMaxEntries);
  /// Movable, not copyable (its index points into its own list).
  VerdictMemory(VerdictMemory&&) = default;
  /// Takes `other`'s entries and bound; version() still grows (an
  /// assignment is a change to write).
  VerdictMemory& operator=(VerdictMemory&& other) noexcept;
  VerdictMemory(const VerdictMemory&) = delete;
  VerdictMemory& operator=(const VerdictMemory&) = delete;

  /// The verdict remembered for `key` if it may be reused for a commitment
  /// with `words` (see the class comment); marks it used at `nowMs` (UTC ms)
  /// and most recent. nullopt otherwise (nothing changes).
  std::optional<RememberedVerdict> lookup(const std::string& key,
                                          const std::set<std::string>& words, std::int64_t nowMs);

  /// Remembers a verdict for `key` given for a commitment with `words` at
  /// `nowMs` (UTC ms), following the rules of the class comment; invalid
  /// UTF-8 in the key, reason and words is replaced by U+FFFD first (as
  /// serialize() would write it), the reason cut to kMaxReasonBytes. Returns
  /// false when nothing was stored (empty or over-long key, no words, or a
  /// judge verdict that a correction overrides).
  bool remember(const std::string& key, bool onTask, const std::string& reason,
                VerdictSource source, const std::set<std::string>& words, std::int64_t nowMs);

  /// Forgets `key`; false when it was not remembered.
  bool erase(const std::string& key);
  /// Forgets everything.
  void clear();

  /// Number of entries (≤ maxEntries()).
  std::size_t size() const { return order_.size(); }
  /// The bound on entries.
  std::size_t maxEntries() const { return maxEntries_; }
  /// Grows by one on every change (remember, a lookup hit, erase, clear): the
  /// owner writes the memory when it differs from the version it last wrote.
  std::uint64_t version() const { return version_; }
  /// Every entry, most recently used first.
  std::vector<RememberedEntry> entries() const;

  /// JSON Lines: kHeader, then one object per entry, least recently used first:
  /// {"key","on_task","reason","source","words":[…],"last_used"}. Invalid
  /// UTF-8 is replaced by U+FFFD. Pure.
  std::string serialize() const;

  /// The result of parse().
  struct Parsed;
  /// Parses serialize()'s output into a memory holding at most `maxEntries`
  /// (the most recently used kept). A line that is not a valid entry is
  /// skipped and counted. Throws std::runtime_error when the first line is not
  /// kHeader (not a verdicts file, or a newer version). Pure; thread-safe.
  static Parsed parse(const std::string& text, std::size_t maxEntries = kDefaultMaxEntries);

 private:
  using Order = std::list<std::string>;  ///< keys, most recently used first
  struct Slot {
    RememberedVerdict verdict;
    Order::iterator position;
  };
  void touch(Slot& slot);
  void evict();

  std::size_t maxEntries_;
  std::uint64_t version_ = 0;
  Order order_;
  std::unordered_map<std::string, Slot> slots_;
};

/// What VerdictMemory::parse() read.
struct VerdictMemory::Parsed {
  VerdictMemory memory;
  std::size_t skippedLines = 0;  ///< lines that were not valid entries
};

}  // namespace antidrift::drift
