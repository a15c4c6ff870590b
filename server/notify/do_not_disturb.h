/// @file do_not_disturb.h
/// Do-not-disturb while a session runs (issue 17 item 3, `focus.do_not_disturb`):
/// other apps' notifications are held while a commitment is active and
/// released when it ends, through the notification server's own switch
/// (dunst, mako, swaync, GNOME, xfce4-notifyd; docs/TECH-NOTES.md §8). Crash-safe: the
/// hold is recorded in the store before the switch is thrown and undone at
/// the next start.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Logger.h>

#include "antidrift/session/state.h"

namespace antidrift::notify {

/// One server's do-not-disturb switch, as argv lists (the program first,
/// looked up on $PATH). Pure data.
struct DndBackend {
  std::string name;                  ///< "dunst" | "mako" | "swaync" | "gnome" | "xfce"
  std::vector<std::string> hold;     ///< holds other apps' notifications
  std::vector<std::string> release;  ///< shows them again
  std::vector<std::string> query;    ///< prints the current switch; empty = cannot ask
  /// `query`'s output (trimmed) when held already; for mako a line of the output.
  std::string heldAnswer;
  /// The server holds every notification while held, AntiDrift's own too
  /// (dunst 1.9: critical urgency included, docs/TECH-NOTES.md §8): the switch is
  /// released around AntiDrift's own notifications.
  bool holdsOwnNotifications = false;
};

/// The backend called `name` ("dunst", "mako", "swaync", "gnome", "xfce");
/// nullopt for any other name. Pure.
std::optional<DndBackend> dndBackendNamed(const std::string& name);

/// The backend for a server by the name its GetServerInformation gives
/// ("dunst", "mako", "SwayNotificationCenter", "gnome-shell", "Xfce Notify
/// Daemon"; case-insensitive); "" when AntiDrift has no switch for it (KDE
/// Plasma: its Inhibit lasts only as long as the caller's bus connection, and
/// the daemon holds none). Pure.
std::string dndBackendForServer(const std::string& serverName);

/// The name of the notification server that owns org.freedesktop.Notifications
/// on the session bus of this process's environment ($DBUS_SESSION_BUS_ADDRESS),
/// from its GetServerInformation; "" when no bus address is set, no server
/// owns the name (asked with NameHasOwner first, so no server is started by
/// D-Bus activation), or `dbus-send` is missing or fails. Runs `dbus-send`
/// twice (each at most a few seconds). Thread-safe.
std::string notificationServerName();

/// The capabilities the notification server on the session bus lists in its
/// GetCapabilities ("actions", "body-markup", …; the freedesktop notification
/// spec), in its order; empty when no bus address is set, no server owns the
/// name, or the call fails. Runs `dbus-send` once (at most a few seconds).
/// Call after notificationServerName() answered a name. Thread-safe.
std::vector<std::string> notificationServerCapabilities();

/// Whether the notification server on the session bus lists "actions" among
/// its GetCapabilities (buttons on a notification); false when no bus
/// address is set, no server owns the name, or the call fails. Call after
/// notificationServerName() answered a name. Thread-safe.
bool notificationServerHasActions();

/// Runs `argv` (argv[0] looked up on $PATH, no shell) with stdout captured
/// and stderr dropped (both must stay below a pipe's 64 KiB: they are read
/// after the exit); kills it after `timeout`, or as soon as `stop` (asked
/// every poll, on the caller's thread) answers true. Returns the exit code
/// (72 when the program is missing, −1 when it was killed or could not be
/// launched) and sets `out` when given — also for a killed command (what it
/// printed before; one stopped by `stop` is first given up to 2 s to finish
/// its first line). Thread-safe.
int runCommand(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
               std::string* out = nullptr, const std::function<bool()>& stop = {});

/// A sink of the Controller's States (the daemon's change listener, like
/// DesktopNotifier): holds notifications while the runtime is active, releases
/// them otherwise. The commands run on the object's own worker thread
/// ("ad-dnd") through Poco::Process, never on the caller's thread nor under
/// the Controller's lock. States come in version order through StateDelivery
/// (server/state_delivery.h, issue 15 item 3), so it keeps no guard of its own. When the switch was
/// already held by the person before a session (their own do-not-disturb), it is left alone, and
/// not released at the end.
///
/// Crash safety: `<store>/dnd.state` names the backend and is written (and
/// fsynced) before the hold and removed after the release;
/// releaseLeftover() at the next start releases a hold a crash left behind.
/// The destructor releases a hold (the daemon destroys it at SIGTERM/SIGINT).
class DoNotDisturb {
 public:
  /// Each command is killed after this.
  static constexpr std::chrono::seconds kCommandTimeout{5};
  /// The record file's name in the store directory.
  static constexpr const char* kStateFileName = "dnd.state";

  /// `backend`: the switch to use; `storeDir`: where dnd.state lives. Starts
  /// the worker thread. Touches nothing until onState() sees an active State.
  DoNotDisturb(DndBackend backend, std::string storeDir);
  /// Stops the worker and releases the hold if this object holds it (the
  /// clean exit). Runs the release command on the calling thread.
  ~DoNotDisturb();
  DoNotDisturb(const DoNotDisturb&) = delete;
  DoNotDisturb& operator=(const DoNotDisturb&) = delete;

  /// If `<storeDir>/dnd.state` exists (a hold left by a daemon that did not
  /// exit cleanly), runs the release of the backend it names and removes the
  /// file; returns that backend's name, "" when there was nothing to do. Call
  /// at start before any DoNotDisturb exists. Never throws; failures go to
  /// the log "antidrift.dnd".
  static std::string releaseLeftover(const std::string& storeDir);

  /// Looks at one State: wants the hold while `state.runtime` is active.
  /// Thread-safe; never waits for a command.
  void onState(const State& state);

  /// Runs `send` (AntiDrift's own notification) so that it reaches the
  /// person: when this object holds a server that holds everything (dunst),
  /// the hold is released, `send` runs, and the hold is taken again after
  /// `send` returned (held notifications of other apps show meanwhile — the
  /// price of dunst 1.9 having no pause levels). Otherwise just runs `send`.
  /// Called on the notifier's thread; serialised with the worker's commands.
  void aroundOwnNotification(const std::function<void()>& send);

  /// The backend's name. Thread-safe.
  const std::string& backendName() const { return backend_.name; }

  /// Blocks until the worker has applied the newest wish, at most `timeout`;
  /// true when settled. For tests.
  bool waitUntilSettledForTest(std::chrono::milliseconds timeout);
  /// Stops the worker without releasing, as a crash would leave things. For tests.
  void abandonForTest();

 private:
  void work();
  /// Applies `hold` (true = hold). Called with commandMutex_ held.
  void apply(bool hold);
  bool writeRecord();
  void removeRecord();

  const DndBackend backend_;
  const std::string storeDir_;
  Poco::Logger& logger_;
  std::mutex commandMutex_;    ///< serialises the commands (worker, own notification, exit)
  bool holding_ = false;       // guarded by commandMutex_: this object threw the switch
  bool heldByPerson_ = false;  // guarded by commandMutex_: was held before a session
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable settled_;
  bool want_ = false;       // guarded by mutex_
  bool applied_ = false;    // guarded by mutex_: the last wish the worker applied
  bool busy_ = false;       // guarded by mutex_
  bool stopping_ = false;   // guarded by mutex_
  bool abandoned_ = false;  // guarded by mutex_
  std::thread worker_;
};

}  // namespace antidrift::notify
