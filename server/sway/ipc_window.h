/// @file ipc_window.h
/// What the i3 IPC JSON says about windows (docs/TECH-NOTES.md §7; i3 ipc.html "tree", "window
/// event"; sway-ipc(7)): the focused window of a GET_TREE reply and the container of a window
/// event. Pure functions over Poco::JSON; malformed input is a value, never an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace antidrift::sway {

/// One window as the IPC server describes it.
struct IpcWindow {
  std::int64_t id = 0;  ///< the container id (stable for the window's life)
  /// `app_id` (a Wayland window under sway), else `window_properties.class` (X11 under i3, or
  /// XWayland under sway), else `window_properties.instance`, else "". Unsanitised.
  std::string app;
  std::string title;  ///< `name`, "" when null or absent. Unsanitised.
};

/// What a GET_TREE reply says is focused.
struct TreeReading {
  bool valid = false;  ///< false: not a JSON object tree (`error` says why)
  std::string error;   ///< one sentence when !valid
  /// The focused window; nullopt when the focus is on something that is no window (an empty
  /// workspace, an output) or nothing is focused.
  std::optional<IpcWindow> focused;
};

/// Finds the focused window in a GET_TREE payload: the node with `"focused": true` whose type
/// is "con" or "floating_con", searched through `nodes` and `floating_nodes` (depth capped,
/// so a hostile tree cannot exhaust the stack). Never throws. Pure; thread-safe.
TreeReading readFocusedWindow(const std::string& treeJson);

/// The `change` field of a window event.
enum class WindowChange {
  Focus,  ///< the container got the focus
  Title,  ///< the container's title changed
  Close,  ///< the container closed
  Other,  ///< new, move, floating, fullscreen_mode, urgent, mark, … (not used here)
};

/// A parsed window event.
struct WindowEvent {
  bool valid = false;  ///< false: malformed (`error` says why)
  std::string error;   ///< one sentence when !valid
  WindowChange change = WindowChange::Other;
  IpcWindow container;  ///< the event's `container`
};

/// Parses the payload of a window event (type kIpcWindowEvent). Never throws. Pure; thread-safe.
WindowEvent readWindowEvent(const std::string& payload);

}  // namespace antidrift::sway
