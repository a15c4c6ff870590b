#include "server/notify/desktop_notifier.h"

#include <algorithm>
#include <utility>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Process.h>

#include "antidrift/thread_name.h"
#include "server/notify/do_not_disturb.h"

namespace antidrift::notify {
namespace {

/// Poco's child exits with this when exec fails (docs/TECH-NOTES.md §3.1).
constexpr int kExecFailedExitCode = 72;

}  // namespace

DesktopNotifier::DesktopNotifier(std::string command)
    : DesktopNotifier(std::move(command), Options{}) {}

DesktopNotifier::DesktopNotifier(std::string command, Options options)
    : command_(std::move(command)),
      options_(std::move(options)),
      logger_(Poco::Logger::get("antidrift.notify")),
      tracker_(options_.repeatMs, options_.minGap.count()) {
  worker_ = std::thread([this] {
    setCurrentThreadName("ad-notify");
    work();
  });
}

DesktopNotifier::~DesktopNotifier() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    pending_.clear();
  }
  wake_.notify_all();
  worker_.join();
}

std::string DesktopNotifier::escapeBodyMarkup(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::vector<std::string> DesktopNotifier::argumentsFor(const std::string& reason) {
  return argumentsFor(kSummary, reason);
}

std::vector<std::string> DesktopNotifier::argumentsFor(const std::string& summary,
                                                       const std::string& body, bool actions,
                                                       bool wait) {
  std::vector<std::string> arguments{"-a", kAppName};
  if (actions) {
    arguments.insert(arguments.end(),
                     {"-A", std::string(kActionBack) + "=Back to task", "-A",
                      std::string(kActionOnTask) + "=This is on task", "-t", "15000"});
  } else if (wait) {
    arguments.insert(arguments.end(), {"-w", "-t", "15000"});
  }
  arguments.insert(arguments.end(), {"--", summary, body});
  return arguments;
}

std::vector<std::string> DesktopNotifier::driftArgumentsFor(const std::string& summary,
                                                            const std::string& body, bool actions,
                                                            bool wait,
                                                            const std::string& replaceId) {
  std::vector<std::string> arguments = argumentsFor(summary, body, actions, wait);
  std::vector<std::string> ours{"-p"};
  if (!replaceId.empty()) ours.insert(ours.end(), {"-r", replaceId});
  arguments.insert(arguments.begin() + 2, ours.begin(), ours.end());
  return arguments;
}

std::int64_t DesktopNotifier::nowMs() const {
  if (options_.nowMs) return options_.nowMs();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void DesktopNotifier::queueLocked(Message message) {
  if (pending_.size() >= kMaxPending) {
    pending_.pop_front();
  }
  pending_.push_back(std::move(message));
}

void DesktopNotifier::onState(const State& state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<std::string> reason = tracker_.newDriftReason(state, nowMs());
    std::optional<std::string> timeUp = tracker_.timeUpAction(state);
    std::optional<std::string> headsUp = tracker_.newHeadsUp(state);
    if (stopping_) {
      return;
    }
    const std::string sessionId = state.commitment ? state.commitment->id : std::string();
    if (reason) {
      queueLocked(Message{kSummary, std::move(*reason), options_.actions, true, sessionId});
      if (running_ && runningWaits_) supersede_ = true;
    }
    if (timeUp) queueLocked(Message{kTimeUpSummary, std::move(*timeUp), false, false, sessionId});
    if (headsUp && options_.headsUp)
      queueLocked(Message{kHeadsUpSummary, std::move(*headsUp), false, false, sessionId});
  }
  // Also when nothing was queued: the reminder's due time may have moved.
  wake_.notify_one();
}

bool DesktopNotifier::waitUntilIdleForTest(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, timeout, [this] { return pending_.empty() && !running_; });
}

bool DesktopNotifier::waitForSentForTest(std::size_t count, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, timeout,
                        [this, count] { return sent_ >= count && pending_.empty() && !running_; });
}

