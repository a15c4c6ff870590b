/// @file title_normalizer.h
/// The key form of a window title, shared by the verdict cache and the nudge
/// ring (issue 6 item 2; docs/DESIGN.md §4 step 3, §5).
#pragma once

#include <string>
#include <string_view>

namespace antidrift::drift {

/// Reduces a window title to what stays the same while the person stays on
/// the same page or file, so a title that changes every second (a clock, an
/// unread counter, VS Code's unsaved marker) yields one key (issue 6 item 2):
/// - Unicode: text::foldCase (NFC, zero-width and bidi characters removed,
///   white space folded to single spaces, trimmed, case-folded);
/// - the browser's own suffix dropped (" - Mozilla Firefox", " — Firefox
///   Developer Edition", " - Mozilla Firefox Private Browsing", " - Google
///   Chrome", " - Chromium", " - Brave", " - Microsoft Edge", " - Vivaldi",
///   " - Opera", " — Tor Browser", " — LibreWolf"; "-", "–" or "—");
/// - unsaved-file markers removed (leading "● " or "*", trailing "*", however many);
/// - unread counters removed ("(3) Facebook" → "facebook"; "[3]", "(99+)");
/// - clock times ("12:34", "12:34:56", "9:05 PM"), percentages ("45%",
///   "45.5 %", "7,5%") and progress counters ("3/10", "[3/10]", "(3 of 10)")
///   removed; dates such as "28/06/2020" are kept;
/// - separators (-, –, —, |, ·, •, :) left doubled or dangling at either end
///   by those removals dropped.
/// The removals repeat until nothing changes, so what one removal uncovers
/// goes too ("notes.txt **" → "notes.txt"). The result may be empty (a title
/// that was only a clock). Idempotent.
/// Pure in effect; thread-safe (the patterns are compiled once, used const;
/// up to 256 recent titles of at most 512 bytes are memoised under a mutex, issue 8 item 2,
/// so a title seen again costs a hash and a compare); never throws (bar
/// std::bad_alloc).
std::string normalizeTitle(std::string_view title);

/// The site a browser title names, from its normalizeTitle() form `key`
/// (issue 8 item 5): the segment after the last " - ", " – ", " — ", " | "
/// or " · " ("learn gatsby - youtube" → "youtube"), or the whole key when it
/// has no such separator and looks like a name ("facebook"). "" when the
/// candidate is longer than 40 bytes or has more than three spaces (a
/// sentence, not a site name). A site-scoped verdict is cached under it
/// (siteVerdictKey). Pure; thread-safe; never throws (bar std::bad_alloc).
std::string siteOf(std::string_view key);

/// The workspace an editor's window title names (docs/DESIGN.md §4 "Other
/// work inside the allowed app"): for VS Code and its kin, whose default
/// title is "[● ]<file> - <folder> - Visual Studio Code" (also "… - Visual
/// Studio Code - Insiders", "VSCodium", "Code - OSS", "Cursor"; "-", "–" or
/// "—"), the segment before the editor's name, in normalizeTitle() form
/// ("chango.dev"). "" when the title is no such editor's or names no folder
/// beside a file ("Welcome - Visual Studio Code"). Pure; thread-safe; never
/// throws (bar std::bad_alloc).
std::string editorWorkspace(std::string_view title);

}  // namespace antidrift::drift
