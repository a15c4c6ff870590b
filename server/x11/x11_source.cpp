/// @file x11_source.cpp
/// The X11 evidence source (docs/DESIGN.md §3; docs/TECH-NOTES.md §6).
///
/// One thread owns one Display and is the only thread that touches it after start() opened it
/// (and set up idle detection), so XInitThreads() is not needed. The thread waits in poll(2) on
/// the X connection and on an eventfd that stop() writes; the timeout is the time to the next
/// heartbeat (or idle check, when polling), so nothing runs while nothing changes.
///
/// Idle time (away / back), as GNOME's idle monitor does it: the SYNC extension's IDLETIME
/// system counter (ms since the last input) with two alarms, a PositiveTransition at the
/// threshold (away) and a NegativeTransition just below it (input reset the counter: back).
/// The X server sends an XSyncAlarmNotify at each crossing, so nothing wakes while the person
/// stays at the keyboard or stays away. Without SYNC or IDLETIME the source falls back to
/// XScreenSaver: idle time is read when the threshold could be reached and, while away, every
/// second (input resets that counter but sends no event to a third client).
///
/// Error handling:
/// - Xlib's protocol-error and IO-error handlers are process-global. They are installed
///   once and route by Display to a per-source ErrorState; errors on displays that are not
///   ours go to the handler that was installed before (Xlib's default exits the process).
/// - A protocol error (BadWindow from a window that vanished between the event and the
///   query) is recorded and the window is skipped; it is never fatal.
/// - A fatal IO error (the X server went away): Xlib calls the global IO handler, then the
///   per-display exit handler, and Xlib's rule is that neither may return. libX11 1.8 lifts
///   that rule for the exit handler (XSetIOErrorExitHandler): when it returns, the failing
///   Xlib call unwinds normally and the Display can still be closed. Our IO handler must
///   return too, because Xlib's default IO handler exits before the exit handler runs. The
///   thread then reports onFailed, closes the Display and ends.
///   Without XSetIOErrorExitHandler (libX11 < 1.7.99) Xlib exits the process after an IO
///   error whatever we do; ANTIDRIFT_HAVE_IO_ERROR_EXIT_HANDLER is set by CMake when the
///   function exists. An IO error during XOpenDisplay itself (the server dies during the
///   handshake) happens before any exit handler can be set and still ends the process.
///
/// Without an EWMH window manager (no _NET_ACTIVE_WINDOW on the root) the source falls
/// back to XGetInputFocus, walking up to the window that carries WM_CLASS. Focus changes
/// send no event to a third client, so in that mode a change is seen at the next X event
/// or heartbeat.

#include "x11_source.h"

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/scrnsaver.h>
#include <X11/extensions/sync.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

