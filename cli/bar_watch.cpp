#include "cli/bar_watch.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include <Poco/Exception.h>
#include <nlohmann/json.hpp>

namespace antidrift::cli {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

[[noreturn]] void throwErrno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

/// A file descriptor closed on destruction.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// What the reader thread hands to the main thread: only the newest (a bar
/// shows the present, so intermediate States need not be printed).
class Mailbox {
 public:
  explicit Mailbox(int wakeFd) : wakeFd_(wakeFd) {}

  void putState(std::string json) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_ = std::move(json);
      offline_ = false;
    }
    poke();
  }

  void putOffline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_.reset();
      offline_ = true;
    }
    poke();
  }

  /// The newest State JSON or nullopt; `offline` whether the stream went
  /// down since (and no State came after). Empties the mailbox.
  std::optional<std::string> take(bool& offline) {
    std::uint64_t count = 0;
    while (::read(wakeFd_, &count, sizeof count) < 0 && errno == EINTR) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    offline = offline_;
    offline_ = false;
    std::optional<std::string> state = std::move(state_);
    state_.reset();
    return state;
  }

  /// Waits up to `wait` unless stop() is called; true when stopping.
  bool waitOrStop(std::chrono::milliseconds wait) {
    std::unique_lock<std::mutex> lock(mutex_);
    return stopped_.wait_for(lock, wait, [this] { return stopping_; });
  }

  bool stopping() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stopping_;
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    stopped_.notify_all();
  }

 private:
  void poke() {
    const std::uint64_t one = 1;
    while (::write(wakeFd_, &one, sizeof one) < 0 && errno == EINTR) {
    }
  }

  int wakeFd_;
  mutable std::mutex mutex_;
  std::condition_variable stopped_;
  std::optional<std::string> state_;
  bool offline_ = false;
  bool stopping_ = false;
};

/// The reader thread: one stream at a time; after it ends, "off" and a
/// retry with a growing pause.
void readStreams(const DaemonClient& client, const BarWatchOptions& options, Mailbox& mailbox,
                 StreamCancel& cancel) {
  std::chrono::milliseconds backoff = options.firstBackoff;
  while (!mailbox.stopping()) {
    try {
      client.streamEvents(
          [&](const ServerEvent& event) {
            if (event.name == "bye") {
              return false;  // the daemon is stopping
            }
            if (event.name == "state") {
              backoff = options.firstBackoff;
              mailbox.putState(event.data);
            }
            return true;
          },
          options.silenceLimit, &cancel);
    } catch (const DaemonUnreachable&) {
      // Not running, gone, or silent: shown as "off" below.
    } catch (const Poco::Exception&) {
      // A malformed answer: the same.
    }
    if (mailbox.stopping()) {
      return;
    }
    mailbox.putOffline();
    if (mailbox.waitOrStop(backoff)) {
      return;
    }
    backoff = std::min(backoff * 2, options.maxBackoff);
  }
}

/// Writes all of `line`; false when the reader has gone (EPIPE) or the
/// descriptor fails otherwise.
bool writeLine(int fd, const std::string& line) {
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

/// The State being shown and when it arrived, to count down locally.
struct Shown {
  json state;
  bool counting = false;  ///< active with a commitment: the countdown runs
  long long remainingAtReceipt = 0;
  Clock::time_point receivedAt;

  /// Time left now, rounded up like the daemon's `remaining_secs`.
  long long remainingNow(Clock::time_point now) const {
    const long long elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - receivedAt).count();
    const long long leftMs = remainingAtReceipt * 1000 - elapsedMs;
    return leftMs <= 0 ? 0 : (leftMs + 999) / 1000;
  }
};

