/// @file sway_source.cpp
/// The i3/sway IPC evidence source (docs/TECH-NOTES.md §7).
///
/// One thread owns the connection. It waits in poll(2) on the IPC socket and on an eventfd
/// that stop() writes; the timeout is the next heartbeat (connected) or the next reconnection
/// attempt (disconnected), so nothing runs while nothing changes. Messages are processed in
/// stream order: events that arrive before the GET_TREE reply happened before the tree was
/// taken, so the reply, which comes later, is the newer truth.

#include "server/sway/sway_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "server/sway/ipc_codec.h"
#include "server/sway/ipc_window.h"
#include "server/sway/unix_socket.h"

namespace antidrift::sway {

namespace {

using SteadyClock = std::chrono::steady_clock;

/// Longer heartbeat intervals are treated as this one (keeps time arithmetic finite).
constexpr std::int64_t kMaxIntervalSecs = 366LL * 24 * 3600;
/// Bytes read from the socket at a time.
constexpr std::size_t kReadChunkBytes = 64 * 1024;
/// The events the source follows.
const std::string kSubscription = R"(["window","shutdown"])";

/// Calls a user callback; an exception from it must not end the source thread.
template <typename Function, typename... Arguments>
void invokeCallback(const Function& function, Arguments&&... arguments) {
  if (!function) {
    return;
  }
  try {
    function(std::forward<Arguments>(arguments)...);
  } catch (...) {
    // The callback's owner reports its own failures; the source keeps watching.
  }
}

bool namesSocketOf(IpcServer server, const std::string& fileName) {
  if (server == IpcServer::Sway) {
    const std::string prefix = "sway-ipc.";
    const std::string suffix = ".sock";
    return fileName.size() > prefix.size() + suffix.size() && fileName.rfind(prefix, 0) == 0 &&
           fileName.compare(fileName.size() - suffix.size(), suffix.size(), suffix) == 0;
  }
  const std::string prefix = "ipc-socket.";
  return fileName.size() > prefix.size() && fileName.rfind(prefix, 0) == 0;
}

/// A socket this user owns (lstat: a symbolic link is not followed). With
/// sway's /tmp fallback another user's `sway-ipc.*.sock` could sit beside
/// ours and feed us fake windows (issue 19 item 7, review L9).
bool isOwnSocket(const std::filesystem::path& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode) && info.st_uid == ::geteuid();
}

/// Milliseconds from `now` to `deadline` for poll(2), clamped to [0, one day].
int timeoutUntil(SteadyClock::time_point deadline, SteadyClock::time_point now) {
  const auto remaining = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::clamp<long long>(remaining, 0, 24LL * 3600 * 1000));
}

}  // namespace

std::string_view toString(IpcServer server) {
  return server == IpcServer::Sway ? "sway" : "i3";
}

IpcSocketLocation IpcSocketLocation::fromEnvironment(IpcServer server) {
  // getenv is safe here: the daemon never changes its environment after start-up.
  const char* configured = std::getenv(server == IpcServer::Sway ? "SWAYSOCK" : "I3SOCK");
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  return IpcSocketLocation{configured != nullptr ? configured : "",
                           runtime != nullptr ? runtime : ""};
}

std::vector<std::string> ipcSocketCandidates(IpcServer server, const IpcSocketLocation& location) {
  std::vector<std::string> candidates;
  if (!location.configuredPath.empty() && isOwnSocket(location.configuredPath)) {
    candidates.push_back(location.configuredPath);
  }
  std::vector<std::filesystem::path> folders;
  if (!location.configuredPath.empty()) {
    folders.push_back(std::filesystem::path(location.configuredPath).parent_path());
  }
  if (!location.runtimeDirectory.empty()) {
    std::filesystem::path runtime(location.runtimeDirectory);
    folders.push_back(server == IpcServer::Sway ? runtime : runtime / "i3");
  }
  std::vector<std::pair<std::filesystem::file_time_type, std::string>> found;
  for (const std::filesystem::path& folder : folders) {
    if (folder.empty()) {
      continue;
    }
    std::error_code error;
    std::filesystem::directory_iterator entries(folder, error);
    for (; !error && entries != std::filesystem::directory_iterator(); entries.increment(error)) {
      const std::filesystem::path& path = entries->path();
      if (!namesSocketOf(server, path.filename().string()) || !isOwnSocket(path)) {
        continue;
      }
      std::error_code timeError;
      const std::filesystem::file_time_type modified =
          std::filesystem::last_write_time(path, timeError);
      found.emplace_back(timeError ? std::filesystem::file_time_type::min() : modified,
                         path.string());
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& left, const auto& right) { return left.first > right.first; });
  for (auto& [modified, path] : found) {
    static_cast<void>(modified);
    if (std::find(candidates.begin(), candidates.end(), path) == candidates.end()) {
      candidates.push_back(std::move(path));
    }
  }
  return candidates;
}