void DesktopNotifier::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const auto ready = [this] { return stopping_ || !pending_.empty(); };
    const std::optional<std::int64_t> due = tracker_.nextReminderMs();
    if (due) {
      const std::int64_t wait = std::max<std::int64_t>(0, *due - nowMs());
      wake_.wait_for(lock, std::chrono::milliseconds(wait), ready);
      if (!stopping_ && pending_.empty()) {
        if (std::optional<std::string> reason = tracker_.reminder(nowMs())) {
          queueLocked(Message{kReminderSummary, std::move(*reason), options_.actions, true,
                              driftSessionId_});
        }
      }
    } else {
      wake_.wait(lock, ready);
    }
    if (stopping_) {
      return;
    }
    if (pending_.empty()) {
      continue;  // woken for a new due time, or the reminder is not due yet
    }
    const Message message = std::move(pending_.front());
    pending_.pop_front();
    running_ = true;
    runningWaits_ = message.actions || options_.waitForClose;
    supersede_ = false;
    lock.unlock();
    run(message);
    lock.lock();
    running_ = false;
    runningWaits_ = false;
    ++sent_;
    idle_.notify_all();
  }
}

bool DesktopNotifier::commandFound() const {
  try {
    Poco::Path path(command_);
    if (command_.find('/') == std::string::npos &&
        !Poco::Path::find(Poco::Environment::get("PATH", ""), command_, path)) {
      return false;
    }
    Poco::File file(path);
    return file.exists() && file.isFile() && file.canExecute();
  } catch (const Poco::Exception&) {
    return false;
  }
}

void DesktopNotifier::run(const Message& message) {
  if (options_.around) {
    options_.around([this, &message] { send(message); });
  } else {
    send(message);
  }
}

void DesktopNotifier::send(const Message& message) {
  if (!commandFound()) {
    if (!missingLogged_) {
      logger_.warning("notify.desktop is on but \"" + command_ +
                      "\" was not found; no desktop notifications (install libnotify-bin)");
      missingLogged_ = true;
    }
    return;
  }
  std::vector<std::string> argv{command_};
  if (message.drift && message.sessionId != driftSessionId_) {
    driftSessionId_ = message.sessionId;
    driftId_.clear();  // a new session's first drift is a new notification
  }
  // docs/SECURITY.md "N4": a server that parses markup would render a
  // reason's <span> and <a href>, and parse its <img>.
  const std::string body = options_.escapeMarkup ? escapeBodyMarkup(message.body) : message.body;
  const std::vector<std::string> arguments =
      message.drift ? driftArgumentsFor(message.summary, body, message.actions,
                                        options_.waitForClose, driftId_)
                    : argumentsFor(message.summary, body, message.actions, options_.waitForClose);
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  std::string chosen;
  const bool waits = message.actions || options_.waitForClose;
  Poco::Path stdbuf;
  if (message.drift && waits &&
      Poco::Path::find(Poco::Environment::get("PATH", ""), "stdbuf", stdbuf)) {
    // A waiting notify-send that a newer drift ends is killed; its id line
    // must have reached the pipe by then, not sit in its stdio buffer.
    argv.insert(argv.begin(), {stdbuf.toString(), "-oL"});
  }
  bool superseded = false;
  const int exitCode =
      runCommand(argv, waits ? kActionWait : kCommandTimeout, &chosen, [this, &superseded] {
        std::lock_guard<std::mutex> lock(mutex_);
        superseded = supersede_ || stopping_;
        return superseded;
      });
  if (message.drift) {
    // With -p the first line is the id the server gave (the one replaced
    // keeps its id); the chosen action, if any, follows.
    const std::size_t end = chosen.find('\n');
    const std::string first = chosen.substr(0, end);
    if (!first.empty() && first.find_first_not_of("0123456789") == std::string::npos) {
      driftId_ = first;
      chosen = end == std::string::npos ? std::string() : chosen.substr(end + 1);
    }
  }
  if (exitCode == -1) {
    if (superseded) return;  // a newer drift replaces this notification in place
    if (!waits) {
      logger_.warning("\"" + command_ + "\" did not end within " +
                      std::to_string(kCommandTimeout.count()) + " s and was killed");
    }
    return;  // with actions: the person did not choose one in time
  }
  chosen = chosen.substr(0, chosen.find('\n'));
  if (exitCode == 0 && message.actions && options_.onAction &&
      (chosen == kActionOnTask || chosen == kActionBack)) {
    options_.onAction(chosen);
  }
  if (exitCode == kExecFailedExitCode && !missingLogged_) {
    logger_.warning("\"" + command_ + "\" could not be started; no desktop notifications");
    missingLogged_ = true;
  } else if (exitCode != 0 && exitCode != kExecFailedExitCode) {
    const std::string message = "\"" + command_ + "\" failed with exit code " +
                                std::to_string(exitCode) + " (is a notification server running?)";
    if (failureLogged_) {
      logger_.debug(message);
    } else {
      logger_.warning(message);
      failureLogged_ = true;
    }
  }
}

}  // namespace antidrift::notify
