/// @file normalize.h
/// One normal form for text that is compared: window classes, titles and the
/// rules that match them (issue 6 items 2 and 3). Built on utf8proc.
#pragma once

#include <string>
#include <string_view>

namespace antidrift::text {

/// Puts `text` in the one form in which two strings that look the same compare
/// equal: each invalid UTF-8 sequence becomes U+FFFD; zero-width characters
/// (U+200B–U+200D, U+2060, U+FEFF, U+00AD soft hyphen) and bidi marks and
/// controls (U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069) are
/// removed; the result is in Unicode NFC; every run of Unicode white space
/// (including tab, newline and no-break space) becomes one ASCII space; leading
/// and trailing white space is trimmed. Other characters, controls included,
/// are kept. Rule: issue 6 item 2 ("Unicode compared in one normal form").
/// Pure; thread-safe; never throws (bar std::bad_alloc).
std::string normalizeUnicode(std::string_view text);

/// normalizeUnicode(), then Unicode case folding (utf8proc; "ÉCOLE" →
/// "école", "Straße" → "strasse"), result in NFC. For case-insensitive
/// comparison and keys, not for display. Pure; thread-safe; never throws
/// (bar std::bad_alloc).
std::string foldCase(std::string_view text);

}  // namespace antidrift::text
