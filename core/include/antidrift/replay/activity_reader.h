/// @file activity_reader.h
/// The replay's input (issue 8 item 1; issue 15 item 2, the replay split into reading, running
/// and the report): recorded activity — an ActivityWatch export or a JSONL of observations —
/// read into time-sorted window events and away spans, and the commitments file that says what
/// each stretch of it was for. What the replay runs (replay.h) starts from what these return.
#pragma once

#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace antidrift::replay {

/// Input that cannot be replayed: a missing or unreadable file, JSON that is
/// not an export, a line or field of the wrong shape. what() is one sentence
/// naming the file (or "input"), the line or event and the field.
class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One window in front, as recorded.
struct WindowEvent {
  std::int64_t atMs = 0;        ///< UTC ms it came to the front
  std::int64_t durationMs = 0;  ///< how long it stayed, ms (≥ 0; 0 = a flicker)
  std::string app;              ///< window class as recorded (normalised on replay)
  std::string title;            ///< window title as recorded (sanitised on replay)
};

/// A stretch the person was away (ActivityWatch's afk bucket, "status": "afk").
struct AwaySpan {
  std::int64_t startMs = 0;  ///< UTC ms
  std::int64_t endMs = 0;    ///< UTC ms, ≥ startMs
};

/// One aw-watcher-web event (`web.tab.current`): the browser's active tab over a span
/// (issue 16 item 4). Only the domain of `url` is ever used (joinWebEvents, replay.h).
struct WebEvent {
  std::int64_t atMs = 0;        ///< UTC ms the span starts
  std::int64_t durationMs = 0;  ///< its length, ms (≥ 0)
  std::string url;              ///< data.url as recorded; "" for an incognito tab
  std::string title;            ///< data.title as recorded
  bool incognito = false;       ///< data.incognito: a private tab
};

/// What a file holds, sorted by time (oldest first).
struct Activity {
  std::vector<WindowEvent> windows;
  std::vector<AwaySpan> away;
  /// The events of "web.tab.current" buckets (aw-watcher-web), joined to the windows by
  /// joinWebEvents (replay.h; issue 16 item 4).
  std::vector<WebEvent> web;
  std::size_t webEvents = 0;  ///< events of web buckets ("web." types) read
};

/// Reads an ActivityWatch export: {"buckets": {id: {"type", "events": [{"timestamp" (ISO 8601
/// with offset, or UTC ms), "duration" (s), "data"}]}}} — "currentwindow" buckets give windows
/// (data.app, data.title), "afkstatus" buckets away spans (data.status "afk"), "web.tab.current"
/// buckets web events (data.url, data.title, data.incognito; an event without a string url is
/// skipped; nothing but the title and time of an incognito tab is kept), other "web." buckets
/// are counted; other keys and buckets are skipped. Events in any order, buckets taken in id
/// order (a bucket id given twice: the last one). Streamed (issue 16 item 5): memory grows with
/// the events kept, not with the file. Throws ReplayError naming `name` and the bucket and event
/// index of the first bad field in file order, or the line and column of a JSON syntax error;
/// containers nested deeper than 128 levels are an error. Pure apart from reading `in`.
Activity parseActivityWatch(std::istream& in, const std::string& name);

/// Reads a JSONL of observations, one JSON object a line (blank lines and lines starting with
/// '#' skipped): {"at": UTC ms or ISO 8601, "app", "title", "duration_s" (optional, default: until
/// the next line, at most evidence.idle_after_s)} for a window, or {"at", "away": true|false} for
/// the person leaving or coming back. Read line by line. Throws ReplayError "<name> line N: …".
Activity parseObservationsJsonl(std::istream& in, const std::string& name);

/// Reads `in` as an ActivityWatch export when its first JSON value is an object with "buckets"
/// and nothing follows it, else as JSONL (parseObservationsJsonl). `in` must be seekable (a file
/// or a string stream): it is read from its start again for JSONL. Throws ReplayError for an
/// empty or malformed input, or "cannot read <name>" on an I/O error.
Activity readActivity(std::istream& in, const std::string& name);

/// Opens `path` and reads it (readActivity). Throws ReplayError for a missing, unreadable,
/// empty or malformed file.
Activity loadActivity(const std::string& path);

/// One commitment over a time range [fromMs, toMs) of the replay.
struct CommitmentRange {
  std::int64_t fromMs = 0;  ///< UTC ms; INT64_MIN = from the start
  std::int64_t toMs = 0;    ///< UTC ms; INT64_MAX = to the end
  std::string nextAction;
  std::string successCondition;
  std::vector<std::string> allowedApps;  ///< as a person types them (normalised on replay)
};

/// Reads a commitments file: one commitment a line, five fields separated by '|':
/// `FROM | TO | next action | success condition | app, app, …`. FROM and TO are ISO 8601
/// (2020-06-28T09:00:00+02:00) or "*" (open end); blank lines and '#' lines are skipped. Ranges
/// must not overlap. Throws ReplayError "<name> line N: …". Pure apart from reading `in`.
std::vector<CommitmentRange> parseCommitments(std::istream& in, const std::string& name);

}  // namespace antidrift::replay
