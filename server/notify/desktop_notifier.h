/// @file desktop_notifier.h
/// The daemon's desktop notifications (`notify.desktop`, `notify.command`):
/// `notify-send -a AntiDrift -p -- "AntiDrift: you drifted" "<reason>"` for
/// every drift episode (docs/DESIGN.md §4, last paragraph) — one notification
/// per session on screen, a later drift or reminder updating it in place
/// (`-r <id>`, the freedesktop replaces_id) — a reminder while the drift lasts
/// (`notify.repeat_s`, issue 17 item 2), the heads-up when `notify.heads_up`
/// is on, and `notify-send -a AntiDrift -- "AntiDrift: time is up" "<next
/// action>"` when a timebox runs out (issue 7 item 5), off the caller's
/// thread. `--` ends the options, so a reason starting with "-" stays text
/// (issue 19 item 7).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Logger.h>

#include "antidrift/session/state.h"
#include "server/notify/episode_tracker.h"

namespace antidrift::notify {

/// Fed every State (the Controller's change listener); sends a desktop
/// notification for every new drift episode (EpisodeTracker), replacing the
/// session's shown drift notification (the id notify-send printed) so the
/// screen holds one. A drift that comes while the shown one still waits for
/// its buttons ends that wait (the notification stays) and replaces it. The command runs on
/// the notifier's own worker thread ("ad-notify") through Poco::Process (argv, never a
/// shell) and is reaped there; at most kMaxPending notifications wait (the
/// oldest is dropped), so onState() never blocks on a slow or hung command.
/// A command that cannot be found is logged once on the logger
/// "antidrift.notify"; other failures are logged once at warning, later
/// ones at debug. Start it after the daemon forked (it owns a thread).
class DesktopNotifier {
 public:
  /// `-a` value: the application name shown by the notification server.
  static constexpr const char* kAppName = "AntiDrift";
  /// The notification's summary line; the body is the drift reason.
  static constexpr const char* kSummary = "AntiDrift: you drifted";
  /// The summary line when the timebox ran out; the body is the next action.
  static constexpr const char* kTimeUpSummary = "AntiDrift: time is up";
  /// The summary line of a reminder of a drift that lasts.
  static constexpr const char* kReminderSummary = "AntiDrift: still drifting";
  /// The summary line of the heads-up (notify.heads_up).
  static constexpr const char* kHeadsUpSummary = "AntiDrift: heads up";
  /// A new drift episode within this of the last drift notification is
  /// worded as part of a run ("Facebook — 2nd drift in 1 min").
  static constexpr std::chrono::seconds kMinGap{60};
  /// With actions, notify-send waits for the person; it is ended after this.
  static constexpr std::chrono::seconds kActionWait{20};
  /// The action keys notify-send prints when one is chosen.
  static constexpr const char* kActionOnTask = "ontask";
  static constexpr const char* kActionBack = "back";

  /// Everything but the command; the defaults are the old behaviour.
  struct Options {
    std::int64_t repeatMs = 0;                   ///< notify.repeat_s × 1000; 0 = no reminders
    std::chrono::milliseconds minGap = kMinGap;  ///< the run's gap (EpisodeTracker)
    bool headsUp = false;                        ///< notify.heads_up
    /// Offer "Back to task" / "This is on task" (the server lists "actions"
    /// among its capabilities); the chosen key goes to onAction, on the
    /// notifier's thread.
    bool actions = false;
    std::function<void(const std::string&)> onAction;
    /// Wraps each notification (DoNotDisturb::aroundOwnNotification, so it
    /// reaches the person under a dunst that holds everything); none = run it.
    std::function<void(const std::function<void()>&)> around;
    /// notify-send waits until each notification closes (at most
    /// kActionWait), so `around` lasts as long as it shows: under a dunst
    /// that holds everything, the hold is taken again only then.
    bool waitForClose = false;
    /// Monotonic milliseconds (reminders, rate limit); none = steady_clock.
    std::function<std::int64_t()> nowMs;
    /// The server lists "body-markup" among its capabilities: every body (a
    /// judge's reason, a site name, a next action — text from outside) is
    /// sent through escapeBodyMarkup(), so it shows as the text it is, never
    /// as a tag or a link (docs/SECURITY.md "N4"). Off: sent verbatim, as a
    /// server without markup shows it.
    bool escapeMarkup = false;
  };
  /// Notifications waiting for the worker, at most.
  static constexpr std::size_t kMaxPending = 2;
  /// A command still running after this is killed (and reaped).
  static constexpr std::chrono::seconds kCommandTimeout{10};