struct SwaySource::Impl {
  Impl(SwaySourceOptions opts, SwaySourceCallbacks handlers)
      : options(std::move(opts)), callbacks(std::move(handlers)) {
    options.heartbeatSecs = std::min(options.heartbeatSecs, kMaxIntervalSecs);
    options.firstRetryDelayMs = std::max<std::int64_t>(options.firstRetryDelayMs, 1);
    options.maxRetryDelayMs = std::max(options.maxRetryDelayMs, options.firstRetryDelayMs);
    if (!options.locate) {
      const IpcServer server = options.server;
      options.locate = [server] { return IpcSocketLocation::fromEnvironment(server); };
    }
  }

  // Set before the thread starts, then read-only.
  SwaySourceOptions options;
  const SwaySourceCallbacks callbacks;
  /// eventfd: stop() and setHeartbeat() write it to end the thread's poll(). Set by
  /// start() and closed by stop() after the join, both under wakeMutex.
  int wakeFd = -1;
  std::mutex wakeMutex;  // guards writing and closing wakeFd from other threads
  /// setHeartbeat(): whether heartbeats are wanted (a session is active).
  std::atomic<bool> heartbeatWanted{true};

  std::atomic<bool> stopRequested{false};
  std::atomic<std::thread::id> threadId{};
  std::mutex lifecycleMutex;  // guards started, thread (start/stop from other threads)
  bool started = false;
  std::thread thread;

  // Source-thread state.
  bool outageReported = false;  // onDisconnected was called for the current outage
  bool haveCurrent = false;
  IpcWindow current;
  SteadyClock::time_point nextHeartbeat;
  bool heartbeating = true;  // heartbeatWanted as serve() last applied it

  void run();
  /// Writes the wake-up descriptor (any thread); nothing once stop() closed it.
  void wake();
  /// Resets the wake-up counter after a poll() saw it readable (source thread).
  void drainWake();
  /// Connects to the first reachable candidate; nullopt (with `why`) when none answers.
  std::optional<UnixSocket> connect(std::string& path, std::string& why);
  /// Serves one connection until it ends; returns why it ended ("" when stop() was asked).
  std::string serve(UnixSocket& socket);
  /// Handles one message; returns "" or why the connection must be dropped.
  std::string handleMessage(const IpcMessage& message);
  void handleWindowEvent(const std::string& payload);
  void handleTree(const std::string& payload);
  void setCurrent(const IpcWindow& window);
  void emitCurrent();
  void reportOutage(const std::string& why);
  /// Waits on the wake-up descriptor until `deadline`; false when stop() was asked.
  bool sleepUntil(SteadyClock::time_point deadline);
};

void SwaySource::Impl::run() {
  std::int64_t delayMs = options.firstRetryDelayMs;
  while (!stopRequested.load()) {
    std::string path;
    std::string why;
    std::optional<UnixSocket> socket = connect(path, why);
    if (socket) {
      outageReported = false;
      invokeCallback(callbacks.onConnected, path);
      why = serve(*socket);
      socket->close();
      haveCurrent = false;
      if (stopRequested.load()) {
        break;
      }
      delayMs = options.firstRetryDelayMs;
    }
    reportOutage(why);
    if (!sleepUntil(SteadyClock::now() + std::chrono::milliseconds(delayMs))) {
      break;
    }
    delayMs = std::min(delayMs * 2, options.maxRetryDelayMs);
  }
}

std::optional<UnixSocket> SwaySource::Impl::connect(std::string& path, std::string& why) {
  const IpcSocketLocation location = options.locate();
  const std::vector<std::string> candidates = ipcSocketCandidates(options.server, location);
  if (candidates.empty()) {
    const std::string variable = options.server == IpcServer::Sway ? "$SWAYSOCK" : "$I3SOCK";
    why = "no " + std::string(toString(options.server)) + " IPC socket found (" + variable +
          " = \"" + location.configuredPath + "\", $XDG_RUNTIME_DIR = \"" +
          location.runtimeDirectory + "\")";
    return std::nullopt;
  }
  for (const std::string& candidate : candidates) {
    try {
      UnixSocket socket = UnixSocket::connect(candidate);
      socket.sendAll(
          encodeIpcMessage(static_cast<std::uint32_t>(IpcRequest::Subscribe), kSubscription));
      socket.sendAll(encodeIpcMessage(static_cast<std::uint32_t>(IpcRequest::GetTree), ""));
      path = candidate;
      return socket;
    } catch (const std::exception& failure) {
      why = failure.what();  // a stale socket of an exited compositor: try the next one
    }
  }
  return std::nullopt;
}

