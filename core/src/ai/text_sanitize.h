/// @file text_sanitize.h
/// Private helpers shared by the AI roles and the planning loaders: make
/// untrusted bytes valid UTF-8 and cut text on character boundaries.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace antidrift::ai::detail {

/// What sanitizeText does with line breaks.
enum class LineBreaks {
  Keep,  ///< "\r\n" and lone "\r" become "\n"; "\n" and "\t" are kept
  Drop,  ///< "\r", "\n" and "\t" become one space each
};

/// Returns `raw` as valid UTF-8: each invalid sequence becomes one U+FFFD
/// (a truncated sequence never swallows the byte after it), control
/// characters (C0, DEL, C1) are dropped except line breaks/tabs as `lineBreaks`
/// says. Validation of each sequence uses Poco::UTF8Encoding::isLegal
/// (rejects overlong forms and surrogates). Pure; thread-safe.
std::string sanitizeText(std::string_view raw, LineBreaks lineBreaks);

/// The longest prefix length ≤ `maxBytes` of valid UTF-8 `text` that ends on a
/// character boundary. Pure.
std::size_t prefixBytesOnBoundary(std::string_view text, std::size_t maxBytes);

/// Number of characters (code points) in valid UTF-8 `text`. Pure.
std::size_t countChars(std::string_view text);

/// `raw` as one trimmed line: sanitizeText(raw, LineBreaks::Drop), then
/// leading and trailing whitespace removed. Pure; thread-safe.
std::string singleLine(std::string_view raw);

/// Valid UTF-8 `text` cut after `maxChars` characters (code points), with "…"
/// appended when anything was cut; unchanged when it is not longer. Pure.
std::string capChars(std::string text, std::size_t maxChars);

}  // namespace antidrift::ai::detail
