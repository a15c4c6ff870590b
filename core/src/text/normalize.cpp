#include "antidrift/text/normalize.h"

#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "antidrift/text/utf8.h"

namespace antidrift::text {
namespace {

// Characters that draw nothing yet make two equal-looking strings differ
// (issue 6 item 2): zero-width characters and bidi marks and controls.
bool isInvisible(char32_t codePoint) {
  switch (codePoint) {
    case 0x00AD:  // soft hyphen
    case 0x061C:  // Arabic letter mark
    case 0x2060:  // word joiner
    case 0xFEFF:  // zero-width no-break space (byte order mark)
      return true;
    default:
      return (codePoint >= 0x200B && codePoint <= 0x200F) ||  // ZWSP, ZWNJ, ZWJ, LRM, RLM
             (codePoint >= 0x202A && codePoint <= 0x202E) ||  // LRE, RLE, PDF, LRO, RLO
             (codePoint >= 0x2066 && codePoint <= 0x2069);    // LRI, RLI, FSI, PDI
  }
}

// Unicode White_Space: the separators (Zs, Zl, Zp) by utf8proc's category,
// plus the controls that the property includes (tab to carriage return, NEL).
bool isWhiteSpace(char32_t codePoint) {
  if ((codePoint >= 0x09 && codePoint <= 0x0D) || codePoint == 0x85) return true;
  const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(codePoint));
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL ||
         category == UTF8PROC_CATEGORY_ZP;
}

// Valid UTF-8 with the invisible characters removed.
std::string decodeDroppingInvisible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char32_t codePoint = decodeOne(text, pos);
    if (!isInvisible(codePoint)) appendUtf8(out, codePoint);
  }
  return out;
}

// Runs utf8proc_map over valid UTF-8 with `options`; on a failure (only
// running out of memory, as the input is valid) returns the input unchanged.
std::string mapWithUtf8proc(const std::string& valid, utf8proc_option_t options) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
                   static_cast<utf8proc_ssize_t>(valid.size()), &mapped, options);
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(mapped, &std::free);
  if (length < 0 || mapped == nullptr) return valid;
  return std::string(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(length));
}

// Folds every run of white space in valid UTF-8 to one ASCII space and trims.
std::string foldWhiteSpace(const std::string& valid) {
  std::string out;
  out.reserve(valid.size());
  bool pendingSpace = false;
  std::size_t pos = 0;
  while (pos < valid.size()) {
    const std::size_t start = pos;
    const char32_t codePoint = decodeOne(valid, pos);
    if (isWhiteSpace(codePoint)) {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    out.append(valid, start, pos - start);
  }
  return out;
}

// True when every byte is ASCII: NFC and the invisible characters change
// nothing there, case folding is A-Z → a-z, and the white space is tab to
// carriage return and space (issue 8 item 2: most titles skip utf8proc).
bool isAscii(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

bool isAsciiWhiteSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// foldWhiteSpace for ASCII text, lower-casing A-Z when `lower`.
std::string foldAscii(std::string_view text, bool lower) {
  std::string out;
  out.reserve(text.size());
  bool pendingSpace = false;
  for (char c : text) {
    if (isAsciiWhiteSpace(c)) {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out += ' ';
    pendingSpace = false;
    if (lower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    out += c;
  }
  return out;
}

}  // namespace

std::string normalizeUnicode(std::string_view text) {
  if (isAscii(text)) return foldAscii(text, false);
  const std::string composed =
      mapWithUtf8proc(decodeDroppingInvisible(text),
                      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  return foldWhiteSpace(composed);
}

std::string foldCase(std::string_view text) {
  if (isAscii(text)) return foldAscii(text, true);
  return mapWithUtf8proc(
      normalizeUnicode(text),
      static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD));
}

}  // namespace antidrift::text