std::string SwaySource::Impl::serve(UnixSocket& socket) {
  IpcDecoder decoder;
  std::string buffer(kReadChunkBytes, '\0');
  nextHeartbeat = SteadyClock::now() + std::chrono::seconds(options.heartbeatSecs);
  heartbeating = heartbeatWanted.load();
  while (!stopRequested.load()) {
    const SteadyClock::time_point now = SteadyClock::now();
    const bool wanted = heartbeatWanted.load();
    if (wanted != heartbeating) {
      heartbeating = wanted;
      nextHeartbeat = now;  // resuming: the window in front at once
    }
    const bool beat = heartbeating && options.heartbeatSecs > 0;
    if (beat && now >= nextHeartbeat) {
      if (haveCurrent) {
        emitCurrent();
      } else {
        nextHeartbeat = now + std::chrono::seconds(options.heartbeatSecs);
      }
    }
    const int timeoutMs = beat ? timeoutUntil(nextHeartbeat, now) : -1;
    pollfd descriptors[2] = {{socket.descriptor(), POLLIN, 0}, {wakeFd, POLLIN, 0}};
    const int ready = poll(descriptors, 2, timeoutMs);
    if (ready < 0) {
      if (errno == EINTR) {
        continue;
      }
      return std::string("waiting for IPC messages failed: ") + std::strerror(errno);
    }
    if (stopRequested.load()) {
      return "";
    }
    if ((descriptors[1].revents & POLLIN) != 0) {
      drainWake();
    }
    if (ready == 0 || (descriptors[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
      continue;
    }
    std::size_t count = 0;
    try {
      count = socket.receiveSome(buffer.data(), buffer.size());
    } catch (const std::system_error& failure) {
      return failure.what();
    }
    if (count == 0) {
      return "the " + std::string(toString(options.server)) + " IPC socket was closed";
    }
    decoder.append(buffer.data(), count);
    IpcMessage message;
    for (;;) {
      const IpcDecodeStatus status = decoder.next(message);
      if (status == IpcDecodeStatus::NeedMore) {
        break;
      }
      if (status == IpcDecodeStatus::BadMagic) {
        return "the IPC stream is out of step (a message without the i3-ipc magic)";
      }
      if (status == IpcDecodeStatus::TooLarge) {
        return "an IPC message announced a payload over " + std::to_string(kMaxIpcPayloadBytes) +
               " bytes";
      }
      std::string problem = handleMessage(message);
      if (!problem.empty()) {
        return problem;
      }
    }
  }
  return "";
}

std::string SwaySource::Impl::handleMessage(const IpcMessage& message) {
  if (message.type == kIpcWindowEvent) {
    handleWindowEvent(message.payload);
  } else if (message.type == static_cast<std::uint32_t>(IpcRequest::GetTree)) {
    handleTree(message.payload);
  } else if (message.type == static_cast<std::uint32_t>(IpcRequest::Subscribe)) {
    // {"success": true}; without the subscription no focus change would ever arrive.
    bool success = false;
    try {
      Poco::JSON::Parser parser;
      const Poco::JSON::Object::Ptr reply =
          parser.parse(message.payload).extract<Poco::JSON::Object::Ptr>();
      success = reply && reply->optValue<bool>("success", false);
    } catch (const std::exception&) {
      success = false;
    }
    if (!success) {
      return "the " + std::string(toString(options.server)) +
             " IPC server refused the window subscription";
    }
  }
  // The shutdown event and anything else: the closed socket that follows says enough.
  return "";
}

void SwaySource::Impl::handleWindowEvent(const std::string& payload) {
  const WindowEvent event = readWindowEvent(payload);
  if (!event.valid) {
    invokeCallback(callbacks.onProblem, "skipped a window event: " + event.error);
    return;
  }
  switch (event.change) {
    case WindowChange::Focus:
      setCurrent(event.container);
      break;
    case WindowChange::Title:
      if (haveCurrent && event.container.id == current.id) {
        setCurrent(event.container);
      }
      break;
    case WindowChange::Close:
      if (haveCurrent && event.container.id == current.id) {
        haveCurrent = false;  // the compositor sends a focus event for the next window
      }
      break;
    case WindowChange::Other:
      break;
  }
}

void SwaySource::Impl::handleTree(const std::string& payload) {
  const TreeReading reading = readFocusedWindow(payload);
  if (!reading.valid) {
    invokeCallback(callbacks.onProblem, "skipped a GET_TREE reply: " + reading.error);
    return;
  }
  if (reading.focused) {
    setCurrent(*reading.focused);
  }
}

void SwaySource::Impl::setCurrent(const IpcWindow& window) {
  const bool changed = !haveCurrent || window.id != current.id || window.app != current.app ||
                       window.title != current.title;
  haveCurrent = true;
  current = window;
  if (changed) {
    emitCurrent();
  }
}

void SwaySource::Impl::emitCurrent() {
  if (options.heartbeatSecs > 0) {
    nextHeartbeat = SteadyClock::now() + std::chrono::seconds(options.heartbeatSecs);
  }
  invokeCallback(callbacks.onWindow, current.app, current.title);
}

void SwaySource::Impl::reportOutage(const std::string& why) {
  if (outageReported) {
    return;
  }
  outageReported = true;
  invokeCallback(callbacks.onDisconnected, why);
}

void SwaySource::Impl::wake() {
  std::lock_guard<std::mutex> lock(wakeMutex);
  if (wakeFd >= 0) {
    const std::uint64_t one = 1;
    // The counter stays readable until read, so the next poll() returns at once.
    static_cast<void>(write(wakeFd, &one, sizeof one));
  }
}

void SwaySource::Impl::drainWake() {
  std::uint64_t count = 0;
  static_cast<void>(read(wakeFd, &count, sizeof count));
}

bool SwaySource::Impl::sleepUntil(SteadyClock::time_point deadline) {
  while (!stopRequested.load()) {
    const SteadyClock::time_point now = SteadyClock::now();
    if (now >= deadline) {
      return true;
    }
    pollfd descriptor{wakeFd, POLLIN, 0};
    const int ready = poll(&descriptor, 1, timeoutUntil(deadline, now));
    if (ready < 0 && errno != EINTR) {
      return !stopRequested.load();
    }
    if (ready > 0 && !stopRequested.load()) {
      drainWake();  // setHeartbeat(): nothing to do until connected
    }
  }
  return false;
}

SwaySource::SwaySource(SwaySourceOptions options, SwaySourceCallbacks callbacks)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(callbacks))) {}