  /// `command`: notify.command (a program on $PATH or a path). Starts the
  /// worker thread.
  explicit DesktopNotifier(std::string command);
  /// The same with reminders, heads-up, actions and a wrapper (Options).
  DesktopNotifier(std::string command, Options options);
  /// Stops the worker: pending notifications are dropped, a running command
  /// is waited for (at most kCommandTimeout).
  ~DesktopNotifier();
  DesktopNotifier(const DesktopNotifier&) = delete;
  DesktopNotifier& operator=(const DesktopNotifier&) = delete;

  /// Looks at one State; queues a notification when it starts a new drift
  /// episode or the timebox ran out (EpisodeTracker). Thread-safe; takes a
  /// short lock and never waits for the command. States must come in
  /// version order: the daemon hands them over through StateDelivery
  /// (server/state_delivery.h, issue 15 item 3), so EpisodeTracker sees them
  /// in order.
  void onState(const State& state);

  /// `text` with `&`, `<` and `>` replaced by `&amp;`, `&lt;` and `&gt;`: the
  /// freedesktop notification spec's escaping of a body for a server that
  /// parses markup, so it shows `text` literally. Any other byte (UTF-8,
  /// quotes) is kept. Pure.
  static std::string escapeBodyMarkup(const std::string& text);

  /// The arguments after the command for a drift with `reason`:
  /// {"-a", kAppName, "--", kSummary, reason}; the reason is one argv
  /// element, verbatim. Pure.
  static std::vector<std::string> argumentsFor(const std::string& reason);
  /// The arguments for any notification: {"-a", kAppName, [actions], "--",
  /// summary, body}; with `actions`, "-A ontask=This is on task -A
  /// back=Back to task" (notify-send ≥ 0.7.9 then waits and prints the key
  /// chosen) and "-t 15000"; else with `wait`, "-w -t 15000" (waits until
  /// the notification closes). Each one argv element, verbatim. Pure.
  static std::vector<std::string> argumentsFor(const std::string& summary, const std::string& body,
                                               bool actions = false, bool wait = false);
  /// The same for the session's drift notification: "-p" after the app name
  /// (notify-send prints the id it got) and, when `replaceId` is not empty,
  /// "-r <replaceId>" (the server updates that notification in place). Pure.
  static std::vector<std::string> driftArgumentsFor(const std::string& summary,
                                                    const std::string& body, bool actions,
                                                    bool wait, const std::string& replaceId);

  /// Blocks until nothing is pending or running, at most `timeout`; true
  /// when idle. For tests.
  bool waitUntilIdleForTest(std::chrono::milliseconds timeout);
  /// Blocks until `count` commands have run in all, at most `timeout`; true
  /// when they have. For tests.
  bool waitForSentForTest(std::size_t count, std::chrono::milliseconds timeout);

 private:
  void work();
  /// One queued notification.
  struct Message {
    std::string summary;
    std::string body;
    bool actions = false;
    bool drift = false;     ///< the session's drift notification (replaced in place)
    std::string sessionId;  ///< its commitment id
  };
  std::int64_t nowMs() const;
  void queueLocked(Message message);
  void run(const Message& message);
  void send(const Message& message);
  bool commandFound() const;

  const std::string command_;
  const Options options_;
  Poco::Logger& logger_;
  std::mutex mutex_;
  std::condition_variable wake_;  ///< the worker: pending or stopping
  std::condition_variable idle_;  ///< waitUntilIdleForTest
  EpisodeTracker tracker_;        // guarded by mutex_
  std::deque<Message> pending_;   // guarded by mutex_
  bool running_ = false;          // guarded by mutex_
  bool stopping_ = false;         // guarded by mutex_
  bool runningWaits_ = false;     // guarded by mutex_: the running command waits for the person
  bool supersede_ = false;        // guarded by mutex_: a drift is queued; end that wait
  std::string driftId_;           // worker thread only: the shown drift notification's id
  std::string driftSessionId_;    // worker thread only: its session
  std::size_t sent_ = 0;          // guarded by mutex_: commands run
  bool missingLogged_ = false;    // worker thread only
  bool failureLogged_ = false;    // worker thread only
  std::thread worker_;
};

}  // namespace antidrift::notify
