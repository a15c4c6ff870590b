/// @file fuzz_check.h
/// What every fuzz target of tests/fuzz shares (issue 9 item 4): the input as
/// text, a property check that stops the run on a broken rule, and a strict
/// UTF-8 test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace antidrift::fuzz {

/// The fuzzer's bytes as a string_view (no copy; valid during the call).
inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Stops the process with `rule` on stderr when `holds` is false, so
/// libFuzzer (or the replay driver) records the input as a crash. `rule`
/// quotes the documented promise that broke (a header comment or docs/DESIGN.md).
inline void check(bool holds, const char* rule) {
  if (!holds) {
    std::fprintf(stderr, "fuzz property broken: %s\n", rule);
    std::abort();
  }
}

/// True when `text` is well-formed UTF-8 (RFC 3629): no stray continuation
/// byte, overlong form, surrogate, value past U+10FFFF or truncated sequence.
/// Written here on its own, not borrowed from the core, so it can judge the
/// core's sanitisers. Pure.
inline bool isValidUtf8(std::string_view text) {
  std::size_t position = 0;
  while (position < text.size()) {
    const auto lead = static_cast<unsigned char>(text[position]);
    std::size_t length = 0;
    char32_t codePoint = 0;
    char32_t smallest = 0;
    if (lead < 0x80) {
      ++position;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      codePoint = lead & 0x1F;
      smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      codePoint = lead & 0x0F;
      smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      codePoint = lead & 0x07;
      smallest = 0x10000;
    } else {
      return false;
    }
    if (position + length > text.size()) return false;
    for (std::size_t index = 1; index < length; ++index) {
      const auto next = static_cast<unsigned char>(text[position + index]);
      if ((next & 0xC0) != 0x80) return false;
      codePoint = (codePoint << 6) | (next & 0x3F);
    }
    if (codePoint < smallest || codePoint > 0x10FFFF ||
        (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
      return false;
    }
    position += length;
  }
  return true;
}

/// True when `text` holds no C0 control character or DEL (the C1 controls
/// are two-byte sequences, checked by the sanitiser's own tests). Pure.
inline bool hasNoAsciiControl(std::string_view text) {
  for (const char byte : text) {
    const auto unit = static_cast<unsigned char>(byte);
    if (unit < 0x20 || unit == 0x7F) return false;
  }
  return true;
}

/// Number of characters (code points) in valid UTF-8 `text`. Pure.
inline std::size_t countChars(std::string_view text) {
  std::size_t count = 0;
  for (const char byte : text) {
    if ((static_cast<unsigned char>(byte) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace antidrift::fuzz
