/// @file state_text.h
/// What is printed for a State (docs/API.md §5): the `status` lines for
/// people, the one-line summary of `watch`, and the formats status bars read
/// (waybar, i3blocks, polybar; issue 10 item 2, issue 20 item 2). Pure
/// functions over the parsed JSON (nlohmann::json, Debian
/// nlohmann-json3-dev): no I/O, no clock (the State carries
/// `remaining_secs`), and no Poco, so that `antidrift status` and
/// antidrift-watch, which links no Poco (issue 20 item 2: its RSS), print the
/// same thing from one source. A field missing or of another type reads as
/// empty (0 for a number); nothing here throws but std::bad_alloc.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace antidrift::cli {

/// Output of `status --format` and `watch --format`.
enum class BarFormat {
  Waybar,    ///< one JSON line: text, alt, tooltip, class, percentage
  I3blocks,  ///< three lines: full_text, short_text, color
  Polybar,   ///< one line with %{F#rrggbb}…%{F-} colour tags
};

/// Parses a `--format` value ("waybar", "i3blocks", "polybar"); nullopt for
/// anything else. Pure.
std::optional<BarFormat> parseBarFormat(const std::string& name);

/// The one word a bar styles by: while active the drift status (`ontask`,
/// `drifting`, `judging`, `unknown`), or `neutral` while AntiDrift's own page
/// is in front (status `unknown`, reason "this is AntiDrift": neutral time,
/// as the page says; issue 17 item 4), else the runtime (`locked`,
/// `planning`, `review`). `offline` is used when there is no State.
/// Pure; a State without the fields gives "unknown".
std::string barClass(const nlohmann::json& state);

/// `status` for people: "key: value" lines, each ending in '\n' — runtime,
/// and as far as they apply next action, done when, remaining ("12:34 of
/// 25:00"), drift (barClass() and reason; AntiDrift's own page: "neutral
/// (this is AntiDrift, not counted either way)"), heads up, window (app, title,
/// evidence health), outcome, last lesson, then describeAi(). Pure.
std::string describeState(const nlohmann::json& state);

/// The AI lines of `status` (issue 18 items 2–4), each ending in '\n': "AI:
/// openai (Ollama at 127.0.0.1:11434, model m) — auto" or "AI: off — <why>",
/// "window titles: stay on this machine (local 127.0.0.1:11434)" / "leave
/// this machine" / "go nowhere (AI off)", and "AI cost: N calls, I tokens in, O out
/// (estimated), m:ss waiting" once a call was made. "" without an `ai`
/// object. Pure.
std::string describeAi(const nlohmann::json& state);

/// One line (no '\n') summing up a State for `watch`, e.g. "active ontask:
/// Write the intro (24:59 left)" or "locked". Pure.
std::string summaryLine(const nlohmann::json& state);

/// summaryLine() without the time left: two States with the same key are the
/// same for `watch`, which prints a line only when the key changes. Pure.
std::string summaryKey(const nlohmann::json& state);

/// `status --format`: what the bar expects, ending in '\n'. Text is the time
/// left and the next action (cut to 32 characters on a UTF-8 boundary,
/// control characters made spaces), the tooltip the describeState() lines,
/// percentage the elapsed share of the timebox (0..100; 100 in review, 0
/// otherwise). waybar's text and tooltip are pangoEscape()d (waybar reads
/// Pango markup; issue 19 item 7), polybar's text polybarEscape()d; the
/// three i3blocks lines are plain text (i3blocks' default markup). waybar's
/// JSON is UTF-8, an invalid sequence written as U+FFFD. Pure.
std::string barOutput(const nlohmann::json& state, BarFormat format);

/// `watch --format`: one line per update, ending in '\n', for a bar that
/// reads a persistent command (issue 20 item 2). waybar and polybar get what
/// barOutput() gives (a single line already); i3blocks with
/// `interval=persist` takes every line as a new full_text, so it gets one
/// line of Pango markup, `<span foreground="#rrggbb">text</span>`, the
/// text pangoEscape()d (the block needs `markup=pango`). Pure.
std::string barLine(const nlohmann::json& state, BarFormat format);

/// barLine() while the daemon cannot be reached: "AntiDrift off", class
/// `offline`. Pure.
std::string offlineBarLine(BarFormat format);

/// barOutput() for a daemon that does not answer: text "AntiDrift off",
/// class `offline`, so the bar shows it instead of an error. Pure.
std::string offlineBarOutput(BarFormat format);

/// `text` safe inside Pango markup: & < > " ' as entities. Pure.
std::string pangoEscape(const std::string& text);

/// `text` safe inside a polybar format string: a zero-width space (U+200B)
/// after every '%', so the text can neither open a `%{…}` tag nor form a
/// `%%` nor join a tag that follows it; the text still reads the same.
/// Pure.
std::string polybarEscape(const std::string& text);

/// `text` on one line: each control character (C0 and DEL: a newline, a
/// tab) becomes a space, so a line-based output cannot be split by the text.
/// Other bytes pass unchanged. Pure.
std::string singleLine(std::string text);

/// "MM:SS" for under an hour, else "H:MM:SS"; negative counts as 0. Pure.
std::string formatDuration(long long seconds);

}  // namespace antidrift::cli
