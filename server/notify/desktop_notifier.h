/// @file desktop_notifier.h
/// The daemon's desktop notifications (`notify.desktop`, `notify.command`):
/// `notify-send -a AntiDrift "AntiDrift: you drifted" "<reason>"` once per
/// drift episode (DESIGN §4, last paragraph) and `notify-send -a AntiDrift
/// "AntiDrift: time is up" "<next action>"` when a timebox runs out (issue 7
/// item 5), off the caller's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Logger.h>

#include "antidrift/session/state.h"
#include "server/notify/episode_tracker.h"

namespace antidrift::notify {

/// Fed every State (the Controller's change listener); sends one desktop
/// notification per new drift episode (EpisodeTracker). The command runs on
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
  /// Notifications waiting for the worker, at most.
  static constexpr std::size_t kMaxPending = 2;
  /// A command still running after this is killed (and reaped).
  static constexpr std::chrono::seconds kCommandTimeout{10};

  /// `command`: notify.command (a program on $PATH or a path). Starts the
  /// worker thread.
  explicit DesktopNotifier(std::string command);
  /// Stops the worker: pending notifications are dropped, a running command
  /// is waited for (at most kCommandTimeout).
  ~DesktopNotifier();
  DesktopNotifier(const DesktopNotifier&) = delete;
  DesktopNotifier& operator=(const DesktopNotifier&) = delete;

  /// Looks at one State; queues a notification when it starts a new drift
  /// episode or the timebox ran out (EpisodeTracker). Thread-safe; takes a
  /// short lock and never waits for the command. The Controller's listener
  /// may deliver an older State after a newer one (it runs outside the
  /// Controller's lock, on the thread that made the change); a State whose
  /// `version` is below the newest seen is ignored, so EpisodeTracker sees
  /// them in order.
  void onState(const State& state);

  /// The arguments after the command for a drift with `reason`:
  /// {"-a", kAppName, kSummary, reason}; the reason is one argv element,
  /// verbatim. Pure.
  static std::vector<std::string> argumentsFor(const std::string& reason);
  /// The arguments for any notification: {"-a", kAppName, summary, body};
  /// each one argv element, verbatim. Pure.
  static std::vector<std::string> argumentsFor(const std::string& summary, const std::string& body);

  /// Blocks until nothing is pending or running, at most `timeout`; true
  /// when idle. For tests.
  bool waitUntilIdleForTest(std::chrono::milliseconds timeout);

 private:
  void work();
  /// One queued notification.
  struct Message {
    std::string summary;
    std::string body;
  };
  void run(const Message& message);
  bool commandFound() const;

  const std::string command_;
  Poco::Logger& logger_;
  std::mutex mutex_;
  std::condition_variable wake_;     ///< the worker: pending or stopping
  std::condition_variable idle_;     ///< waitUntilIdleForTest
  EpisodeTracker tracker_;           // guarded by mutex_
  std::uint64_t newestVersion_ = 0;  // guarded by mutex_: the highest State::version seen
  std::deque<Message> pending_;      // guarded by mutex_
  bool running_ = false;             // guarded by mutex_
  bool stopping_ = false;            // guarded by mutex_
  bool missingLogged_ = false;       // worker thread only
  bool failureLogged_ = false;       // worker thread only
  std::thread worker_;
};

}  // namespace antidrift::notify
