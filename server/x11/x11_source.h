/// @file x11_source.h
/// The X11 evidence source (docs/DESIGN.md §3): event-driven through Xlib, no polling.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace antidrift {

/// What the X11 source reports. Called from the source's own thread.
struct X11SourceCallbacks {
  /// The foreground window: raw WM_CLASS class (second string) and title
  /// (_NET_WM_NAME, else WM_NAME converted to UTF-8). Unsanitised; the
  /// Controller sanitises. Also called on every heartbeat with the same window.
  std::function<void(const std::string& app, const std::string& title)> onWindow;
  /// The person went away (true) or came back (false), from the X server's idle time
  /// (see X11IdleDetection).
  std::function<void(bool away)> onAway;
  /// The source stopped working (display closed, X IO error); `why` is a short sentence.
  std::function<void(const std::string& why)> onFailed;
};

/// How the X11 source learns that the person went away or came back.
enum class X11IdleDetection {
  Off,  ///< idleAfterSecs is 0, or the server has neither SYNC nor XScreenSaver: never away
  /// SYNC extension alarms on the server's IDLETIME counter: one when idle time reaches
  /// idleAfterSecs (away), one when input resets it (back). No wake-up in between.
  SyncAlarms,
  /// XScreenSaver idle time (no SYNC or no IDLETIME counter): read when it could reach
  /// the threshold, then every second while away to see the person come back.
  ScreenSaverPolling,
};

/// "sync alarms", "XScreenSaver polling" or "nothing", for log lines.
std::string_view toString(X11IdleDetection detection);

/// Watches the active window of one X display on a background thread ("ad-x11").
///
/// Listens for PropertyNotify of _NET_ACTIVE_WINDOW on the root window and of
/// _NET_WM_NAME / WM_NAME on the active window; re-emits the current window
/// every `heartbeatSecs` while the heartbeat is on (setHeartbeat); reports
/// away after `idleAfterSecs` without input and back at the next input
/// (X11IdleDetection). A window that vanishes between
/// the event and the query is skipped (X errors are trapped, never fatal).
/// Waits on the X connection's file descriptor with poll(2) and a timeout
/// equal to the next heartbeat (or idle check, when polling), so it costs
/// nothing while nothing changes.
class X11Source {
 public:
  /// `display`: X display name ("" = $DISPLAY).
  X11Source(std::string display, std::int64_t heartbeatSecs, std::int64_t idleAfterSecs,
            X11SourceCallbacks callbacks);
  ~X11Source();  ///< stops and joins
  X11Source(const X11Source&) = delete;
  X11Source& operator=(const X11Source&) = delete;

  /// Opens the display and starts the thread. Returns false with `error` set
  /// (e.g. "no DISPLAY", "cannot open display :5") when it cannot; the daemon
  /// then runs with evidence "unavailable". Call at most once.
  bool start(std::string& error);
  /// Stops the thread and closes the display. Idempotent; thread-safe.
  void stop();

  /// Turns the heartbeat on or off (on at construction). The daemon turns it on
  /// only while a session is active (issue 8 item 2: no wake-up while nothing
  /// happens; buckets need it, a locked page does not: see Controller health).
  /// Turning it on re-emits the window in front at once, then every
  /// `heartbeatSecs`. Window changes are reported either way. Thread-safe, also
  /// from a callback and before start(); a no-op after stop().
  void setHeartbeat(bool on);

  /// How away and back are detected; chosen by start() (Off before, or when start()
  /// failed). Thread-safe.
  X11IdleDetection idleDetection() const;

  /// Tests only: use XScreenSaver polling even when SYNC alarms are available, to test
  /// the fallback on a server that has both. Call before start().
  void useScreenSaverPollingForTest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace antidrift
