/// @file watch_client.h
/// antidrift-watch: what `antidrift watch --format waybar|i3blocks|polybar`
/// runs (issue 20 item 2). A status bar's persistent command: one
/// connection to GET /events; one line per change in the bar's own format
/// (state_text.h's barLine()); the countdown refreshed locally from the
/// State's `remaining_secs`, without a request; "AntiDrift off" while the
/// daemon is gone, reconnecting by itself.
///
/// It links no Poco, and writes its HTTP by hand over a POSIX socket (one
/// fixed GET, a status line, headers and a chunked body) where every other
/// client of the project uses Poco::Net: a bar keeps it running all day, and
/// its target is ≤ 5 MB RSS at rest. The pages Poco's libraries touch at
/// start (Foundation, Net, Util, XML, JSON: 4.0 MiB of the Poco watch's
/// 8.1) alone made that impossible; this one keeps about 2.5 MiB
/// (docs/PERFORMANCE.md, issue 20). `antidrift` reads the
/// configuration and execs it (watchClientArguments()), so the command a
/// user writes is the same. It never needs the token: GET /events takes
/// none (docs/API.md §1), so none is passed or read.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/state_text.h"
#include "server/socket_owner.h"

namespace antidrift::cli {

/// Settings of a bar watch.
struct WatchClientOptions {
  BarFormat format = BarFormat::Waybar;
  /// Seconds between countdown refreshes while more than a minute is left
  /// (the shown time is then a multiple of it); the last minute is refreshed
  /// every second. 0: not before the last minute.
  std::chrono::seconds refresh{60};
  /// Waits between reconnection attempts: the first, doubled after each
  /// failure up to the last; back to the first once a State arrives.
  std::chrono::milliseconds firstBackoff{250};
  std::chrono::milliseconds maxBackoff{8000};
  /// A stream silent this long (no event, no keep-alive) counts as lost.
  std::chrono::seconds silenceLimit{50};
  /// Longest wait for a connection to be accepted.
  std::chrono::seconds connectTimeout{10};
  /// The daemon's address (a numeric IPv4 or IPv6 address and the port).
  SocketEnd daemon;
  /// The Host header: "127.0.0.1:7717", "localhost:7717", "[::1]:7717".
  std::string host;
};

/// The arguments `antidrift` passes to antidrift-watch for `options` (after
/// the program name): `--format F --refresh S --silence S --timeout S
/// --address A --port P --host H`. Pure.
std::vector<std::string> watchClientArguments(const WatchClientOptions& options);

/// The inverse of watchClientArguments(): every option must be there once,
/// with a valid value (a known format, whole seconds 0..86400, a numeric
/// address, a port 1..65535). nullopt with `error` set (one sentence)
/// otherwise. Pure.
std::optional<WatchClientOptions> parseWatchClientArguments(const std::vector<std::string>& args,
                                                            std::string& error);

/// When the countdown next changes what a bar shows. `shownSecs` is the time
/// left now (rounded up, as the State's `remaining_secs`); returns the time
/// left at which to print next: the largest multiple of `refresh` below
/// `shownSecs` but not below 60 (60 itself when `refreshSecs` is 0), every
/// second within the last minute; -1 when nothing is left to count
/// (`shownSecs` ≤ 0). Pure.
long long nextShownSecs(long long shownSecs, long long refreshSecs);

/// The answer to GET /events as its bytes arrive: the status line and the
/// headers, then the body — chunked (what antidriftd sends), or up to the
/// end of the connection — handed on decoded. A head over 16 KiB, a chunk
/// size line over 64 bytes or a chunk size that is no hex number is
/// Malformed. One object per connection; not thread-safe.
class EventStreamResponse {
 public:
  /// What feed() found.
  enum class Progress {
    More,       ///< read on
    Stopped,    ///< the body handler returned false
    Ended,      ///< the last chunk came: the daemon ended the stream
    Refused,    ///< a status other than 200 (e.g. 503: too many streams)
    Malformed,  ///< not an HTTP/1.x answer this reader understands
  };

  /// Gets a piece of the decoded body; returns false to stop reading.
  using BodyHandler = std::function<bool(std::string_view)>;

  /// Feeds the next bytes of the connection. Once the result is anything but
  /// More, the object is done (further calls return the same).
  Progress feed(std::string_view bytes, const BodyHandler& onBody);

  /// The status code, once the status line was read (else 0).
  int status() const { return status_; }

 private:
  enum class Phase { Head, ChunkSize, ChunkData, ChunkEnd, Raw, Done };

  /// Reads the status line and headers in head_; sets phase_ or done_.
  Progress takeHead();

  Phase phase_ = Phase::Head;
  Progress done_ = Progress::More;
  std::string head_;  ///< the head so far, then the chunk-size line so far
  unsigned long long chunkLeft_ = 0;
  int status_ = 0;
};

/// Runs the watch, writing lines to file descriptor `outFd` (each with one
/// write(2), so each reaches the bar at once) and a sentence to `errFd` when
/// the listener belongs to another user (once per distinct sentence), until
/// `outFd` is closed by its reader (EPIPE, or poll(2) reports an error on
/// it), or SIGTERM, SIGINT or SIGHUP arrives. One thread: sleeps in poll(2)
/// between changes, ticks and reconnections. Blocks those signals (they are
/// read from a signalfd) and ignores SIGPIPE. Returns 0 (a clean end);
/// throws std::system_error when the process cannot set up its descriptors.
/// Call once per process.
int runWatchClient(const WatchClientOptions& options, int outFd, int errFd);

}  // namespace antidrift::cli