/// A State's JSON as Shown; nullopt when it is no JSON object.
std::optional<Shown> parseShown(const std::string& text, Clock::time_point now) {
  Shown shown;
  shown.state = json::parse(text, nullptr, false);
  if (shown.state.is_discarded() || !shown.state.is_object()) {
    return std::nullopt;
  }
  shown.receivedAt = now;
  const auto runtime = shown.state.find("runtime");
  const auto commitment = shown.state.find("commitment");
  if (runtime != shown.state.end() && *runtime == "active" && commitment != shown.state.end() &&
      commitment->is_object()) {
    shown.counting = true;
    const auto remaining = commitment->find("remaining_secs");
    if (remaining != commitment->end() && remaining->is_number_integer()) {
      shown.remainingAtReceipt = remaining->get<long long>();
    }
  }
  return shown;
}

}  // namespace

long long nextShownSecs(long long shownSecs, long long refreshSecs) {
  if (shownSecs <= 0) {
    return -1;
  }
  if (shownSecs <= 60) {
    return shownSecs - 1;
  }
  if (refreshSecs <= 0) {
    return 60;  // only the last minute is counted
  }
  const long long below = (shownSecs - 1) / refreshSecs * refreshSecs;
  return std::max(below, 60LL);
}

int runBarWatch(const DaemonClient& client, const BarWatchOptions& options, int outFd) {
  ::signal(SIGPIPE, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  // Blocked before the reader thread starts, so it inherits the mask and the
  // signals wait in the signalfd for the main thread.
  if (pthread_sigmask(SIG_BLOCK, &signals, nullptr) != 0) {
    throwErrno("pthread_sigmask");
  }
  const Descriptor signalFd(::signalfd(-1, &signals, SFD_CLOEXEC));
  if (signalFd.get() < 0) {
    throwErrno("signalfd");
  }
  const Descriptor wakeFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (wakeFd.get() < 0) {
    throwErrno("eventfd");
  }

  Mailbox mailbox(wakeFd.get());
  StreamCancel cancel;
  std::thread reader([&] { readStreams(client, options, mailbox, cancel); });

  std::optional<Shown> shown;
  bool offline = false;
  std::string lastLine;
  const long long refresh = options.refresh.count();
  for (;;) {
    // What the bar shows now, and when the countdown next changes it.
    const Clock::time_point now = Clock::now();
    std::string line;
    int timeoutMs = -1;
    if (offline) {
      line = offlineBarLine(options.format);
    } else if (shown) {
      if (shown->counting) {
        const long long left = shown->remainingNow(now);
        shown->state["commitment"]["remaining_secs"] = left;
        const long long next = nextShownSecs(left, refresh);
        if (next >= 0) {
          const Clock::time_point due =
              shown->receivedAt + std::chrono::seconds(shown->remainingAtReceipt - next);
          const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - now).count();
          timeoutMs = static_cast<int>(std::clamp<long long>(wait, 0, 24LL * 3600 * 1000));
        }
      }
      line = barLine(shown->state, options.format);
    }
    if (!line.empty() && line != lastLine) {
      if (!writeLine(outFd, line)) {
        break;
      }
      lastLine = line;
    }

    pollfd fds[3] = {{signalFd.get(), POLLIN, 0}, {wakeFd.get(), POLLIN, 0}, {outFd, 0, 0}};
    const int ready = ::poll(fds, 3, timeoutMs);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      throwErrno("poll");
    }
    if (fds[0].revents != 0 || fds[2].revents != 0) {
      break;  // SIGTERM/SIGINT/SIGHUP, or the bar closed our stdout
    }
    if (fds[1].revents != 0) {
      bool wentOffline = false;
      const std::optional<std::string> json = mailbox.take(wentOffline);
      if (json) {
        if (std::optional<Shown> parsed = parseShown(*json, Clock::now())) {
          shown = std::move(parsed);  // else not a State: keep showing the last one
          offline = false;
        }
      } else if (wentOffline) {
        offline = true;
        shown.reset();
      }
    }
  }
  mailbox.stop();
  cancel.cancel();
  reader.join();
  return 0;
}

}  // namespace antidrift::cli
