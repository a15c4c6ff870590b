// bench_x11: switch -> SSE latency and idle cost of the real antidriftd under
// Xvfb + openbox, side by side with an ActivityWatch-style 1 s poller
// (bench_aw_poller) on the same switches (issue 8 item 4, docs/PERFORMANCE.md).
//
// It starts Xvfb with openbox, two antidrift_testwin windows, antidriftd on
// that display (ephemeral port, temporary store, AI off) and the poller, then:
//  1. idle, locked: --idle-s of nothing; the daemon's CPU, RSS and wake-ups
//     (context switches of each of its threads, also listed by thread name:
//     every thread antidriftd starts is named "ad-…", the main thread keeps
//     "antidriftd"), beside the poller's CPU;
//  2. idle, active: the same once a session runs (POST /planning, /commitment);
//  3. --switches focus switches, one every --dwell-ms (+ up to --jitter-ms, a
//     fixed pseudo-random sequence, so the 1 s poller is met at every phase):
//     each switch is asked of openbox as xdotool does (a _NET_ACTIVE_WINDOW
//     client message, source 2) and timed from just before it is sent to
//       - the X server's floor: the root's PropertyNotify of _NET_ACTIVE_WINDOW,
//       - the daemon: the first SSE state event showing the new window's title,
//       - the poller: its first report of the new window;
//     p50, p99 and max of each (CLOCK_MONOTONIC, shared by the processes),
//     and of the daemon's own part: the floor's PropertyNotify -> its SSE event
//     (the window manager's and the X server's time taken out). openbox sets
//     _NET_ACTIVE_WINDOW twice per switch (None, then the new window); the
//     floor is the last change before the daemon's event;
//  4. idle, active with --idle-clients SSE clients open.
// Exit 0 when every switch reached the floor and the SSE client, 1 when one
// did not, 2 when it could not run. Everything it starts stops with it.
// Sleeping is the pacing of the scenario here (a benchmark, not a test).
//
//   bench_x11 [--switches=200] [--dwell-ms=1100] [--jitter-ms=300] [--idle-s=60]
//             [--idle-clients=10]
#include <dirent.h>
#include <poll.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Query.h>

#include "integration/http_test_support.h"
#include "load/process_probe.h"
#include "load/sse_clients.h"
#include "support/temp_dir.h"

// Last: it includes Xlib through support/xvfb_session.h.
#include "e2e/daemon_process.h"

#ifndef BENCH_POLLER_PATH
#error "BENCH_POLLER_PATH must name the bench_aw_poller binary"
#endif

namespace antidrift::bench {
namespace {

using test::Child;
using test::DaemonLaunch;
using test::DaemonProcess;
using test::TestWindow;
using test::XServer;

/// Command-line settings; the defaults are the published run.
struct Options {
  int switches = 200;
  int dwellMs = 1100;
  int jitterMs = 300;
  int idleSecs = 60;
  int idleClients = 10;
};

Options parseOptions(int argc, char** argv) {
  Options options;
  const std::map<std::string, int*> integers = {{"switches", &options.switches},
                                                {"dwell-ms", &options.dwellMs},
                                                {"jitter-ms", &options.jitterMs},
                                                {"idle-s", &options.idleSecs},
                                                {"idle-clients", &options.idleClients}};
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    const auto found = argument.rfind("--", 0) == 0 && equals != std::string::npos
                           ? integers.find(argument.substr(2, equals - 2))
                           : integers.end();
    if (found == integers.end()) {
      throw std::invalid_argument("unknown argument \"" + argument + "\"");
    }
    std::size_t used = 0;
    const std::string value = argument.substr(equals + 1);
    *found->second = std::stoi(value, &used);
    if (used != value.size() || *found->second < 0) {
      throw std::invalid_argument(argument + ": needs a whole number >= 0");
    }
  }
  if (options.switches < 2 || options.idleSecs < 1) {
    throw std::invalid_argument("need --switches >= 2 and --idle-s >= 1");
  }
  return options;
}

constexpr const char* kUsage =
    "usage: bench_x11 [--switches=200] [--dwell-ms=1100] [--jitter-ms=300] [--idle-s=60]\n"
    "                 [--idle-clients=10]\n";

std::int64_t monotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

/// Timestamps collected by another thread.
template <typename T>
class Recorded {
 public:
  void add(T item) {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.push_back(std::move(item));
  }
  std::vector<T> all() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return items_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<T> items_;
};

/// Watches the root window for PropertyNotify of _NET_ACTIVE_WINDOW on its
/// own connection and thread: the X server's floor.
class ActiveWindowWatch {
 public:
  explicit ActiveWindowWatch(const std::string& display) {
    display_ = XOpenDisplay(display.c_str());
    if (display_ == nullptr) throw std::runtime_error("cannot open " + display);
    atom_ = XInternAtom(display_, "_NET_ACTIVE_WINDOW", False);
    XSelectInput(display_, DefaultRootWindow(display_), PropertyChangeMask);
    XSync(display_, False);
    thread_ = std::thread([this] { run(); });
  }
  ~ActiveWindowWatch() {
    stop_ = true;
    thread_.join();
    XCloseDisplay(display_);
  }
  ActiveWindowWatch(const ActiveWindowWatch&) = delete;
  ActiveWindowWatch& operator=(const ActiveWindowWatch&) = delete;

