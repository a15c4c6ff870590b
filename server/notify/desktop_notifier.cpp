#include "server/notify/desktop_notifier.h"

#include <utility>

#include <Poco/Environment.h>
#include <Poco/Exception.h>
#include <Poco/File.h>
#include <Poco/Path.h>
#include <Poco/Process.h>

#include "antidrift/thread_name.h"

namespace antidrift::notify {
namespace {

/// Poco's child exits with this when exec fails (TECH-NOTES §3.1).
constexpr int kExecFailedExitCode = 72;
/// How often the worker looks whether the command has ended.
constexpr std::chrono::milliseconds kPollInterval{20};

}  // namespace

DesktopNotifier::DesktopNotifier(std::string command)
    : command_(std::move(command)), logger_(Poco::Logger::get("antidrift.notify")) {
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

std::vector<std::string> DesktopNotifier::argumentsFor(const std::string& reason) {
  return argumentsFor(kSummary, reason);
}

std::vector<std::string> DesktopNotifier::argumentsFor(const std::string& summary,
                                                       const std::string& body) {
  return {"-a", kAppName, summary, body};
}

void DesktopNotifier::onState(const State& state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state.version < newestVersion_) {
      return;  // delivered late: a newer State was seen already
    }
    newestVersion_ = state.version;
    std::optional<std::string> reason = tracker_.newDriftReason(state);
    std::optional<std::string> timeUp = tracker_.timeUpAction(state);
    if ((!reason && !timeUp) || stopping_) {
      return;
    }
    const auto queue = [this](Message message) {
      if (pending_.size() >= kMaxPending) {
        pending_.pop_front();
      }
      pending_.push_back(std::move(message));
    };
    if (reason) queue(Message{kSummary, std::move(*reason)});
    if (timeUp) queue(Message{kTimeUpSummary, std::move(*timeUp)});
  }
  wake_.notify_one();
}

bool DesktopNotifier::waitUntilIdleForTest(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, timeout, [this] { return pending_.empty() && !running_; });
}

void DesktopNotifier::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) {
      return;
    }
    const Message message = std::move(pending_.front());
    pending_.pop_front();
    running_ = true;
    lock.unlock();
    run(message);
    lock.lock();
    running_ = false;
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
  if (!commandFound()) {
    if (!missingLogged_) {
      logger_.warning("notify.desktop is on but \"" + command_ +
                      "\" was not found; no desktop notifications (install libnotify-bin)");
      missingLogged_ = true;
    }
    return;
  }
  int exitCode = 0;
  try {
    Poco::ProcessHandle handle =
        Poco::Process::launch(command_, argumentsFor(message.summary, message.body));
    const auto deadline = std::chrono::steady_clock::now() + kCommandTimeout;
    exitCode = handle.tryWait();
    while (exitCode == -1 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(kPollInterval);
      exitCode = handle.tryWait();
    }
    if (exitCode == -1) {
      Poco::Process::kill(handle);
      exitCode = handle.wait();
      logger_.warning("\"" + command_ + "\" did not end within " +
                      std::to_string(kCommandTimeout.count()) + " s and was killed");
      return;
    }
  } catch (const Poco::Exception& error) {
    logger_.warning("cannot run \"" + command_ + "\": " + error.displayText());
    return;
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
