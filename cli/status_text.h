/// @file status_text.h
/// What the `antidrift` command prints for a SessionSummary, the week and a
/// remembered verdict (docs/API.md §6, §10), and terminalSafe(). Pure
/// functions over parsed JSON (Poco). What it prints for a State is in
/// state_text.h, shared with antidrift-watch (issue 20 item 2).
#pragma once

#include <optional>
#include <string>

#include <Poco/JSON/Object.h>

#include "cli/state_text.h"

namespace antidrift::cli {

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

}  // namespace antidrift::cli
