// bench_aw_poller: the comparison of issue 8 item 4 — how ActivityWatch's
// aw-watcher-window (and most trackers) see windows: once a second (its
// default poll_time, 1.0 s) it reads the root window's _NET_ACTIVE_WINDOW and
// that window's WM_CLASS and _NET_WM_NAME, and reports when they changed.
//
// It prints one line per change on stdout, "<CLOCK_MONOTONIC ns> <window id>"
// (decimal id, as antidrift_testwin prints it), flushed at once, and exits 0
// when its stdin closes (the benchmark's end), 1 when the display cannot be
// opened. The ticks are on an absolute 1 s grid, like a sleeping Python loop
// at best. DISPLAY chooses the display.
//
//   bench_aw_poller [--interval-ms=1000] </dev/tty
#include <poll.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

namespace {

std::int64_t monotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

/// The root's _NET_ACTIVE_WINDOW, 0 when unset.
Window activeWindow(Display* display, Atom netActiveWindow) {
  Atom type = 0;
  int format = 0;
  unsigned long count = 0;
  unsigned long after = 0;
  unsigned char* data = nullptr;
  Window window = 0;
  if (XGetWindowProperty(display, DefaultRootWindow(display), netActiveWindow, 0, 1, False,
                         XA_WINDOW, &type, &format, &count, &after, &data) == Success &&
      data != nullptr && count == 1 && format == 32) {
    window = static_cast<Window>(*reinterpret_cast<unsigned long*>(data));
  }
  if (data != nullptr) XFree(data);
  return window;
}

/// The window's class and UTF-8 title, as aw-watcher-window reads them each poll.
std::string describe(Display* display, Window window, Atom netWmName, Atom utf8) {
  std::string text;
  XClassHint hint{};
  if (XGetClassHint(display, window, &hint) != 0) {
    if (hint.res_class != nullptr) text += hint.res_class;
    if (hint.res_name != nullptr) XFree(hint.res_name);
    if (hint.res_class != nullptr) XFree(hint.res_class);
  }
  Atom type = 0;
  int format = 0;
  unsigned long count = 0;
  unsigned long after = 0;
  unsigned char* data = nullptr;
  if (XGetWindowProperty(display, window, netWmName, 0, 1024, False, utf8, &type, &format, &count,
                         &after, &data) == Success &&
      data != nullptr) {
    text += '\n';
    text.append(reinterpret_cast<const char*>(data), count);
  }
  if (data != nullptr) XFree(data);
  return text;
}

int ignoreErrors(Display*, XErrorEvent*) {
  return 0;
}  // a window closed between reads

}  // namespace

int main(int argc, char** argv) {
  std::int64_t intervalNs = 1'000'000'000;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument.rfind("--interval-ms=", 0) == 0) {
      intervalNs = std::stoll(argument.substr(14)) * 1'000'000;
    } else {
      std::fprintf(stderr, "usage: bench_aw_poller [--interval-ms=1000]\n");
      return 2;
    }
  }
  Display* display = XOpenDisplay(nullptr);
  if (display == nullptr) {
    std::fprintf(stderr, "bench_aw_poller: cannot open the display\n");
    return 1;
  }
  XSetErrorHandler(ignoreErrors);
  const Atom netActiveWindow = XInternAtom(display, "_NET_ACTIVE_WINDOW", False);
  const Atom netWmName = XInternAtom(display, "_NET_WM_NAME", False);
  const Atom utf8 = XInternAtom(display, "UTF8_STRING", False);
  std::string last;
  std::int64_t next = monotonicNs();
  for (;;) {
    const Window window = activeWindow(display, netActiveWindow);
    const std::string seen = window == 0 ? "" : describe(display, window, netWmName, utf8);
    if (seen != last) {
      last = seen;
      std::printf("%lld %lu\n", static_cast<long long>(monotonicNs()), window);
      std::fflush(stdout);
    }
    next += intervalNs;
    // Sleep until the next tick, or end when stdin closes.
    pollfd input{STDIN_FILENO, POLLIN, 0};
    const std::int64_t left = next - monotonicNs();
    const int ready = poll(&input, 1, left > 0 ? static_cast<int>(left / 1'000'000) : 0);
    if (ready > 0) {
      char buffer[64];
      if (read(STDIN_FILENO, buffer, sizeof buffer) <= 0) break;
    }
  }
  XCloseDisplay(display);
  return 0;
}
