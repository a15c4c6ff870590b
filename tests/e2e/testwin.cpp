/// @file testwin.cpp
/// antidrift_testwin: a tiny Xlib window for tests of the X11 evidence source (docs/DESIGN.md §3,
/// docs/TECH-NOTES.md §6). It sets WM_CLASS (instance, class), _NET_WM_NAME (UTF8_STRING) and
/// WM_NAME, maps the window, prints its id (decimal) on stdout once it is mapped, and then
/// sets the title to every line it reads from stdin. It exits on end of input, when the
/// window manager closes it, or when the X connection dies.
///
/// Usage:
///   antidrift_testwin --class CLASS --title TITLE [--instance NAME] [--retitle NEWTITLE]
///                     [--legacy-title]
///   --instance      WM_CLASS instance (first string); default: CLASS lower-cased.
///   --retitle       the first stdin line (whatever it says) sets NEWTITLE instead of itself.
///   --legacy-title  set only WM_NAME, as a Latin-1 STRING, and no _NET_WM_NAME (like Xt
///                   programs such as xmessage).
/// Exit codes: 0 on end of input or close, 1 when the display cannot be opened, 2 on bad usage.

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <iostream>
#include <string>

namespace {

struct Options {
  std::string instanceName;
  std::string className;
  std::string title;
  std::string retitle;
  bool hasRetitle = false;
  bool legacyTitle = false;
};

int usage(const char* why) {
  std::cerr << "antidrift_testwin: " << why << "\n"
            << "usage: antidrift_testwin --class CLASS --title TITLE [--instance NAME]"
               " [--retitle NEWTITLE] [--legacy-title]\n";
  return 2;
}

/// Parses argv into `options`; returns an error sentence, or "" when the arguments are good.
std::string parseOptions(int argc, char** argv, Options& options) {
  bool hasClass = false;
  bool hasTitle = false;
  for (int index = 1; index < argc; ++index) {
    const std::string argument = argv[index];
    if (argument == "--legacy-title") {
      options.legacyTitle = true;
      continue;
    }
    if (index + 1 >= argc) {
      return "missing value after " + argument;
    }
    const std::string value = argv[++index];
    if (argument == "--class") {
      options.className = value;
      hasClass = true;
    } else if (argument == "--title") {
      options.title = value;
      hasTitle = true;
    } else if (argument == "--instance") {
      options.instanceName = value;
    } else if (argument == "--retitle") {
      options.retitle = value;
      options.hasRetitle = true;
    } else {
      return "unknown option " + argument;
    }
  }
  if (!hasClass || !hasTitle) {
    return "--class and --title are required";
  }
  if (options.instanceName.empty()) {
    for (const char character : options.className) {
      options.instanceName +=
          static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
    }
  }
  return "";
}

class TestWindow {
 public:
  TestWindow(Display* display, const Options& options) : display_(display), options_(options) {
    netWmName_ = XInternAtom(display_, "_NET_WM_NAME", False);
    utf8String_ = XInternAtom(display_, "UTF8_STRING", False);
    wmDeleteWindow_ = XInternAtom(display_, "WM_DELETE_WINDOW", False);
    const int screen = DefaultScreen(display_);
    window_ = XCreateSimpleWindow(display_, RootWindow(display_, screen), 10, 10, 320, 200, 1,
                                  BlackPixel(display_, screen), WhitePixel(display_, screen));
    XSelectInput(display_, window_, StructureNotifyMask);
    XClassHint classHint{};
    classHint.res_name = const_cast<char*>(options_.instanceName.c_str());
    classHint.res_class = const_cast<char*>(options_.className.c_str());
    XSetClassHint(display_, window_, &classHint);
    XSetWMProtocols(display_, window_, &wmDeleteWindow_, 1);
    setTitle(options_.title);
    XMapWindow(display_, window_);
    XFlush(display_);
  }

  ~TestWindow() {
    XDestroyWindow(display_, window_);
    XFlush(display_);
  }

  TestWindow(const TestWindow&) = delete;
  TestWindow& operator=(const TestWindow&) = delete;

  /// Sets _NET_WM_NAME (unless legacy) and WM_NAME to `title` (UTF-8).
  void setTitle(const std::string& title) {
    if (!options_.legacyTitle) {
      XChangeProperty(display_, window_, netWmName_, utf8String_, 8, PropModeReplace,
                      reinterpret_cast<const unsigned char*>(title.data()),
                      static_cast<int>(title.size()));
    }
    char* list[] = {const_cast<char*>(title.c_str())};
    XTextProperty property{};
    const XICCEncodingStyle style = options_.legacyTitle ? XStringStyle : XStdICCTextStyle;
    if (Xutf8TextListToTextProperty(display_, list, 1, style, &property) >= Success) {
      XSetWMName(display_, window_, &property);
      XFree(property.value);
    } else {
      std::cerr << "antidrift_testwin: cannot encode WM_NAME for " << title << "\n";
    }
    XFlush(display_);
  }

  /// Handles queued X events; returns false when the window should close.
  bool handleEvents() {
    while (XPending(display_) > 0) {
      XEvent event;
      XNextEvent(display_, &event);
      if (event.type == MapNotify && event.xmap.window == window_ && !announced_) {
        std::printf("%lu\n", window_);
        std::fflush(stdout);
        announced_ = true;
      } else if (event.type == ClientMessage &&
                 static_cast<Atom>(event.xclient.data.l[0]) == wmDeleteWindow_) {
        return false;
      }
    }
    return true;
  }

 private:
  Display* display_;
  const Options& options_;
  Window window_ = None;
  Atom netWmName_ = None;
  Atom utf8String_ = None;
  Atom wmDeleteWindow_ = None;
  bool announced_ = false;
};

/// Waits on stdin and the X connection; retitles on each stdin line. Returns the exit code.
int runLoop(Display* display, TestWindow& window, const Options& options) {
  std::string pending;
  bool firstLine = true;
  for (;;) {
    if (!window.handleEvents()) {
      return 0;
    }
    pollfd descriptors[2] = {{STDIN_FILENO, POLLIN, 0}, {ConnectionNumber(display), POLLIN, 0}};
    if (poll(descriptors, 2, -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      std::perror("antidrift_testwin: poll");
      return 1;
    }
    if ((descriptors[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
      continue;
    }
    char buffer[4096];
    const ssize_t count = read(STDIN_FILENO, buffer, sizeof buffer);
    if (count <= 0) {
      return 0;  // end of input (or a read error): close the window
    }
    pending.append(buffer, static_cast<std::size_t>(count));
    for (std::size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      if (firstLine && options.hasRetitle) {
        line = options.retitle;
      }
      firstLine = false;
      window.setTitle(line);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const std::string problem = parseOptions(argc, argv, options);
  if (!problem.empty()) {
    return usage(problem.c_str());
  }
  Display* display = XOpenDisplay(nullptr);
  if (display == nullptr) {
    std::cerr << "antidrift_testwin: cannot open display " << XDisplayName(nullptr) << "\n";
    return 1;
  }
  int exitCode = 0;
  {
    TestWindow window(display, options);
    exitCode = runLoop(display, window, options);
  }
  XCloseDisplay(display);
  return exitCode;
}
