/// @file relevance.h
/// Relevance to the commitment: the second step of the local tier (issue 16
/// item 3). A window whose title shares the commitment's distinctive words —
/// the words of its next action, success condition and allowed apps, less
/// stop words and the generic words of any work ("add", "fix", "page",
/// "file", "project", …) — serves it, without asking the AI: "Barba JS Page
/// Transitions - YouTube" for "Add page transitions to the site" is not drift.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "antidrift/domain/commitment.h"

namespace antidrift::drift {

/// The words of `text` as relevance compares them: text::foldCase'd, split
/// into runs of letters, digits and combining marks (any script), each
/// reduced by a light plural stemmer ("transitions" → "transition",
/// "libraries" → "library"); words of fewer than three bytes and words of
/// digits only are dropped. In order, duplicates kept. Pure; thread-safe;
/// never throws (bar std::bad_alloc).
std::vector<std::string> relevanceWords(std::string_view text);

/// True for a word (in relevanceWords form) that says nothing about which
/// work is meant: an English stop word or a word generic to any work
/// ("work", "page", "site", "file", "code", "plugin", "dev", …). Pure.
bool isGenericWord(std::string_view word);

/// True for a common English word (in relevanceWords form): one of SCOWL's
/// size-35 list (Debian's wamerican-small, embedded at build time), where a
/// name, a rare or technical word or a word of another language is not.
/// Common words a page shares with a commitment ("quarterly", "report")
/// say less of which work it serves than a name does (docs/DESIGN.md §4
/// "Relevance"). Pure; thread-safe.
bool isCommonWord(std::string_view word);

/// How a title relates to a commitment.
struct RelevanceResult {
  bool relevant = false;            ///< the title serves the commitment by its words
  std::vector<std::string> shared;  ///< the distinctive words it shares, in the title's order
};

/// A commitment's distinctive words and phrases, computed once per
/// commitment. Immutable after construction: thread-safe for const use.
class Relevance {
 public:
  /// The words of `commitment`'s next action, success condition and allowed
  /// apps (relevanceWords), less the generic ones; and its phrases: each pair
  /// of words next to each other in the next action, neither a stop word, at
  /// least one distinctive ("page transition"). The success condition gives
  /// words, not phrases: it often names the tools ("with gatsby-plugin-…"),
  /// whose pairs would make any page about the tool relevant.
  explicit Relevance(const Commitment& commitment);

  /// Scores `title`: one point per distinctive word it contains, one more per
  /// phrase it contains as consecutive words. Relevant with at least
  /// min(2, number of distinctive words) points and, when two are needed,
  /// one shared word that is not common (isCommonWord): a name or a rare
  /// word. So "Page Transitions in Gatsby" serves "Add page transitions to
  /// the Gatsby site" (gatsby, transition and the phrase), while common words
  /// alone, even as the commitment's phrase ("Funniest quarterly report
  /// fails" for "Write the quarterly report"), are left to the judge. A
  /// commitment with one distinctive word needs it alone. Pure; thread-safe.
  RelevanceResult score(std::string_view title) const;

  /// The distinctive words, sorted (the verdict memory keys on them).
  const std::set<std::string>& words() const { return words_; }

 private:
  std::set<std::string> words_;
  std::set<std::pair<std::string, std::string>> phrases_;
};

/// The distinctive words of `commitment` (Relevance(commitment).words()).
/// Pure; thread-safe.
std::set<std::string> distinctiveWords(const Commitment& commitment);

}  // namespace antidrift::drift
