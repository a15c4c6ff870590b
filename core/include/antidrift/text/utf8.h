/// @file utf8.h
/// The one UTF-8 module of AntiDrift (issue 15 item 4): decode, validate,
/// count code points, cut on a code-point boundary, make untrusted bytes safe
/// with a byte cap, and make a short one-line message. Used by core, server,
/// cli and the AI roles. The plugins keep their own small copy
/// (plugins/common/src/process_runner.cpp) only because they must not link
/// the core (docs/ARCHITECTURE.md "The arrows").
///
/// Every invalid sequence is replaced the same way everywhere (docs/DESIGN.md §3): a
/// stray continuation byte, an invalid lead (C0, C1, F5..FF), an overlong
/// form, a surrogate, a value past U+10FFFF or a truncated sequence becomes
/// exactly one U+FFFD, and a truncated sequence never swallows the byte after
/// it. All functions are pure, thread-safe and never throw (but std::bad_alloc).
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace antidrift::text {

/// U+FFFD, what every invalid sequence becomes.
inline constexpr char32_t kReplacementCharacter = 0xFFFD;

/// No byte cap (the default of sanitizeUtf8).
inline constexpr std::size_t kNoByteCap = std::numeric_limits<std::size_t>::max();

/// Decodes one character of `raw` at byte `pos` and advances `pos` past what
/// was consumed (at least one byte; `pos` must be < raw.size()). Returns the
/// code point, or kReplacementCharacter for an invalid sequence (see the file
/// comment).
char32_t decodeOne(std::string_view raw, std::size_t& pos);

/// Appends the UTF-8 encoding (1 to 4 bytes) of the valid code point
/// `codePoint` (≤ U+10FFFF, not a surrogate) to `out`.
void appendUtf8(std::string& out, char32_t codePoint);

/// True when `text` is valid UTF-8: strict, so overlong forms, surrogates and
/// values past U+10FFFF are invalid.
bool isValidUtf8(std::string_view text);

/// `text` as valid UTF-8: each invalid sequence becomes one U+FFFD; valid text
/// is returned unchanged (control characters included).
std::string toValidUtf8(std::string_view text);

/// The number of code points of valid UTF-8 `text`; for invalid text, the
/// number of bytes that are not continuation bytes (10xxxxxx).
std::size_t countCodePoints(std::string_view text);

/// The longest prefix length ≤ `maxBytes` of `text` that does not end inside
/// a UTF-8 sequence (it never cuts before a continuation byte): `text.size()`
/// when it fits.
std::size_t boundaryBefore(std::string_view text, std::size_t maxBytes);

/// `text` cut to at most `maxBytes` bytes on a code-point boundary (see
/// boundaryBefore); unchanged when it fits.
std::string cutBytes(std::string_view text, std::size_t maxBytes);

/// `text` cut after `maxCodePoints` code points (counted as countCodePoints
/// does), with `ellipsis` appended when anything was cut; unchanged when it is
/// not longer. Never splits a code point.
std::string cutCodePoints(std::string_view text, std::size_t maxCodePoints,
                          std::string_view ellipsis = {});

/// What sanitizeUtf8 does with tab, line feed and carriage return.
enum class LineBreaks {
  Remove,   ///< dropped like every other control character (titles, docs/DESIGN.md §3)
  Keep,     ///< "\r\n" and a lone "\r" become "\n"; "\n" and "\t" are kept
  ToSpace,  ///< "\r", "\n" and "\t" become one space each
};

/// Makes untrusted bytes safe for display, storage and prompts (docs/DESIGN.md §3):
/// each invalid sequence becomes one U+FFFD, control characters (C0, DEL, C1)
/// are dropped except line breaks as `lineBreaks` says, and the result is cut
/// to at most `maxBytes` bytes on a code-point boundary (no ellipsis).
std::string sanitizeUtf8(std::string_view raw, LineBreaks lineBreaks = LineBreaks::Remove,
                         std::size_t maxBytes = kNoByteCap);

/// `raw` as one trimmed line: sanitizeUtf8(raw, LineBreaks::ToSpace), then
/// leading and trailing ASCII white space removed.
std::string oneLine(std::string_view raw);

/// `raw` as one short line for a person to read (error messages, a judge's
/// reason, a nudge): oneLine(raw) cut after `maxCodePoints` code points with
/// "…" appended when anything was cut.
std::string shortMessage(std::string_view raw, std::size_t maxCodePoints);

}  // namespace antidrift::text