namespace antidrift {

namespace {

using SteadyClock = std::chrono::steady_clock;

/// XScreenSaver fallback: while the person is away, idle time is checked this often to see
/// them come back (input resets the XScreenSaver idle counter but sends no event to us).
constexpr std::chrono::milliseconds kAwayRecheckInterval{1000};
/// The longest title read from _NET_WM_NAME, in 32-bit units (16 KiB); the Controller
/// cuts titles to 512 bytes anyway.
constexpr long kMaxTitleLongs = 4096;
/// Longer heartbeat or idle intervals are treated as this one (keeps time arithmetic finite).
constexpr std::int64_t kMaxIntervalSecs = 366LL * 24 * 3600;
/// How many parents to climb from the focus window to one with WM_CLASS (fallback mode).
constexpr int kMaxFocusClimb = 16;

/// What the global handlers record for one Display. Only the source thread makes Xlib
/// calls on that Display, and Xlib calls the handlers on the calling thread, but the
/// fields are atomic so that start() and the thread agree without further locking.
struct ErrorState {
  std::atomic<int> lastErrorCode{Success};  ///< last protocol error since clear
  std::atomic<bool> connectionLost{false};  ///< set by the IO exit handler
  /// Errors about this resource are not recorded: the window we stop watching may be
  /// gone already, and its BadWindow must not count against the next window's reads.
  std::atomic<XID> ignoredResource{None};
};

std::mutex gRegistryMutex;
std::map<Display*, ErrorState*> gRegistry;  // guarded by gRegistryMutex
XErrorHandler gPreviousErrorHandler = nullptr;
XIOErrorHandler gPreviousIoErrorHandler = nullptr;

ErrorState* findErrorState(Display* display) {
  std::lock_guard<std::mutex> lock(gRegistryMutex);
  const auto found = gRegistry.find(display);
  return found == gRegistry.end() ? nullptr : found->second;
}

int handleProtocolError(Display* display, XErrorEvent* event) {
  if (ErrorState* state = findErrorState(display)) {
    if (event->resourceid == None || event->resourceid != state->ignoredResource.load()) {
      state->lastErrorCode.store(event->error_code);
    }
    return 0;
  }
  return gPreviousErrorHandler != nullptr ? gPreviousErrorHandler(display, event) : 0;
}

int handleIoError(Display* display) {
  if (ErrorState* state = findErrorState(display)) {
    state->connectionLost.store(true);
    return 0;  // let Xlib go on to the per-display exit handler, which returns too
  }
  return gPreviousIoErrorHandler != nullptr ? gPreviousIoErrorHandler(display) : 0;
}

#ifdef ANTIDRIFT_HAVE_IO_ERROR_EXIT_HANDLER
void handleIoErrorExit(Display* /*display*/, void* userData) {
  static_cast<ErrorState*>(userData)->connectionLost.store(true);
}
#endif

void installHandlersOnce() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    gPreviousErrorHandler = XSetErrorHandler(handleProtocolError);
    gPreviousIoErrorHandler = XSetIOErrorHandler(handleIoError);
  });
}

void registerDisplay(Display* display, ErrorState* state) {
  std::lock_guard<std::mutex> lock(gRegistryMutex);
  gRegistry[display] = state;
}

/// Removes `display` only if it still maps to `state`: after XCloseDisplay another source
/// may already have opened a Display at the same address and registered it.
void unregisterDisplay(Display* display, const ErrorState* state) {
  std::lock_guard<std::mutex> lock(gRegistryMutex);
  const auto found = gRegistry.find(display);
  if (found != gRegistry.end() && found->second == state) {
    gRegistry.erase(found);
  }
}

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

XSyncValue toSyncValue(std::int64_t value) {
  XSyncValue result;
  XSyncIntsToValue(&result, static_cast<unsigned int>(value & 0xffffffffLL),
                   static_cast<int>(value >> 32));
  return result;
}

std::int64_t fromSyncValue(const XSyncValue& value) {
  return (static_cast<std::int64_t>(XSyncValueHigh32(value)) << 32) |
         static_cast<std::int64_t>(XSyncValueLow32(value));
}

}  // namespace

std::string_view toString(X11IdleDetection detection) {
  switch (detection) {
    case X11IdleDetection::SyncAlarms:
      return "sync alarms";
    case X11IdleDetection::ScreenSaverPolling:
      return "XScreenSaver polling";
    case X11IdleDetection::Off:
      break;
  }
  return "nothing";
}

struct X11Source::Impl {
  Impl(std::string name, std::int64_t heartbeat, std::int64_t idleAfter,
       X11SourceCallbacks handlers)
      : displayName(std::move(name)),
        heartbeatSecs(std::min(heartbeat, kMaxIntervalSecs)),
        idleAfterSecs(std::min(idleAfter, kMaxIntervalSecs)),
        callbacks(std::move(handlers)) {}

  // Set before the thread starts, then read-only.
  const std::string displayName;
  const std::int64_t heartbeatSecs;
  const std::int64_t idleAfterSecs;
  const X11SourceCallbacks callbacks;
  Display* display = nullptr;
  /// eventfd: stop() and setHeartbeat() write it to end the source thread's poll().
  /// Set by start() and closed by stop() after the join, both under wakeMutex.
  int wakeFd = -1;
  std::mutex wakeMutex;  // guards writing and closing wakeFd from other threads
  /// setHeartbeat(): whether heartbeats are wanted (a session is active).
  std::atomic<bool> heartbeatWanted{true};

