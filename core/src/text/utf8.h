/// @file utf8.h
/// Private: the strict UTF-8 decoder and encoder shared by the evidence
/// sanitiser (observation.cpp) and the Unicode normaliser (normalize.cpp), so
/// that both replace invalid input the same way (DESIGN §3).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace antidrift::text::detail {

/// U+FFFD, what every invalid sequence becomes.
inline constexpr char32_t kReplacementCharacter = 0xFFFD;

/// Decodes one character of `raw` at byte `pos` and advances `pos` past what
/// was consumed (at least one byte; `pos` must be < raw.size()). Returns the
/// code point, or kReplacementCharacter for an invalid sequence: a stray
/// continuation byte, an invalid lead, an overlong form, a surrogate, a value
/// past U+10FFFF, or a truncated sequence (which never swallows the byte after
/// it). Pure; thread-safe; never throws.
char32_t decodeOne(std::string_view raw, std::size_t& pos);

/// Appends the UTF-8 encoding of the valid code point `codePoint` to `out`.
void appendUtf8(std::string& out, char32_t codePoint);

}  // namespace antidrift::text::detail