  /// CLOCK_MONOTONIC ns of each change of _NET_ACTIVE_WINDOW seen.
  std::vector<std::int64_t> changes() const { return changes_.all(); }

 private:
  void run() {
    while (!stop_) {
      pollfd connection{ConnectionNumber(display_), POLLIN, 0};
      poll(&connection, 1, 100);
      while (XPending(display_) > 0) {
        XEvent event;
        XNextEvent(display_, &event);
        if (event.type == PropertyNotify && event.xproperty.atom == atom_) {
          changes_.add(monotonicNs());
        }
      }
    }
  }

  Display* display_ = nullptr;
  Atom atom_ = 0;
  std::atomic<bool> stop_{false};
  Recorded<std::int64_t> changes_;
  std::thread thread_;
};

/// Asks the window manager to activate a window, as `xdotool windowactivate`
/// does (EWMH _NET_ACTIVE_WINDOW client message, source indication 2).
class Activator {
 public:
  explicit Activator(const std::string& display) {
    display_ = XOpenDisplay(display.c_str());
    if (display_ == nullptr) throw std::runtime_error("cannot open " + display);
    atom_ = XInternAtom(display_, "_NET_ACTIVE_WINDOW", False);
  }
  ~Activator() { XCloseDisplay(display_); }
  Activator(const Activator&) = delete;
  Activator& operator=(const Activator&) = delete;

  /// Sends the request; returns CLOCK_MONOTONIC ns just before it left.
  std::int64_t activate(Window window) {
    XEvent event{};
    event.xclient.type = ClientMessage;
    event.xclient.display = display_;
    event.xclient.window = window;
    event.xclient.message_type = atom_;
    event.xclient.format = 32;
    event.xclient.data.l[0] = 2;  // a pager: openbox obeys at once
    event.xclient.data.l[1] = CurrentTime;
    const std::int64_t sentAt = monotonicNs();
    XSendEvent(display_, DefaultRootWindow(display_), False,
               SubstructureRedirectMask | SubstructureNotifyMask, &event);
    XFlush(display_);
    return sentAt;
  }

 private:
  Display* display_ = nullptr;
  Atom atom_ = 0;
};

/// The poller as a child, its reports read on a thread.
class Poller {
 public:
  explicit Poller(const std::string& display)
      : child_(BENCH_POLLER_PATH, {}, display, true, true), thread_([this] { run(); }) {}
  ~Poller() {
    stop_ = true;
    thread_.join();
  }
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  int pid() const { return child_.id(); }
  /// (CLOCK_MONOTONIC ns, window id) of each change it reported.
  std::vector<std::pair<std::int64_t, std::string>> reports() const { return reports_.all(); }

 private:
  void run() {
    std::string line;
    while (!stop_) {
      if (child_.readLine(line, std::chrono::milliseconds(100))) {
        std::istringstream fields(line);
        std::int64_t at = 0;
        std::string window;
        if (fields >> at >> window) reports_.add({at, window});
      }
    }
  }