  ErrorState errors;
  std::atomic<bool> stopRequested{false};
  std::atomic<std::thread::id> threadId{};
  std::mutex lifecycleMutex;  // guards started, thread (start/stop from other threads)
  bool started = false;
  std::thread thread;
  /// Set by start() before the thread starts, then read-only.
  std::atomic<X11IdleDetection> idleDetection{X11IdleDetection::Off};
  bool screenSaverOnlyForTest = false;  // before start() only

  // Source-thread state.
  Window root = None;
  Atom netActiveWindow = None;
  Atom netWmName = None;
  Atom utf8String = None;
  Window watched = None;  // the active window whose PropertyChangeMask we selected
  bool haveCurrent = false;
  std::string currentApp;
  std::string currentTitle;
  bool idlePolled = false;  // XScreenSaver polling (ScreenSaverPolling)
  XScreenSaverInfo* screenSaverInfo = nullptr;
  int syncEventBase = 0;  // SyncAlarms: where the extension's events start
  XSyncCounter idleCounter = None;
  XSyncAlarm awayAlarm = None;  // PositiveTransition at the threshold
  XSyncAlarm backAlarm = None;  // NegativeTransition just below it
  bool away = false;
  bool heartbeating = true;  // heartbeatWanted as the loop last applied it
  SteadyClock::time_point nextHeartbeat;
  SteadyClock::time_point nextIdleCheck;

  /// Records protocol errors from construction on; failed() says whether one came.
  class ErrorTrap {
   public:
    explicit ErrorTrap(Impl& impl) : impl_(impl) { impl_.errors.lastErrorCode.store(Success); }
    /// Whether a request since construction failed. Waits for the replies of requests
    /// without one (XSyncCreateAlarm) first, so their errors are counted.
    bool failedAfterSync() {
      XSync(impl_.display, False);
      return failed();
    }
    /// Whether a request since construction failed (enough after round-trip requests).
    bool failed() const { return impl_.errors.lastErrorCode.load() != Success; }

   private:
    Impl& impl_;
  };

  bool connectionLost() const { return errors.connectionLost.load(); }

  void run();
  void setUpIdleDetection();
  bool setUpSyncAlarms();
  XSyncAlarm createAlarm(XSyncTestType test, std::int64_t valueMs);
  void setUp();
  void tearDown();
  bool waitForWork();
  void handleEvent(const XEvent& event);
  void refreshActiveWindow(bool forceEmit);
  Window readActiveWindow();
  Window readFocusedClientWindow();
  bool readClassAndTitle(Window window, std::string& app, std::string& title);
  bool readUtf8Title(Window window, std::string& title);
  bool readLegacyTitle(Window window, std::string& title);
  void watchWindow(Window window);
  void emitCurrent();
  void checkIdle(SteadyClock::time_point now);
  void readInitialIdle();
  void handleAlarm(const XSyncAlarmNotifyEvent& alarm);
  void setAway(bool awayNow);
  /// Writes the wake-up descriptor (any thread); nothing once stop() closed it.
  void wake();
  std::int64_t thresholdMs() const { return idleAfterSecs * 1000; }
};

void X11Source::Impl::run() {
  setUp();
  heartbeating = heartbeatWanted.load();
  refreshActiveWindow(true);  // the initial window, right after start
  readInitialIdle();
  while (!stopRequested.load() && !connectionLost()) {
    if (!waitForWork()) {
      break;
    }
    const SteadyClock::time_point now = SteadyClock::now();
    const bool wanted = heartbeatWanted.load();
    if (wanted != heartbeating) {
      heartbeating = wanted;
      if (heartbeating) {
        refreshActiveWindow(true);  // heartbeats resume with the window in front now
      }
    } else if (heartbeating && heartbeatSecs > 0 && now >= nextHeartbeat) {
      refreshActiveWindow(true);
    }
    if (idlePolled && now >= nextIdleCheck) {
      checkIdle(now);
    }
  }
  if (connectionLost() && !stopRequested.load()) {
    invokeCallback(callbacks.onFailed,
                   std::string("lost the connection to X display ") + DisplayString(display));
  }
  tearDown();
}

