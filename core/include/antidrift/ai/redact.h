/// @file redact.h
/// privacy.redact (docs/DESIGN.md §8; issue 6 item 5): masks what must not leave the
/// machine in a window title before any AI prompt carries it.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace Poco {
class RegularExpression;
}  // namespace Poco

namespace antidrift::ai {

/// The text that replaces every match.
inline constexpr std::string_view kRedacted = "[redacted]";

/// Masks every match of a set of named patterns. Built once from the settings;
/// immutable afterwards, so one instance may be shared by any number of
/// threads. Copies share the compiled patterns.
class Redactor {
 public:
  /// name → PCRE pattern (Settings::redactPatterns, `privacy.redact.<name>`),
  /// compiled in UTF-8 mode (Poco::RegularExpression); empty patterns are
  /// skipped (so a default can be switched off). Throws
  /// std::invalid_argument "privacy.redact.<name>: <reason>" when a pattern
  /// does not compile (the reason is PCRE's, e.g. "missing terminating ] for
  /// character class").
  explicit Redactor(const std::map<std::string, std::string>& patterns);

  /// `text` with every non-empty match of every pattern replaced by
  /// kRedacted ("[redacted]"). Matches are found in the original text, so one
  /// pattern never sees another's replacement; overlapping or touching
  /// matches become one "[redacted]". The text is first made valid UTF-8
  /// (invalid sequences → U+FFFD, control characters other than newline and
  /// tab dropped). If matching fails (PCRE's match limit on a pathological
  /// pattern) the whole text becomes "[redacted]": nothing unmasked leaks.
  /// Thread-safe (const), never throws (except std::bad_alloc).
  std::string apply(std::string_view text) const;

  /// Number of active (non-empty) patterns.
  std::size_t size() const noexcept { return patterns_.size(); }

 private:
  std::vector<std::shared_ptr<const Poco::RegularExpression>> patterns_;
};

}  // namespace antidrift::ai