  Child child_;
  std::atomic<bool> stop_{false};
  Recorded<std::pair<std::int64_t, std::string>> reports_;
  std::thread thread_;
};

/// The pid of the antidriftd serving `storeDir` (DaemonProcess runs it under sh).
pid_t findDaemon(const std::string& storeDir) {
  DIR* proc = opendir("/proc");
  pid_t found = 0;
  while (const dirent* entry = readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream file("/proc/" + name + "/cmdline");
    std::string all((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::string program = all.substr(0, all.find('\0'));
    if (program.size() >= 10 && program.compare(program.size() - 10, 10, "antidriftd") == 0 &&
        all.find("store.dir=" + storeDir + '\0') != std::string::npos) {
      found = static_cast<pid_t>(std::stol(name));
    }
  }
  closedir(proc);
  if (found == 0) throw std::runtime_error("cannot find the antidriftd process");
  return found;
}

/// What a process spent over one idle window.
struct IdleFigures {
  double cpuPercent = 0;  ///< of one core
  double rssMib = 0;      ///< at the end
  std::uint64_t wakeups = 0;
  std::size_t threads = 0;       ///< threads alive at the end
  std::size_t threadsWoken = 0;  ///< of which woke at least once
  std::uint64_t busiest = 0;     ///< the most wake-ups of one thread
  /// Wake-ups by thread name (/proc/PID/task/TID/comm at the end of the
  /// window), every live thread listed, silent ones with 0. Threads that
  /// share a name (the main thread is "antidriftd") are summed.
  std::map<std::string, std::uint64_t> wakeupsByName;
};

/// Waits `seconds` and reports what `daemon` and `poller` spent meanwhile.
std::pair<IdleFigures, IdleFigures> measureIdle(const load::ProcessProbe& daemon,
                                                const load::ProcessProbe& poller, int seconds) {
  const auto threadsBefore = daemon.threadActivity();
  const auto pollerBefore = poller.threadActivity();
  const std::uint64_t cpuBefore = daemon.cpuNanoseconds();
  const std::int64_t start = monotonicNs();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  const double elapsedNs = static_cast<double>(monotonicNs() - start);
  const auto summarise = [elapsedNs](const std::map<pid_t, load::ThreadActivity>& before,
                                     const std::map<pid_t, load::ThreadActivity>& after) {
    IdleFigures figures;
    std::uint64_t cpu = 0;
    for (const auto& [tid, now] : after) {
      const auto old = before.find(tid);
      const std::uint64_t switches =
          now.switches - (old == before.end() ? 0 : old->second.switches);
      cpu += now.cpuNs - (old == before.end() ? 0 : old->second.cpuNs);
      figures.wakeups += switches;
      figures.wakeupsByName[now.name] += switches;
      ++figures.threads;
      figures.threadsWoken += switches > 0 ? 1 : 0;
      figures.busiest = std::max(figures.busiest, switches);
    }
    figures.cpuPercent = 100.0 * static_cast<double>(cpu) / elapsedNs;
    return figures;
  };
  IdleFigures daemonFigures = summarise(threadsBefore, daemon.threadActivity());
  IdleFigures pollerFigures = summarise(pollerBefore, poller.threadActivity());
  // Threads that ended in the window are in the process's own total.
  const double wholeProcess =
      100.0 * static_cast<double>(daemon.cpuNanoseconds() - cpuBefore) / elapsedNs;
  daemonFigures.cpuPercent = std::max(daemonFigures.cpuPercent, wholeProcess);
  daemonFigures.rssMib = static_cast<double>(daemon.residentKib()) / 1024.0;
  pollerFigures.rssMib = static_cast<double>(poller.residentKib()) / 1024.0;
  return {daemonFigures, pollerFigures};
}

void printIdle(const std::string& phase, int seconds,
               const std::pair<IdleFigures, IdleFigures>& figures) {
  std::printf(
      "idle %-22s %3d s  antidriftd cpu %7.3f %%  rss %6.1f MiB  wake-ups %5llu"
      " (%.2f/s; %zu of %zu threads woke, busiest %llu)  poller cpu %7.3f %%  wake-ups %llu\n",
      phase.c_str(), seconds, figures.first.cpuPercent, figures.first.rssMib,
      static_cast<unsigned long long>(figures.first.wakeups),
      static_cast<double>(figures.first.wakeups) / seconds, figures.first.threadsWoken,
      figures.first.threads, static_cast<unsigned long long>(figures.first.busiest),
      figures.second.cpuPercent, static_cast<unsigned long long>(figures.second.wakeups));
  // Which of the daemon's threads woke (every thread it starts is named).
  std::vector<std::pair<std::string, std::uint64_t>> byName(figures.first.wakeupsByName.begin(),
                                                            figures.first.wakeupsByName.end());
  std::stable_sort(byName.begin(), byName.end(),
                   [](const auto& left, const auto& right) { return left.second > right.second; });
  std::string woke;
  std::string silent;
  for (const auto& [name, wakeups] : byName) {
    if (wakeups > 0) {
      char line[96];
      std::snprintf(line, sizeof line, "%s%s %llu (%.2f/s)", woke.empty() ? "" : ", ", name.c_str(),
                    static_cast<unsigned long long>(wakeups),
                    static_cast<double>(wakeups) / seconds);
      woke += line;
    } else {
      silent += (silent.empty() ? "" : ", ") + name;
    }
  }
  std::printf("  threads that woke: %s\n  threads that slept: %s\n",
              woke.empty() ? "none" : woke.c_str(), silent.empty() ? "none" : silent.c_str());
  std::fflush(stdout);
}

/// p-th percentile (0..100) of sorted `values`, nearest rank.
double percentile(const std::vector<double>& sorted, double p) {
  const std::size_t rank = static_cast<std::size_t>(
      std::max(1.0, std::ceil(p / 100.0 * static_cast<double>(sorted.size()))));
  return sorted[std::min(rank, sorted.size()) - 1];
}

void printLatency(const std::string& what, std::vector<double> ms, int switches) {
  if (ms.empty()) {
    std::printf("latency %-28s no switch seen (of %d)\n", what.c_str(), switches);
    return;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("latency %-28s p50 %9.3f ms  p99 %9.3f ms  max %9.3f ms  seen %zu of %d\n",
              what.c_str(), percentile(ms, 50), percentile(ms, 99), ms.back(), ms.size(), switches);
  std::fflush(stdout);
}

std::string evidenceTitle(const std::string& data) {
  try {
    Poco::JSON::Parser parser;
    const auto state = parser.parse(data).extract<Poco::JSON::Object::Ptr>();
    const Poco::Dynamic::Var title = Poco::JSON::Query(state).find("evidence.current.title");
    return title.isEmpty() ? "" : title.toString();
  } catch (const Poco::Exception&) {
    return "";
  }
}

std::string readToken(const std::string& storeDir) {
  std::string token = test::readWholeFile(storeDir + "/token");
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  return token;
}

int run(const Options& options) {
  test::TempDirectory directory;
  XServer server;
  if (const std::string error = server.start(true); !error.empty()) {
    std::cerr << "bench_x11: " << error << "\n";
    return 2;
  }
  const std::string& display = server.name();
  struct Target {
    TestWindow window;
    std::string title;
  };
  Target targets[2] = {{{}, "index.js — chango.dev — Visual Studio Code"},
                       {{}, "Lo-fi beats to code to - YouTube — Mozilla Firefox"}};
  targets[0].window =
      test::openWindow(display, {"--class", "Code-Insiders", "--title", targets[0].title});
  targets[1].window =
      test::openWindow(display, {"--class", "Firefox", "--title", targets[1].title});
  if (targets[0].window.id.empty() || targets[1].window.id.empty()) {
    std::cerr << "bench_x11: the test windows did not come up\n";
    return 2;
  }
  const std::string storeDir = directory.path() + "/store";
  DaemonProcess daemon(DaemonLaunch{storeDir, directory.path() + "/config", display, ""});
  if (!daemon.startError().empty()) {
    std::cerr << "bench_x11: " << daemon.startError() << "\n";
    return 2;
  }
  const load::ProcessProbe daemonProbe(findDaemon(storeDir));
  Poller poller(display);
  const load::ProcessProbe pollerProbe(poller.pid());
  Activator activator(display);
  const std::string token = readToken(storeDir);

  std::printf("bench_x11: display %s, antidriftd on port %u, %d switches, idle windows of %d s\n",
              display.c_str(), daemon.port(), options.switches, options.idleSecs);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // start-up settles
  printIdle("locked", options.idleSecs, measureIdle(daemonProbe, pollerProbe, options.idleSecs));

  test::RequestOptions withToken;
  withToken.token = token;
  const auto planning = test::sendRequest(daemon.port(), "POST", "/planning", "{}", withToken);
  const auto started = test::sendRequest(daemon.port(), "POST", "/commitment",
                                         R"({"next_action": "Add page transitions to index.js",
          "success_condition": "Transitions work between blog pages",
          "timebox_minutes": 600, "allowed_apps": ["code-insiders"]})",
                                         withToken);
  if (planning.status != 200 || started.status != 200) {
    std::cerr << "bench_x11: cannot start a session: " << planning.body << " " << started.body
              << "\n";
    return 2;
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  printIdle("active", options.idleSecs, measureIdle(daemonProbe, pollerProbe, options.idleSecs));

  // Switches.
  struct Arrival {
    std::int64_t at;
    std::string data;
  };
  Recorded<Arrival> arrivals;
  auto stream = std::make_unique<load::SseReader>(
      daemon.port(), [&arrivals](std::uint64_t, const std::string& data) {
        arrivals.add({monotonicNs(), data});
      });
  if (stream->status() != 200) {
    std::cerr << "bench_x11: GET /events answered " << stream->status() << "\n";
    return 2;
  }
  ActiveWindowWatch watch(display);
  const auto windowOf = [](const Target& target) {
    return static_cast<Window>(std::stoul(target.window.id));
  };
  activator.activate(windowOf(targets[1]));  // start on the browser; not counted
  std::this_thread::sleep_for(std::chrono::milliseconds(options.dwellMs));
  std::vector<std::int64_t> sentAt;
  std::uint32_t random = 12345;
  for (int i = 0; i < options.switches; ++i) {
    sentAt.push_back(activator.activate(windowOf(targets[i % 2])));
    random = random * 1103515245u + 12345u;
    const int jitter =
        options.jitterMs == 0
            ? 0
            : static_cast<int>((random >> 8) % static_cast<std::uint32_t>(options.jitterMs));
    std::this_thread::sleep_for(std::chrono::milliseconds(options.dwellMs + jitter));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the poller's last tick
  sentAt.push_back(monotonicNs());
  stream.reset();

  const std::vector<std::int64_t> floorChanges = watch.changes();
  const std::vector<Arrival> events = arrivals.all();
  const auto reports = poller.reports();
  std::vector<double> floorMs;
  std::vector<double> sseMs;
  std::vector<double> pollerMs;
  std::vector<double> ownMs;  // PropertyNotify -> SSE event: AntiDrift's own part
  for (int i = 0; i < options.switches; ++i) {
    const std::int64_t from = sentAt[static_cast<std::size_t>(i)];
    const std::int64_t until = sentAt[static_cast<std::size_t>(i) + 1];
    const Target& target = targets[i % 2];
    const auto inWindow = [&](std::int64_t at) { return at >= from && at < until; };
    std::optional<std::int64_t> sseAt;
    for (const Arrival& arrival : events) {
      if (inWindow(arrival.at) && evidenceTitle(arrival.data) == target.title) {
        sseAt = arrival.at;
        sseMs.push_back(static_cast<double>(arrival.at - from) / 1e6);
        break;
      }
    }
    // openbox sets _NET_ACTIVE_WINDOW twice on a switch: None when the old
    // window loses focus, then the new window. The floor is the last change
    // before the daemon's event (the new window announced), else the first.
    std::optional<std::int64_t> announcedAt;
    for (const std::int64_t at : floorChanges) {
      if (inWindow(at) && (!announcedAt || (sseAt && at <= *sseAt))) announcedAt = at;
    }
    if (announcedAt) {
      floorMs.push_back(static_cast<double>(*announcedAt - from) / 1e6);
      if (sseAt) ownMs.push_back(static_cast<double>(*sseAt - *announcedAt) / 1e6);
    }
    for (const auto& [at, window] : reports) {
      if (inWindow(at) && window == target.window.id) {
        pollerMs.push_back(static_cast<double>(at - from) / 1e6);
        break;
      }
    }
  }
  printLatency("X floor (-> PropertyNotify)", floorMs, options.switches);
  printLatency("antidriftd (-> SSE event)", sseMs, options.switches);
  printLatency("antidriftd after the X server", ownMs, options.switches);
  printLatency("1 s poller (-> its report)", pollerMs, options.switches);
  if (!sseMs.empty() && !floorMs.empty() && !pollerMs.empty()) {
    std::sort(sseMs.begin(), sseMs.end());
    std::sort(pollerMs.begin(), pollerMs.end());
    std::printf("ratio poller p50 / antidriftd p50: %.0fx\n",
                percentile(pollerMs, 50) / percentile(sseMs, 50));
  }

  std::vector<std::unique_ptr<load::SseReader>> clients;
  for (int i = 0; i < options.idleClients; ++i) {
    clients.push_back(std::make_unique<load::SseReader>(daemon.port()));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  printIdle("active, " + std::to_string(options.idleClients) + " SSE clients", options.idleSecs,
            measureIdle(daemonProbe, pollerProbe, options.idleSecs));
  clients.clear();

  const auto status = daemon.terminate(test::kDeadline);
  if (!status || *status != 0) {
    std::cerr << "bench_x11: antidriftd did not end cleanly\n";
    return 1;
  }
  const bool complete = static_cast<int>(sseMs.size()) == options.switches &&
                        static_cast<int>(floorMs.size()) == options.switches;
  if (!complete)
    std::cerr << "bench_x11: some switches never reached the floor or the SSE client\n";
  return complete ? 0 : 1;
}

}  // namespace
}  // namespace antidrift::bench

int main(int argc, char** argv) {
  antidrift::bench::Options options;
  try {
    options = antidrift::bench::parseOptions(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "bench_x11: " << error.what() << "\n" << antidrift::bench::kUsage;
    return 2;
  }
  try {
    return antidrift::bench::run(options);
  } catch (const std::exception& error) {
    std::cerr << "bench_x11: " << error.what() << "\n";
    return 2;
  }
}
