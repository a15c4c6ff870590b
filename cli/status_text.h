/// @file status_text.h
/// What the `antidrift` command prints for a State or a SessionSummary
/// (docs/API.md §5, §6): lines for people, and the formats status bars read
/// (waybar, i3blocks, polybar; issue 10 item 2). Pure functions over parsed
/// JSON: no I/O, no clock (the State carries `remaining_secs`).
#pragma once

#include <optional>
#include <string>

#include <Poco/JSON/Object.h>

namespace antidrift::cli {

/// Output of `status --format`.
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
std::string barClass(const Poco::JSON::Object& state);

/// `status` for people: "key: value" lines, each ending in '\n' — runtime,
/// and as far as they apply next action, done when, remaining ("12:34 of
/// 25:00"), drift (barClass() and reason; AntiDrift's own page: "neutral
/// (this is AntiDrift, not counted either way)"), heads up, window (app, title,
/// evidence health), outcome, last lesson, then describeAi(). Pure.
std::string describeState(const Poco::JSON::Object& state);

/// The AI lines of `status` (issue 18 items 2–4), each ending in '\n': "AI:
/// openai (Ollama at 127.0.0.1:11434, model m) — auto" or "AI: off — <why>",
/// "titles go: stay on this machine (local 127.0.0.1:11434)" / "off this
/// machine" / "nowhere (AI off)", and "AI cost: N calls, I tokens in, O out
/// (estimated), m:ss waiting" once a call was made. "" without an `ai`
/// object. Pure.
std::string describeAi(const Poco::JSON::Object& state);

/// One line (no '\n') summing up a State for `watch`, e.g. "active ontask:
/// Write the intro (24:59 left)" or "locked". Pure.
std::string summaryLine(const Poco::JSON::Object& state);

/// summaryLine() without the time left: two States with the same key are the
/// same for `watch`, which prints a line only when the key changes. Pure.
std::string summaryKey(const Poco::JSON::Object& state);

/// `status --format`: what the bar expects, ending in '\n'. Text is the time
/// left and the next action (cut to 32 characters on a UTF-8 boundary,
/// control characters made spaces), the tooltip the describeState() lines,
/// percentage the elapsed share of the timebox (0..100; 100 in review, 0
/// otherwise). waybar's text and tooltip are pangoEscape()d (waybar reads
/// Pango markup; issue 19 item 7), polybar's text polybarEscape()d; the
/// three i3blocks lines are plain text (i3blocks' default markup). Pure.
std::string barOutput(const Poco::JSON::Object& state, BarFormat format);

/// `watch --format`: one line per update, ending in '\n', for a bar that
/// reads a persistent command (issue 20 item 2). waybar and polybar get what
/// barOutput() gives (a single line already); i3blocks with
/// `interval=persist` takes every line as a new full_text, so it gets one
/// line of Pango markup, `<span foreground="#rrggbb">text</span>`, the
/// text pangoEscape()d (the block needs `markup=pango`). Pure.
std::string barLine(const Poco::JSON::Object& state, BarFormat format);

/// barLine() while the daemon cannot be reached: "AntiDrift off", class
/// `offline`. Pure.
std::string offlineBarLine(BarFormat format);

/// `text` safe inside Pango markup: & < > " ' as entities. Pure.
std::string pangoEscape(const std::string& text);

/// `text` safe inside a polybar format string: a zero-width space (U+200B)
/// after every '%', so the text can neither open a `%{…}` tag nor form a
/// `%%` nor join a tag that follows it; the text still reads the same.
/// Pure.
std::string polybarEscape(const std::string& text);

/// barOutput() for a daemon that does not answer: text "AntiDrift off",
/// class `offline`, so the bar shows it instead of an error. Pure.
std::string offlineBarOutput(BarFormat format);

/// One line (no '\n') for a SessionSummary of `history`: local start time
/// ("YYYY-MM-DD HH:MM"), outcome, planned and actual time as the page's
/// history writes them ("planned 6 min · actual 2 min"; issue 17 item 3 of
/// the number walk), drift episodes ("1 drift", "4 drifts"), the
/// review's answer ("met: yes", "met: partly", "met: no", "met: not
/// answered"; issue 17 item 4, re-walk) and the next action, separated by two
/// spaces. Pure apart from the time zone.
std::string historyLine(const Poco::JSON::Object& summary);

/// The review's note of a SessionSummary as an indented line of `history`
/// (no '\n'): "    note: Intro half done"; "" without a note. Control
/// characters (a newline, a tab) become spaces, so the note stays on its line;
/// the caller still passes it through terminalSafe() (issue 19 item 7). Issue
/// 17 item 4, re-walk. Pure.
std::string historyNoteLine(const Poco::JSON::Object& summary);

/// The second, indented line of a session in `history` (issue 17 item 5):
/// "    drift went to: youtube.com 5 min over 6 visits · longest on-task
/// stretch: 12 min"; "unknown" for what a session recorded before these
/// figures lacks (null), never 0; "no drift" for an empty list. Pure.
std::string historyDetailLine(const Poco::JSON::Object& summary);

/// The week's trend of GET /history's `week` (issue 17 item 5): "this week:
/// 90 min focused, drift 12%, 3 of 4 kept · last week: …" ("—" for a share
/// without evidence); "" without `week`. Pure.
std::string weekLine(const Poco::JSON::Object& history);

/// `text` safe to write to a terminal (issue 19 item 7, review L7): every
/// C0 control character except '\n' and '\t', DEL, and every C1 control
/// (U+0080–U+009F, UTF-8 C2 80–C2 9F) removed, so an answer from an
/// impostor can neither move the cursor nor send escape sequences (OSC 52
/// clipboard writes, title changes). Other bytes pass unchanged. Pure.
std::string terminalSafe(const std::string& text);

/// One line (no '\n') for a remembered verdict of `verdicts` (GET /verdicts,
/// issue 16 item 3): "on"/"off", "you"/"judge", the kind and what it names
/// ("site firefox: youtube.com"), the reason, and "[key …]" with the key as
/// escapeVerdictKey writes it. Pure.
std::string verdictLine(const Poco::JSON::Object& verdict);

/// A verdict key on one line: '\' becomes "\\" and a newline "\n". Pure.
std::string escapeVerdictKey(const std::string& key);
/// The inverse of escapeVerdictKey ("\n" → newline, "\\" → '\'; any other
/// backslash is kept). Pure.
std::string unescapeVerdictKey(const std::string& text);

/// "MM:SS" for under an hour, else "H:MM:SS"; negative counts as 0. Pure.
std::string formatDuration(long long seconds);

}  // namespace antidrift::cli
