#include "antidrift/ai/prompt.h"

#include <stdexcept>

#include "antidrift/text/utf8.h"

namespace antidrift::ai {
namespace {

constexpr std::size_t kMaxLabelChars = 32;

bool isValidLabel(std::string_view label) {
  if (label.empty() || label.size() > kMaxLabelChars) return false;
  for (const char c : label) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

// Breaks every run of '<' so that no three appear in a row.
std::string neutralizeMarkers(std::string_view data) {
  std::string out;
  out.reserve(data.size() + data.size() / 8);
  std::size_t run = 0;
  for (const char c : data) {
    if (c == '<') {
      if (run == 2) {
        out += ' ';
        run = 0;
      }
      ++run;
    } else {
      run = 0;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string_view toString(Role role) {
  switch (role) {
    case Role::Coach:
      return "coach";
    case Role::Judge:
      return "judge";
    case Role::Nudge:
      return "nudge";
    case Role::Reviewer:
      return "reviewer";
  }
  return "unknown";
}

std::string roleLine(Role role) {
  return "ROLE: " + std::string(toString(role)) + "\n";
}

std::string fenceData(std::string_view label, std::string_view data) {
  if (!isValidLabel(label)) {
    throw std::invalid_argument("fenceData: label must be 1-32 characters of [a-z_]");
  }
  std::string body = neutralizeMarkers(text::sanitizeUtf8(data, text::LineBreaks::Keep));
  while (!body.empty() && body.back() == '\n') body.pop_back();
  std::string out;
  out.reserve(body.size() + kDataNotice.size() + 2 * label.size() + 32);
  out.append(kDataNotice).append("\n<<<BEGIN ").append(label).append(">>>\n");
  out.append(body).append("\n<<<END ").append(label).append(">>>\n");
  return out;
}

}  // namespace antidrift::ai