SwaySource::~SwaySource() {
  stop();
  std::lock_guard<std::mutex> lock(impl_->lifecycleMutex);
  if (impl_->thread.joinable()) {
    // Destroyed from one of its own callbacks: the thread cannot join itself. It was told
    // to stop and ends on its own; its state is leaked on purpose rather than freed under it.
    impl_->thread.detach();
    static_cast<void>(impl_.release());
  }
}

bool SwaySource::start(std::string& error) {
  Impl& impl = *impl_;
  std::lock_guard<std::mutex> lock(impl.lifecycleMutex);
  if (impl.started) {
    error = "the " + std::string(toString(impl.options.server)) + " source was already started";
    return false;
  }
  {
    std::lock_guard<std::mutex> wakeLock(impl.wakeMutex);
    impl.wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  }
  if (impl.wakeFd < 0) {
    error = std::string("cannot create a wake-up descriptor: ") + std::strerror(errno);
    return false;
  }
  try {
    impl.thread = std::thread([&impl] {
      // Named for `top -H` and the idle benchmark ("ad-sway", "ad-i3"); the adapter does not
      // link the core's thread_name.h.
      const std::string threadName = "ad-" + std::string(toString(impl.options.server));
      static_cast<void>(pthread_setname_np(pthread_self(), threadName.substr(0, 15).c_str()));
      impl.threadId.store(std::this_thread::get_id());
      impl.run();
      impl.threadId.store(std::thread::id());  // ids of ended threads are reused
    });
  } catch (const std::system_error& failure) {
    error = "cannot start the " + std::string(toString(impl.options.server)) +
            " thread: " + failure.what();
    std::lock_guard<std::mutex> wakeLock(impl.wakeMutex);
    close(impl.wakeFd);
    impl.wakeFd = -1;
    return false;
  }
  impl.started = true;
  return true;
}

void SwaySource::stop() {
  Impl& impl = *impl_;
  impl.stopRequested.store(true);
  if (impl.threadId.load() == std::this_thread::get_id()) {
    return;  // called from a callback: the loop sees the flag when the callback returns
  }
  std::lock_guard<std::mutex> lock(impl.lifecycleMutex);
  impl.wake();
  if (impl.thread.joinable()) {
    impl.thread.join();
  }
  std::lock_guard<std::mutex> wakeLock(impl.wakeMutex);
  if (impl.wakeFd >= 0) {
    close(impl.wakeFd);
    impl.wakeFd = -1;
  }
}

void SwaySource::setHeartbeat(bool on) {
  if (impl_->heartbeatWanted.exchange(on) != on) {
    impl_->wake();
  }
}

}  // namespace antidrift::sway
