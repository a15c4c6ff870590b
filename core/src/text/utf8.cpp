#include "text/utf8.h"

namespace antidrift::text::detail {

// A strict UTF-8 decoder, written here on purpose: Poco's TextConverter
// consumes the *claimed* length of an invalid sequence (so "\xE2A" loses the
// "A") and accepts overlong forms and surrogates. Titles come from arbitrary
// programs, so every invalid sequence must become exactly one U+FFFD and no
// valid byte after it may be lost (DESIGN §3).
char32_t decodeOne(std::string_view raw, std::size_t& pos) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(raw[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  std::size_t length = 0;
  char32_t codePoint = 0;
  char32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, codePoint = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, codePoint = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, codePoint = lead & 0x07, minimum = 0x10000;
  } else {
    ++pos;  // continuation byte or invalid lead (C0, C1, F5..FF)
    return kReplacementCharacter;
  }
  std::size_t i = 1;
  for (; i < length; ++i) {
    if (pos + i >= raw.size() || (byte(pos + i) & 0xC0) != 0x80) break;
    codePoint = (codePoint << 6) | (byte(pos + i) & 0x3F);
  }
  if (i < length) {
    pos += i;  // truncated sequence: replace what was read, keep the next byte
    return kReplacementCharacter;
  }
  pos += length;
  if (codePoint < minimum || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
    return kReplacementCharacter;
  }
  return codePoint;
}

void appendUtf8(std::string& out, char32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

}  // namespace antidrift::text::detail
