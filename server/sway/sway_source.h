/// @file sway_source.h
/// The i3/sway IPC evidence source (docs/DESIGN.md §3, issue 10 item 1; docs/TECH-NOTES.md §7): one
/// protocol serves sway on Wayland and i3 on X11. Event-driven: a thread blocked in poll(2) on the
/// IPC socket, no polling loop.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace antidrift::sway {

/// Which IPC server the source talks to; decides the environment variable and the socket names
/// it searches for.
enum class IpcServer {
  Sway,  ///< $SWAYSOCK; sockets named sway-ipc.<uid>.<pid>.sock in $XDG_RUNTIME_DIR
  I3,    ///< $I3SOCK; sockets named ipc-socket.<pid> in $XDG_RUNTIME_DIR/i3
};

/// "sway" or "i3": the name of the source in Observation::source and in health.
std::string_view toString(IpcServer server);

/// Where the source looks for the socket, read again before every connection attempt (a
/// restarted sway makes a new socket with its new pid in the name).
struct IpcSocketLocation {
  std::string configuredPath;    ///< $SWAYSOCK or $I3SOCK, "" when unset
  std::string runtimeDirectory;  ///< $XDG_RUNTIME_DIR, "" when unset
  /// Reads both from this process's environment for `server`. Thread-safe.
  static IpcSocketLocation fromEnvironment(IpcServer server);
};

/// The paths to try, best first: `location.configuredPath` when it names an existing socket,
/// then every socket of `server`'s naming pattern in the configured path's folder and in the
/// runtime directory (for i3 its `i3` subfolder), newest first, without repeats. Only sockets
/// this user owns count, the configured one included (lstat; issue 19 item 7, review L9). Reads
/// the file system only; never throws (unreadable folders are skipped). Thread-safe.
std::vector<std::string> ipcSocketCandidates(IpcServer server, const IpcSocketLocation& location);

/// What the source reports, always from its own thread.
struct SwaySourceCallbacks {
  /// The focused window: app_id, else the X11 class, and the title, unsanitised (the
  /// Controller sanitises). Called on focus and title changes of the focused window and on
  /// every heartbeat with the same window.
  std::function<void(const std::string& app, const std::string& title)> onWindow;
  /// Connected and subscribed to `socketPath`: the source runs.
  std::function<void(const std::string& socketPath)> onConnected;
  /// The connection was lost (the compositor exited or restarted, a broken stream), or no
  /// socket could be reached; `why` is a short sentence. Called once per outage, not per
  /// retry; the source keeps retrying with backoff until stop().
  std::function<void(const std::string& why)> onDisconnected;
  /// A message that could not be understood (malformed JSON, an unexpected shape); it was
  /// skipped and the source goes on. For the log.
  std::function<void(const std::string& problem)> onProblem;
};

/// Timing of a SwaySource. Defaults are the daemon's; tests shorten them.
struct SwaySourceOptions {
  IpcServer server = IpcServer::Sway;
  /// Re-emits the current window this often, seconds (evidence.heartbeat_s); ≤ 0 = never.
  std::int64_t heartbeatSecs = 10;
  /// First wait before reconnecting after a failure, milliseconds; doubles up to
  /// maxRetryDelayMs and starts over after a successful connection.
  std::int64_t firstRetryDelayMs = 250;
  std::int64_t maxRetryDelayMs = 5000;  ///< longest wait between attempts, milliseconds
  /// Where to look; default: the process environment (IpcSocketLocation::fromEnvironment).
  std::function<IpcSocketLocation()> locate;
};

/// Follows the focused window of sway or i3 over the i3 IPC protocol on a background thread
/// ("ad-sway" or "ad-i3").
///
/// On connecting it sends SUBSCRIBE ["window","shutdown"] and GET_TREE (the focused window
/// now); then it follows "focus" events and "title" events of the focused window. A closed
/// socket, a stream that is out of step (bad magic) or a payload over kMaxIpcPayloadBytes
/// drops the connection: onDisconnected, then reconnect with backoff, finding the socket again
/// (a restarted compositor has a new one). Malformed JSON is reported through onProblem and
/// skipped. Idle time is not available over IPC (see README, "sway"): the source reports no
/// away state.
class SwaySource {
 public:
  /// Starts nothing.
  SwaySource(SwaySourceOptions options, SwaySourceCallbacks callbacks);
  ~SwaySource();  ///< stops and joins
  SwaySource(const SwaySource&) = delete;
  SwaySource& operator=(const SwaySource&) = delete;

  /// Starts the thread, which connects (and keeps trying) on its own. Returns false with
  /// `error` set when the thread or its wake-up descriptor cannot be created, or when called
  /// twice. Not finding the socket is no error here: onDisconnected says so, and the source
  /// keeps looking.
  bool start(std::string& error);
  /// Turns the heartbeat on or off (on at construction). The daemon turns it on only while
  /// a session is active (issue 8 item 2: no wake-up while nothing happens). Turning it on
  /// re-emits the focused window at once, then every heartbeatSecs. Focus and title events
  /// are reported either way. Thread-safe, also from a callback and before start(); a no-op
  /// after stop().
  void setHeartbeat(bool on);
  /// Stops the thread and closes the connection. Idempotent; thread-safe; may be called from
  /// a callback (the thread then ends after the callback returns).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace antidrift::sway