void X11Source::Impl::setUp() {
  root = DefaultRootWindow(display);
  char atomNameActive[] = "_NET_ACTIVE_WINDOW";
  char atomNameTitle[] = "_NET_WM_NAME";
  char atomNameUtf8[] = "UTF8_STRING";
  char* names[] = {atomNameActive, atomNameTitle, atomNameUtf8};
  Atom atoms[3] = {None, None, None};
  XInternAtoms(display, names, 3, False, atoms);
  netActiveWindow = atoms[0];
  netWmName = atoms[1];
  utf8String = atoms[2];
  XSelectInput(display, root, PropertyChangeMask);
  nextIdleCheck = SteadyClock::now();
}

/// Chooses how away and back are detected (start(), before the thread): SYNC alarms when the
/// server has SYNC with an IDLETIME counter, else XScreenSaver polling, else nothing.
void X11Source::Impl::setUpIdleDetection() {
  if (idleAfterSecs <= 0) {
    return;
  }
  if (!screenSaverOnlyForTest && setUpSyncAlarms()) {
    idleDetection.store(X11IdleDetection::SyncAlarms);
    return;
  }
  int eventBase = 0;
  int errorBase = 0;
  if (XScreenSaverQueryExtension(display, &eventBase, &errorBase)) {
    screenSaverInfo = XScreenSaverAllocInfo();
    idlePolled = screenSaverInfo != nullptr;
  }
  if (idlePolled) {
    idleDetection.store(X11IdleDetection::ScreenSaverPolling);
  }
}

/// Finds the IDLETIME system counter and creates the away and back alarms on it.
bool X11Source::Impl::setUpSyncAlarms() {
  int eventBase = 0;
  int errorBase = 0;
  int major = 0;
  int minor = 0;
  if (XSyncQueryExtension(display, &eventBase, &errorBase) == False ||
      XSyncInitialize(display, &major, &minor) == False) {
    return false;
  }
  int count = 0;
  XSyncSystemCounter* counters = XSyncListSystemCounters(display, &count);
  for (int i = 0; counters != nullptr && i < count; ++i) {
    if (counters[i].name != nullptr && std::strcmp(counters[i].name, "IDLETIME") == 0) {
      idleCounter = counters[i].counter;
    }
  }
  if (counters != nullptr) {
    XSyncFreeSystemCounterList(counters);
  }
  if (idleCounter == None) {
    return false;
  }
  ErrorTrap trap(*this);
  awayAlarm = createAlarm(XSyncPositiveTransition, thresholdMs());
  // Input sets the counter to about 0. The away alarm may have seen exactly the threshold,
  // and a NegativeTransition needs a value above its own, so "back" waits one ms below it.
  backAlarm = createAlarm(XSyncNegativeTransition, thresholdMs() - 1);
  if (trap.failedAfterSync() || awayAlarm == None || backAlarm == None) {
    // Alarms that were made go with the connection; their events are ignored.
    awayAlarm = None;
    backAlarm = None;
    idleCounter = None;
    return false;
  }
  syncEventBase = eventBase;
  return true;
}

/// An alarm on IDLETIME that sends an event each time `test` holds at `valueMs` and stays
/// armed (delta 0 with a transition test).
XSyncAlarm X11Source::Impl::createAlarm(XSyncTestType test, std::int64_t valueMs) {
  XSyncAlarmAttributes attributes{};
  attributes.trigger.counter = idleCounter;
  attributes.trigger.value_type = XSyncAbsolute;
  attributes.trigger.test_type = test;
  attributes.trigger.wait_value = toSyncValue(valueMs);
  attributes.delta = toSyncValue(0);
  attributes.events = True;
  const unsigned long mask = XSyncCACounter | XSyncCAValueType | XSyncCATestType | XSyncCAValue |
                             XSyncCADelta | XSyncCAEvents;
  return XSyncCreateAlarm(display, mask, &attributes);
}

void X11Source::Impl::tearDown() {
  if (screenSaverInfo != nullptr) {
    XFree(screenSaverInfo);
    screenSaverInfo = nullptr;
  }
  // Safe after an IO error too: XCloseDisplay skips the round trip on a dead connection.
  XCloseDisplay(display);
  unregisterDisplay(display, &errors);
  display = nullptr;
}

