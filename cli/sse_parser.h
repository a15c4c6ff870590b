/// @file sse_parser.h
/// The Server-Sent Events of GET /events (docs/API.md §4) cut out of the
/// stream's bytes, line by line. Plain C++: the `antidrift` command's
/// DaemonClient (Poco) and antidrift-watch (no Poco, issue 20 item 2) both
/// feed it.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace antidrift::cli {

/// Largest line, and largest event, the CLI reads from `/events`, bytes
/// (issue 19 item 7, review L7): an impostor cannot make a client buffer more.
inline constexpr std::size_t kMaxEventLineBytes = 256 * 1024;

/// One Server-Sent Event of GET /events (docs/API.md §4).
struct ServerEvent {
  std::string name;  ///< `event:` value; "message" when absent
  std::string data;  ///< `data:` lines joined by '\n'
};

/// A line, or the data of one event, is longer than kMaxEventLineBytes.
/// `what()` says which.
class SseTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Cuts events out of the bytes of an event stream, as the SSE format says:
/// lines end in "\n" (a "\r" before it is dropped), `event:` names the event,
/// `data:` lines are joined by '\n', an empty line ends the event (one with
/// neither name nor data is skipped), comments (":…") and other fields are
/// ignored, and one space after the colon is dropped. Bytes may arrive cut
/// anywhere. One object per stream; not thread-safe.
class SseParser {
 public:
  /// Called for each complete event; returns false to stop reading.
  using EventHandler = std::function<bool(const ServerEvent&)>;

  /// Feeds the next `bytes` of the stream and calls `onEvent` for each event
  /// they complete, in order. Returns false as soon as `onEvent` returns
  /// false (the rest of `bytes` is dropped), else true. Throws SseTooLarge
  /// when a line or an event's data grows past kMaxEventLineBytes (the
  /// stream should then be dropped).
  bool feed(std::string_view bytes, const EventHandler& onEvent);

 private:
  /// Handles one complete line (without "\n"); false when `onEvent` said stop.
  bool takeLine(const EventHandler& onEvent);

  std::string line_;
  ServerEvent event_;
};

}  // namespace antidrift::cli
