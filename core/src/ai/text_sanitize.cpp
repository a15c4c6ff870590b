#include "ai/text_sanitize.h"

#include <Poco/String.h>
#include <Poco/UTF8Encoding.h>

namespace antidrift::ai::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool isContinuation(unsigned char byte) {
  return (byte & 0xC0) == 0x80;
}

// Sequence length announced by a lead byte; 0 for a byte that cannot start one.
std::size_t leadLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// The code point of a legal sequence (only called after isLegal).
char32_t decodeLegal(const unsigned char* bytes, std::size_t length) {
  static const Poco::UTF8Encoding encoding;
  return static_cast<char32_t>(encoding.queryConvert(bytes, static_cast<int>(length)));
}

}  // namespace

std::string sanitizeText(std::string_view raw, LineBreaks lineBreaks) {
  std::string out;
  out.reserve(raw.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  std::size_t pos = 0;
  while (pos < raw.size()) {
    const unsigned char lead = bytes[pos];
    const std::size_t length = leadLength(lead);
    if (length == 0) {
      out += kReplacement;
      ++pos;
      continue;
    }
    if (length == 1) {
      ++pos;
      if (lead == '\r') {
        if (lineBreaks == LineBreaks::Keep) {
          if (pos < raw.size() && raw[pos] == '\n') ++pos;
          out += '\n';
        } else {
          out += ' ';
        }
      } else if (lead == '\n' || lead == '\t') {
        out += lineBreaks == LineBreaks::Keep ? static_cast<char>(lead) : ' ';
      } else if (lead >= 0x20 && lead != 0x7F) {
        out += static_cast<char>(lead);
      }
      continue;
    }
    std::size_t have = 1;
    while (have < length && pos + have < raw.size() && isContinuation(bytes[pos + have])) ++have;
    if (have < length) {  // truncated: replace what was read, keep the next byte
      out += kReplacement;
      pos += have;
      continue;
    }
    if (!Poco::UTF8Encoding::isLegal(bytes + pos, static_cast<int>(length))) {
      out += kReplacement;
      pos += length;
      continue;
    }
    const char32_t codePoint = decodeLegal(bytes + pos, length);
    if (!(codePoint >= 0x80 && codePoint <= 0x9F)) out.append(raw.substr(pos, length));
    pos += length;
  }
  return out;
}

std::size_t prefixBytesOnBoundary(std::string_view text, std::size_t maxBytes) {
  if (text.size() <= maxBytes) return text.size();
  std::size_t end = maxBytes;
  while (end > 0 && isContinuation(static_cast<unsigned char>(text[end]))) --end;
  return end;
}

std::size_t countChars(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text) {
    if (!isContinuation(static_cast<unsigned char>(c))) ++count;
  }
  return count;
}

std::string singleLine(std::string_view raw) {
  return Poco::trim(sanitizeText(raw, LineBreaks::Drop));
}

std::string capChars(std::string text, std::size_t maxChars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!isContinuation(static_cast<unsigned char>(text[i])) && ++chars > maxChars) {
      text.resize(i);
      return text + "…";
    }
  }
  return text;
}

}  // namespace antidrift::ai::detail
