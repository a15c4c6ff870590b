/// @file bar_watch.h
/// `antidrift watch --format waybar|i3blocks|polybar` (issue 20 item 2): a
/// status bar's persistent command. One connection to GET /events; one line
/// per change in the bar's own format (state_text.h's barLine()); the
/// countdown refreshed locally from the State's `remaining_secs`, without a
/// request; "AntiDrift off" while the daemon is gone, reconnecting by itself.
#pragma once

#include <chrono>
#include <cstdint>

#include "cli/daemon_client.h"
#include "cli/status_text.h"

namespace antidrift::cli {

/// Settings of a bar watch.
struct BarWatchOptions {
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
};

/// When the countdown next changes what a bar shows. `shownSecs` is the time
/// left now (rounded up, as the State's `remaining_secs`); returns the time
/// left at which to print next: the largest multiple of `refresh` below
/// `shownSecs` but not below 60 (60 itself when `refreshSecs` is 0), every
/// second within the last minute; -1 when nothing is left to count
/// (`shownSecs` ≤ 0). Pure.
long long nextShownSecs(long long shownSecs, long long refreshSecs);

/// Runs the watch, writing lines to file descriptor `outFd` (each with one
/// write(2), so each reaches the bar at once), until `outFd` is closed by its
/// reader (EPIPE, or poll(2) reports an error on it), or SIGTERM, SIGINT or
/// SIGHUP arrives. Sleeps in poll(2) between changes and ticks; a second
/// thread blocks reading the stream. Blocks those signals in the calling
/// thread (they are read from a signalfd) and ignores SIGPIPE. Returns 0
/// (a clean end); throws std::system_error when the process cannot set up
/// its descriptors. Call from the main thread, once.
int runBarWatch(const DaemonClient& client, const BarWatchOptions& options, int outFd);

}  // namespace antidrift::cli