/// Drains queued X events, then blocks until the X connection or the wake-up descriptor
/// is readable or the next deadline passes. Returns false when the thread should end.
bool X11Source::Impl::waitForWork() {
  // XPending flushes the output buffer and reads what the server sent; any Xlib call
  // may queue events, so this must be the last Xlib call before poll().
  while (!connectionLost() && XPending(display) > 0) {
    XEvent event;
    XNextEvent(display, &event);
    handleEvent(event);
  }
  if (connectionLost() || stopRequested.load()) {
    return false;
  }

  int timeoutMs = -1;
  const SteadyClock::time_point now = SteadyClock::now();
  auto consider = [&](SteadyClock::time_point deadline) {
    const auto remaining = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    const int clamped = static_cast<int>(std::clamp<long long>(remaining, 0, 24LL * 3600 * 1000));
    timeoutMs = timeoutMs < 0 ? clamped : std::min(timeoutMs, clamped);
  };
  if (heartbeating && heartbeatSecs > 0) {
    consider(nextHeartbeat);
  }
  if (idlePolled) {
    consider(nextIdleCheck);
  }

  pollfd descriptors[2] = {{ConnectionNumber(display), POLLIN, 0}, {wakeFd, POLLIN, 0}};
  const int ready = poll(descriptors, 2, timeoutMs);
  if (ready < 0) {
    if (errno == EINTR) {
      return true;
    }
    invokeCallback(callbacks.onFailed,
                   std::string("waiting for X events failed: ") + std::strerror(errno));
    return false;
  }
  if (stopRequested.load()) {
    return false;
  }
  if ((descriptors[1].revents & POLLIN) != 0) {
    std::uint64_t count = 0;  // setHeartbeat() woke the loop: reset the counter
    static_cast<void>(read(wakeFd, &count, sizeof count));
  }
  if ((descriptors[0].revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
    XPending(display);  // lets Xlib notice the closed connection and call the handlers
    if (!connectionLost()) {
      errors.connectionLost.store(true);  // never spin on a dead descriptor
    }
    return false;
  }
  if ((descriptors[0].revents & POLLIN) != 0 && idlePolled && away) {
    checkIdle(SteadyClock::now());  // any X event is a chance to see the person is back
  }
  return true;
}

void X11Source::Impl::handleEvent(const XEvent& event) {
  if (idleCounter != None && event.type == syncEventBase + XSyncAlarmNotify) {
    handleAlarm(reinterpret_cast<const XSyncAlarmNotifyEvent&>(event));
    return;
  }
  if (event.type != PropertyNotify) {
    return;
  }
  const XPropertyEvent& property = event.xproperty;
  if (property.window == root && property.atom == netActiveWindow) {
    refreshActiveWindow(false);
  } else if (property.window == watched && watched != None &&
             (property.atom == netWmName || property.atom == XA_WM_NAME)) {
    std::string app;
    std::string title;
    if (!readClassAndTitle(watched, app, title)) {
      haveCurrent = false;  // vanished: skip it; the WM will name a new active window
      return;
    }
    if (!haveCurrent || app != currentApp || title != currentTitle) {
      haveCurrent = true;
      currentApp = std::move(app);
      currentTitle = std::move(title);
      emitCurrent();
    }
  }
}

/// Reads the active window and reports it when it changed or `forceEmit` (start,
/// heartbeat). A window that cannot be read (it vanished) is skipped, not reported.
void X11Source::Impl::refreshActiveWindow(bool forceEmit) {
  const Window active = readActiveWindow();
  if (connectionLost()) {
    return;
  }
  const bool windowChanged = active != watched;
  if (windowChanged) {
    watchWindow(active);
  }
  if (watched == None) {
    haveCurrent = false;
    if (forceEmit && heartbeatSecs > 0) {
      nextHeartbeat = SteadyClock::now() + std::chrono::seconds(heartbeatSecs);
    }
    return;
  }
  std::string app;
  std::string title;
  const bool read = readClassAndTitle(watched, app, title);
  errors.ignoredResource.store(None);  // the unwatched window's errors have come by now
  if (!read) {
    if (windowChanged) {
      watched = None;  // it vanished: the PropertyChangeMask went with it
    }
    haveCurrent = false;
    if (forceEmit && heartbeatSecs > 0) {
      nextHeartbeat = SteadyClock::now() + std::chrono::seconds(heartbeatSecs);
    }
    return;
  }
  const bool changed = !haveCurrent || app != currentApp || title != currentTitle;
  haveCurrent = true;
  currentApp = std::move(app);
  currentTitle = std::move(title);
  if (forceEmit || windowChanged || changed) {
    emitCurrent();
  }
}

/// The active window per EWMH (_NET_ACTIVE_WINDOW on the root), or the focused client
/// window when no window manager publishes it; None when there is none.
Window X11Source::Impl::readActiveWindow() {
  Atom actualType = None;
  int actualFormat = 0;
  unsigned long itemCount = 0;
  unsigned long bytesAfter = 0;
  unsigned char* data = nullptr;
  ErrorTrap trap(*this);
  const int status = XGetWindowProperty(display, root, netActiveWindow, 0, 1, False, XA_WINDOW,
                                        &actualType, &actualFormat, &itemCount, &bytesAfter, &data);
  Window active = None;
  bool published = false;
  if (status == Success && !trap.failed() && actualType == XA_WINDOW && actualFormat == 32 &&
      itemCount == 1 && data != nullptr) {
    // Format-32 data comes back as an array of long, whatever the size of long.
    active = static_cast<Window>(*reinterpret_cast<unsigned long*>(data));
    published = true;
  }
  if (data != nullptr) {
    XFree(data);
  }
  return published ? active : readFocusedClientWindow();
}

/// Fallback without EWMH: the input focus, climbed up to the window with WM_CLASS
/// (toolkits often focus a child of the client window).
Window X11Source::Impl::readFocusedClientWindow() {
  ErrorTrap trap(*this);
  Window focus = None;
  int revertTo = 0;
  XGetInputFocus(display, &focus, &revertTo);
  if (trap.failed() || focus == None || focus == PointerRoot || focus == root) {
    return None;
  }
  Window candidate = focus;
  for (int depth = 0; depth < kMaxFocusClimb && candidate != None && candidate != root; ++depth) {
    XClassHint hint{};
    if (XGetClassHint(display, candidate, &hint) != 0) {
      XFree(hint.res_name);
      XFree(hint.res_class);
      return candidate;
    }
    if (trap.failed()) {
      return None;
    }
    Window rootReturn = None;
    Window parent = None;
    Window* children = nullptr;
    unsigned int childCount = 0;
    if (XQueryTree(display, candidate, &rootReturn, &parent, &children, &childCount) == 0) {
      return None;
    }
    if (children != nullptr) {
      XFree(children);
    }
    candidate = parent;
  }
  return focus;  // no WM_CLASS anywhere: report the focus window itself (class unknown)
}

/// Moves PropertyChangeMask from the previously watched window to `window` (may be None).
/// No round trip (issue 8 item 2: a switch costs the X server's answers, three instead of
/// five): the requests go out with the next reply-bearing request, readClassAndTitle(),
/// whose error trap sees a BadWindow of `window`; the old window's BadWindow (it may have
/// closed) is ignored until refreshActiveWindow() has read the new one.
void X11Source::Impl::watchWindow(Window window) {
  if (watched != None) {
    errors.ignoredResource.store(watched);
    XSelectInput(display, watched, NoEventMask);
  }
  watched = window;
  if (window != None) {
    XSelectInput(display, window, PropertyChangeMask);
  }
}

/// Reads WM_CLASS (the class, else the instance) and the title of `window`. Returns
/// false when the window vanished (a protocol error); a missing property is "".
bool X11Source::Impl::readClassAndTitle(Window window, std::string& app, std::string& title) {
  ErrorTrap trap(*this);
  app.clear();
  title.clear();
  XClassHint hint{};
  if (XGetClassHint(display, window, &hint) != 0) {
    if (hint.res_class != nullptr && hint.res_class[0] != '\0') {
      app = hint.res_class;
    } else if (hint.res_name != nullptr) {
      app = hint.res_name;
    }
    XFree(hint.res_name);
    XFree(hint.res_class);
  }
  if (trap.failed()) {
    return false;
  }
  if (!readUtf8Title(window, title)) {
    readLegacyTitle(window, title);
  }
  return !trap.failed() && !connectionLost();
}

/// _NET_WM_NAME as UTF8_STRING; false when the window has none.
bool X11Source::Impl::readUtf8Title(Window window, std::string& title) {
  Atom actualType = None;
  int actualFormat = 0;
  unsigned long itemCount = 0;
  unsigned long bytesAfter = 0;
  unsigned char* data = nullptr;
  const int status =
      XGetWindowProperty(display, window, netWmName, 0, kMaxTitleLongs, False, utf8String,
                         &actualType, &actualFormat, &itemCount, &bytesAfter, &data);
  const bool found = status == Success && actualType == utf8String && actualFormat == 8;
  if (found && data != nullptr) {
    title.assign(reinterpret_cast<const char*>(data), itemCount);
  }
  if (data != nullptr) {
    XFree(data);
  }
  return found;
}

/// WM_NAME (STRING, COMPOUND_TEXT or UTF8_STRING) converted to UTF-8; false when absent.
bool X11Source::Impl::readLegacyTitle(Window window, std::string& title) {
  XTextProperty property{};
  if (XGetWMName(display, window, &property) == 0 || property.value == nullptr) {
    return false;
  }
  char** list = nullptr;
  int count = 0;
  const int status = Xutf8TextPropertyToTextList(display, &property, &list, &count);
  if (status >= Success && list != nullptr && count > 0) {
    title = list[0];  // a positive status counts unconvertible characters, already replaced
  } else {
    // No converter for this encoding: keep the bytes; the Controller sanitises them.
    title.assign(reinterpret_cast<const char*>(property.value), property.nitems);
  }
  if (list != nullptr) {
    XFreeStringList(list);
  }
  XFree(property.value);
  return true;
}

void X11Source::Impl::emitCurrent() {
  if (heartbeatSecs > 0) {
    nextHeartbeat = SteadyClock::now() + std::chrono::seconds(heartbeatSecs);
  }
  invokeCallback(callbacks.onWindow, currentApp, currentTitle);
}

/// Compares XScreenSaver idle time with idleAfterSecs, reports a change of `away`, and
/// schedules the next check: the moment the threshold could be reached, or
/// kAwayRecheckInterval while away.
void X11Source::Impl::checkIdle(SteadyClock::time_point now) {
  if (!idlePolled) {
    return;
  }
  ErrorTrap trap(*this);
  if (XScreenSaverQueryInfo(display, root, screenSaverInfo) == 0 || trap.failed() ||
      connectionLost()) {
    nextIdleCheck = now + kAwayRecheckInterval;  // never report away from a failed reading
    return;
  }
  const std::chrono::milliseconds idle(screenSaverInfo->idle);
  const std::chrono::milliseconds threshold = std::chrono::seconds(idleAfterSecs);
  const bool awayNow = idle >= threshold;
  nextIdleCheck = awayNow ? now + kAwayRecheckInterval : now + (threshold - idle);
  setAway(awayNow);
}

/// At start: the person may be away already (the alarms only report crossings).
void X11Source::Impl::readInitialIdle() {
  if (idlePolled) {
    checkIdle(SteadyClock::now());
    return;
  }
  if (idleCounter == None) {
    return;
  }
  ErrorTrap trap(*this);
  XSyncValue value;
  if (XSyncQueryCounter(display, idleCounter, &value) != 0 && !trap.failed() && !connectionLost()) {
    setAway(fromSyncValue(value) >= thresholdMs());
  }
}

/// An alarm crossed: the counter's value in the event says which side it is on now, so an
/// event that raced with readInitialIdle() cannot leave a wrong state.
void X11Source::Impl::handleAlarm(const XSyncAlarmNotifyEvent& alarm) {
  if ((alarm.alarm != awayAlarm && alarm.alarm != backAlarm) ||
      alarm.state == XSyncAlarmDestroyed) {
    return;
  }
  setAway(fromSyncValue(alarm.counter_value) >= thresholdMs());
}

void X11Source::Impl::wake() {
  std::lock_guard<std::mutex> lock(wakeMutex);
  if (wakeFd >= 0) {
    const std::uint64_t one = 1;
    // A full counter (impossible here) would still leave the descriptor readable.
    static_cast<void>(write(wakeFd, &one, sizeof one));
  }
}

void X11Source::Impl::setAway(bool awayNow) {
  if (awayNow != away) {
    away = awayNow;
    invokeCallback(callbacks.onAway, away);
  }
}

X11Source::X11Source(std::string display, std::int64_t heartbeatSecs, std::int64_t idleAfterSecs,
                     X11SourceCallbacks callbacks)
    : impl_(std::make_unique<Impl>(std::move(display), heartbeatSecs, idleAfterSecs,
                                   std::move(callbacks))) {}

X11Source::~X11Source() {
  stop();
  std::lock_guard<std::mutex> lock(impl_->lifecycleMutex);
  if (impl_->thread.joinable()) {
    // Destroyed from one of its own callbacks: the thread cannot join itself. It was told
    // to stop and ends on its own; its state is leaked on purpose rather than freed under it.
    impl_->thread.detach();
    static_cast<void>(impl_.release());
  }
}

bool X11Source::start(std::string& error) {
  Impl& impl = *impl_;
  std::lock_guard<std::mutex> lock(impl.lifecycleMutex);
  if (impl.started) {
    error = "the X11 source was already started";
    return false;
  }
  std::string name = impl.displayName;
  if (name.empty()) {
    const char* environment = std::getenv("DISPLAY");
    name = environment != nullptr ? environment : "";
  }
  if (name.empty()) {
    error = "no DISPLAY";
    return false;
  }
  installHandlersOnce();
  impl.display = XOpenDisplay(name.c_str());
  if (impl.display == nullptr) {
    error = "cannot open display " + name;
    return false;
  }
  registerDisplay(impl.display, &impl.errors);
#ifdef ANTIDRIFT_HAVE_IO_ERROR_EXIT_HANDLER
  XSetIOErrorExitHandler(impl.display, handleIoErrorExit, &impl.errors);
#endif
  impl.setUpIdleDetection();
  {
    std::lock_guard<std::mutex> wakeLock(impl.wakeMutex);
    impl.wakeFd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  }
  if (impl.wakeFd < 0) {
    error = std::string("cannot create a wake-up descriptor: ") + std::strerror(errno);
  } else {
    try {
      impl.thread = std::thread([&impl] {
        // Named for `top -H` and the idle benchmark; the adapter does not link the core's
        // thread_name.h.
        static_cast<void>(pthread_setname_np(pthread_self(), "ad-x11"));
        impl.threadId.store(std::this_thread::get_id());
        impl.run();
        impl.threadId.store(std::thread::id());  // ids of ended threads are reused
      });
      impl.started = true;
      return true;
    } catch (const std::system_error& failure) {
      error = std::string("cannot start the X11 thread: ") + failure.what();
      std::lock_guard<std::mutex> wakeLock(impl.wakeMutex);
      close(impl.wakeFd);
      impl.wakeFd = -1;
    }
  }
  if (impl.screenSaverInfo != nullptr) {
    XFree(impl.screenSaverInfo);
    impl.screenSaverInfo = nullptr;
  }
  impl.idleDetection.store(X11IdleDetection::Off);
  XCloseDisplay(impl.display);
  unregisterDisplay(impl.display, &impl.errors);
  impl.display = nullptr;
  return false;
}

X11IdleDetection X11Source::idleDetection() const {
  return impl_->idleDetection.load();
}

void X11Source::useScreenSaverPollingForTest() {
  impl_->screenSaverOnlyForTest = true;
}

void X11Source::stop() {
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

void X11Source::setHeartbeat(bool on) {
  if (impl_->heartbeatWanted.exchange(on) != on) {
    impl_->wake();
  }
}

}  // namespace antidrift
