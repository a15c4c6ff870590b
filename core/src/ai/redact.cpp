#include "antidrift/ai/redact.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <Poco/Exception.h>
#include <Poco/RegularExpression.h>

#include "antidrift/text/utf8.h"

namespace antidrift::ai {
namespace {

using Range = std::pair<std::size_t, std::size_t>;  // [begin, end) in bytes

// Every non-empty match of `pattern` in `subject`, in order. Throws
// Poco::RegularExpressionException when PCRE fails (e.g. its match limit).
void collectMatches(const Poco::RegularExpression& pattern, const std::string& subject,
                    std::vector<Range>& ranges) {
  std::size_t offset = 0;
  while (offset < subject.size()) {
    Poco::RegularExpression::Match match{std::string::npos, 0};
    if (pattern.match(subject, offset, match, Poco::RegularExpression::RE_NOTEMPTY) == 0 ||
        match.offset == std::string::npos) {
      return;
    }
    ranges.emplace_back(match.offset, match.offset + match.length);
    offset = match.offset + match.length;
  }
}

}  // namespace

Redactor::Redactor(const std::map<std::string, std::string>& patterns) {
  for (const auto& [name, pattern] : patterns) {
    if (pattern.empty()) continue;
    try {
      patterns_.push_back(std::make_shared<const Poco::RegularExpression>(
          pattern, Poco::RegularExpression::RE_UTF8));
    } catch (const Poco::Exception& error) {
      throw std::invalid_argument("privacy.redact." + name + ": " + error.message());
    }
  }
}

std::string Redactor::apply(std::string_view text) const {
  const std::string subject = text::sanitizeUtf8(text, text::LineBreaks::Keep);
  std::vector<Range> ranges;
  try {
    for (const auto& pattern : patterns_) collectMatches(*pattern, subject, ranges);
  } catch (const Poco::Exception&) {
    return std::string(kRedacted);
  }
  std::sort(ranges.begin(), ranges.end());
  std::vector<Range> merged;  // overlapping or touching matches become one
  for (const Range& range : ranges) {
    if (!merged.empty() && range.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  std::string out;
  out.reserve(subject.size());
  std::size_t copied = 0;  // subject[0, copied) is done
  for (const Range& range : merged) {
    out.append(subject, copied, range.first - copied).append(kRedacted);
    copied = range.second;
  }
  out.append(subject, copied, std::string::npos);
  return out;
}

}  // namespace antidrift::ai
