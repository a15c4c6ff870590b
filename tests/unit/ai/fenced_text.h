/// @file fenced_text.h
/// Test helper of the AI role tests: reads a fenced data block back out of a
/// prompt, independently of the production fencing code (docs/DESIGN.md §8).
#pragma once

#include <string>

namespace antidrift::test {

/// The text between the `<<<BEGIN label>>>` line and the FIRST `<<<END label>>>`
/// line of `text`; "<no begin>" or "<no end>" when a fence line is missing.
inline std::string fencedBody(const std::string& text, const std::string& label) {
  const std::string begin = "<<<BEGIN " + label + ">>>\n";
  const std::size_t start = text.find(begin);
  if (start == std::string::npos) return "<no begin>";
  const std::size_t bodyStart = start + begin.size();
  const std::size_t end = text.find("\n<<<END " + label + ">>>", bodyStart);
  if (end == std::string::npos) return "<no end>";
  return text.substr(bodyStart, end - bodyStart);
}

}  // namespace antidrift::test
