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
  /// of consecutive non-stop words of the next action or the success
  /// condition of which at least one is distinctive ("page transition").
  explicit Relevance(const Commitment& commitment);

  /// Scores `title`: one point per distinctive word it contains, one more per
  /// phrase it contains as consecutive words. Relevant with at least
  /// min(2, number of distinctive words) points — so a title must share two
  /// of the commitment's words (or one and a phrase), unless the commitment
  /// has only one distinctive word. Pure; thread-safe.
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
