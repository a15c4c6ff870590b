// load_churn: load and churn against the real antidriftd on loopback, bounded
// in time (issue 9 item 6, docs/RELIABILITY.md "Load and churn").
//
// It starts antidriftd as a child (ephemeral port, temporary store, AI off),
// opens server.max_sse_clients event streams (one of them a client that
// never reads, with a tiny receive buffer), posts observations at a fixed
// rate during an active session for --duration-s, then kills --cycles event
// streams mid-stream. It samples the daemon's /proc entries every second,
// prints a table of figures and exits 0 when every limit held, 1 when one
// did not, 2 when it could not run. Everything it starts stops with it.
//
//   load_churn [--duration-s=20] [--cycles=200] [--rate=1000] ...  (--help)
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <Poco/Exception.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include "load/process_probe.h"
#include "load/sse_clients.h"
#include "support/child_process.h"
#include "support/rest_client.h"
#include "support/temp_dir.h"

#ifndef ANTIDRIFTD_PATH
#error "ANTIDRIFTD_PATH must name the antidriftd binary"
#endif

namespace antidrift::load {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

/// How long the stream that never reads may stay open after the load.
constexpr std::chrono::seconds kStallDeadline{30};

/// Everything the command line can set; the defaults are the short run.
struct Options {
  std::string antidriftd = ANTIDRIFTD_PATH;
  int durationSecs = 20;       ///< load phase
  int warmupSecs = -1;         ///< RSS must be flat after this; -1: 60 s, or 5 s for runs < 2 min
  int rate = 1000;             ///< observations per second
  int posters = 4;             ///< keep-alive connections posting them
  int switchEvery = 10;        ///< every n-th observation changes window (a snapshot write)
  int sseClients = 32;         ///< server.max_sse_clients, all opened (one stalls)
  int cycles = 200;            ///< SSE connect/kill cycles
  int churnWorkers = 8;        ///< cycles in parallel
  int rssToleranceKib = 2048;  ///< allowed RSS growth after the warm-up, and after the churn
  double p99LimitMs = 50;      ///< REST p99 limit
  int settleSecs = 5;          ///< how long closed streams may take to be released
  int stall = 1;               ///< 1: one stream never reads; 0: all read (a fan-out measurement)
};

/// Parses `--name=value` arguments; throws std::invalid_argument with a message.
Options parseOptions(int argc, char** argv) {
  Options options;
  const std::map<std::string, int*> integers = {{"duration-s", &options.durationSecs},
                                                {"warmup-s", &options.warmupSecs},
                                                {"rate", &options.rate},
                                                {"posters", &options.posters},
                                                {"switch-every", &options.switchEvery},
                                                {"sse-clients", &options.sseClients},
                                                {"cycles", &options.cycles},
                                                {"churn-workers", &options.churnWorkers},
                                                {"rss-tolerance-kib", &options.rssToleranceKib},
                                                {"settle-s", &options.settleSecs},
                                                {"stall", &options.stall}};
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    if (argument.rfind("--", 0) != 0 || equals == std::string::npos) {
      throw std::invalid_argument("expected --name=value, got \"" + argument + "\"");
    }
    const std::string name = argument.substr(2, equals - 2);
    const std::string value = argument.substr(equals + 1);
    if (name == "antidriftd") {
      options.antidriftd = value;
    } else if (name == "p99-limit-ms") {
      options.p99LimitMs = std::stod(value);
    } else if (const auto found = integers.find(name); found != integers.end()) {
      std::size_t used = 0;
      const int number = std::stoi(value, &used);
      if (used != value.size() || (number < 0 && name != "warmup-s")) {
        throw std::invalid_argument("--" + name + " needs a whole number ≥ 0");
      }
      *found->second = number;
    } else {
      throw std::invalid_argument("unknown option --" + name);
    }
  }
  if (options.warmupSecs < 0) {
    options.warmupSecs = options.durationSecs >= 120 ? 60 : 5;
  }
  if (options.durationSecs <= options.warmupSecs || options.rate < 1 || options.posters < 1 ||
      options.sseClients < 2 || options.churnWorkers < 1 || options.switchEvery < 1 ||
      options.stall > 1) {
    throw std::invalid_argument(
        "need --duration-s > --warmup-s, --rate, --posters, --churn-workers, --switch-every ≥ 1 "
        "--sse-clients ≥ 2 and --stall 0 or 1");
  }
  return options;
}

constexpr const char* kUsage =
    "usage: load_churn [--duration-s=20] [--warmup-s=5] [--rate=1000] [--posters=4]\n"
    "                  [--switch-every=10] [--sse-clients=32] [--cycles=200] [--churn-workers=8]\n"
    "                  [--rss-tolerance-kib=2048] [--p99-limit-ms=50] [--settle-s=5]\n"
    "                  [--stall=1] [--antidriftd=PATH]\n"
    "--stall=0: every stream reads (the SSE fan-out figure of docs/PERFORMANCE.md);\n"
    "--cycles=0: no killed streams.\n"
    "The documented long run: --duration-s=600 --cycles=1000 (warm-up 60 s).\n";

using test::Answer;
using test::RestClient;

/// The "version" of a State JSON body.
std::uint64_t versionOf(const std::string& stateJson) {
  Poco::JSON::Parser parser;
  return parser.parse(stateJson).extract<Poco::JSON::Object::Ptr>()->getValue<std::uint64_t>(
      "version");
}

/// The value at quantile `q` (0..1) of `sorted`; 0 when empty.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) {
    return 0;
  }
  const auto index = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, index == 0 ? 0 : index - 1)];
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

/// The figure table: one row per measured value, with its limit and verdict.
class FigureTable {
 public:
  /// A measured value with no limit.
  void info(const std::string& figure, const std::string& value) {
    rows_.push_back({figure, value, "", ""});
  }
  /// A measured value checked against `limit`; `held` decides the verdict.
  void check(const std::string& figure, const std::string& value, const std::string& limit,
             bool held) {
    rows_.push_back({figure, value, limit, held ? "ok" : "FAILED"});
    failed_ = failed_ || !held;
  }
  bool failed() const { return failed_; }

  void print(std::ostream& out) const {
    std::size_t widths[3] = {6, 5, 5};
    for (const Row& row : rows_) {
      widths[0] = std::max(widths[0], row.figure.size());
      widths[1] = std::max(widths[1], row.value.size());
      widths[2] = std::max(widths[2], row.limit.size());
    }
    auto pad = [](const std::string& text, std::size_t width) {
      return text + std::string(width - text.size() + 2, ' ');
    };
    out << pad("figure", widths[0]) << pad("value", widths[1]) << pad("limit", widths[2])
        << "verdict\n";
    for (const Row& row : rows_) {
      out << pad(row.figure, widths[0]) << pad(row.value, widths[1]) << pad(row.limit, widths[2])
          << row.verdict << "\n";
    }
  }

 private:
  struct Row {
    std::string figure, value, limit, verdict;
  };
  std::vector<Row> rows_;
  bool failed_ = false;
};

/// The whole run; returns the exit code.
class LoadRun {
 public:
  explicit LoadRun(Options options) : options_(std::move(options)) {}

  int run() {
    const std::string store = directory_.path() + "/store";
    Poco::Process::Env environment;
    environment["XDG_CONFIG_HOME"] = directory_.path() + "/config";
    environment["XDG_DATA_HOME"] = directory_.path() + "/data";
    test::RunningDaemon daemon(
        options_.antidriftd,
        {"-D", "server.port=0", "-D", "store.dir=" + store, "-D", "evidence.source=none", "-D",
         "evidence.x11=false", "-D", "ai.backend=none", "-D",
         "server.max_sse_clients=" + std::to_string(options_.sseClients), "-D",
         "server.threads=" + std::to_string(poolThreads())},
        environment);
    if (daemon.port() == 0) {
      std::cerr << "load_churn: antidriftd did not start: " << daemon.firstLine() << "\n";
      daemon.stop();
      std::cerr << daemon.err();
      return 2;
    }
    port_ = daemon.port();
    ProcessProbe probe(daemon.pid());
    std::string token = test::readWholeFile(store + "/token");
    token.erase(token.find_last_not_of('\n') + 1);
    token_ = token;

    std::cout << "antidriftd pid " << daemon.pid() << " on port " << port_ << "; load "
              << options_.durationSecs << " s at " << options_.rate << " observations/s with "
              << options_.sseClients << " event streams, then " << options_.cycles
              << " killed streams" << std::endl;
    start_ = probe.sample();
    const ProcessSample& start = start_;
    table_.info("daemon at start: RSS KiB / threads / fds",
                std::to_string(start.rssKib) + " / " + std::to_string(start.threads) + " / " +
                    std::to_string(start.descriptors));

    bool ok = startSession() && loadPhase(probe) && churnPhase(probe);
    static_cast<void>(ok);

    RestClient rest(port_, token_);
    const Answer health = rest.call("GET", "/healthz");
    table_.check("GET /healthz after everything", std::to_string(health.status), "200",
                 health.status == 200);
    const int exitCode = daemon.stop();
    table_.check("antidriftd exit status on SIGINT", std::to_string(exitCode), "0", exitCode == 0);
    std::cout << "\n";
    table_.print(std::cout);
    if (table_.failed()) {
      std::cout << "\nsome limits did not hold; antidriftd's stderr:\n" << daemon.err();
      return 1;
    }
    return 0;
  }

 private:
  /// server.threads of the daemon: the default 64, or more for many streams.
  int poolThreads() const { return std::max(64, options_.sseClients + 16); }

  bool startSession() {
    RestClient rest(port_, token_);
    const Answer planning = rest.call("POST", "/planning", "{}");
    // The session outlasts the run: the load ends before the timebox.
    const int minutes = std::min(720, options_.durationSecs / 60 + 30);
    const Answer active = rest.call(
        "POST", "/commitment",
        R"({"next_action":"Hold the load","success_condition":"every figure in its limit",)"
        R"("timebox_minutes":)" +
            std::to_string(minutes) + R"(,"allowed_apps":["code"]})");
    const bool ok = planning.status == 200 && active.status == 200;
    if (!ok) {
      table_.check("session started", std::to_string(planning.status) + " " + active.body, "200",
                   false);
    }
    return ok;
  }

  /// Posts observation number `index` (paced by the caller).
  static std::string observationBody(std::uint64_t index, int switchEvery) {
    // Window changes every switchEvery-th observation, cycling through three
    // windows (one outside the allowed apps, judged "unknown" with AI off);
    // the rest are heartbeats of the current window.
    static const char* const kWindows[][2] = {
        {"code", "load.cpp - antidrift - Visual Studio Code"},
        {"firefox", "Poco::Net::HTTPServer - Mozilla Firefox"},
        {"code", "sse_broadcaster.cpp - antidrift - Code"}};
    const auto window = (index / static_cast<std::uint64_t>(switchEvery)) % 3;
    return std::string(R"({"app":")") + kWindows[window][0] + R"(","title":")" +
           kWindows[window][1] + R"("})";
  }

  bool loadPhase(ProcessProbe& probe) {
    // server.max_sse_clients streams: all but one read, one never does
    // (unless --stall=0: then all read).
    std::vector<std::unique_ptr<SseReader>> readers;
    std::size_t refused = 0;
    for (int i = 0; i + options_.stall < options_.sseClients; ++i) {
      readers.push_back(std::make_unique<SseReader>(port_));
      refused += readers.back()->status() == 200 ? 0 : 1;
    }
    std::optional<RawEventSocket> stalled;
    if (options_.stall == 1) {
      stalled.emplace(port_, 1024);
    }
    table_.check(options_.stall == 1 ? "event streams opened (one never reads)"
                                     : "event streams opened (all read)",
                 std::to_string(options_.sseClients - static_cast<int>(refused)),
                 std::to_string(options_.sseClients), refused == 0);

    std::vector<ProcessSample> samples;
    std::atomic<bool> loading{true};
    std::mutex samplesMutex;
    std::thread sampler([&] {
      auto next = Clock::now();
      while (loading) {
        const ProcessSample sample = probe.sample();
        {
          std::lock_guard<std::mutex> lock(samplesMutex);
          samples.push_back(sample);
        }
        next += seconds(1);
        std::this_thread::sleep_until(next);
      }
    });

    const std::uint64_t cpuBefore = probe.cpuNanoseconds();
    const auto begin = Clock::now();
    const auto end = begin + seconds(options_.durationSecs);
    std::vector<std::vector<double>> latencies(static_cast<std::size_t>(options_.posters));
    std::atomic<std::uint64_t> failures{0};
    std::atomic<std::uint64_t> late{0};
    std::vector<std::thread> posters;
    for (int worker = 0; worker < options_.posters; ++worker) {
      posters.emplace_back([&, worker] {
        RestClient rest(port_, token_);
        std::vector<double>& mine = latencies[static_cast<std::size_t>(worker)];
        for (std::uint64_t index = static_cast<std::uint64_t>(worker);;
             index += static_cast<std::uint64_t>(options_.posters)) {
          // Open loop: observation `index` is due at begin + index / rate.
          const auto due =
              begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                          static_cast<double>(index) / options_.rate));
          if (due >= end || Clock::now() >= end) {
            break;  // a daemon too slow for the rate shows as a lower achieved rate
          }
          if (Clock::now() > due + milliseconds(100)) {
            ++late;
          }
          std::this_thread::sleep_until(due);
          const auto sent = Clock::now();
          try {
            const Answer answer =
                rest.call("POST", "/evidence/window", observationBody(index, options_.switchEvery));
            if (answer.status != 202) {
              ++failures;
            }
          } catch (const Poco::Exception&) {
            ++failures;
          }
          mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        }
      });
    }
    for (std::thread& poster : posters) {
      poster.join();
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
    const double cpuSecs = static_cast<double>(probe.cpuNanoseconds() - cpuBefore) / 1e9;
    loading = false;
    sampler.join();

    // The final state: every reading client must end on it.
    RestClient rest(port_, token_);
    const std::uint64_t finalVersion = versionOf(rest.call("GET", "/state").body);
    const auto stopped = Clock::now();
    std::size_t onFinal = 0;
    for (const auto& reader : readers) {
      onFinal += reader->waitForVersion(finalVersion, seconds(10)) ? 1 : 0;
    }
    const double lagMs = std::chrono::duration<double, std::milli>(Clock::now() - stopped).count();
    const std::uint64_t laterVersion = versionOf(rest.call("GET", "/state").body);

    std::vector<double> all;
    std::uint64_t fewestEvents = UINT64_MAX;
    for (const auto& reader : readers) {
      fewestEvents = std::min(fewestEvents, reader->eventCount());
    }
    for (const auto& some : latencies) {
      all.insert(all.end(), some.begin(), some.end());
    }
    std::sort(all.begin(), all.end());

    table_.info("observations posted", std::to_string(all.size()));
    table_.check("observations/s achieved", fixed(static_cast<double>(all.size()) / elapsed, 0),
                 ">= 95% of " + std::to_string(options_.rate),
                 static_cast<double>(all.size()) / elapsed >= 0.95 * options_.rate);
    // What the fan-out costs (issue 8 item 4): the daemon's CPU while loaded.
    table_.info("daemon CPU during the load (cores)", fixed(cpuSecs / elapsed, 2));
    table_.info("daemon CPU per observation (ms)",
                fixed(all.empty() ? 0 : 1000.0 * cpuSecs / static_cast<double>(all.size()), 3));
    table_.check("observations not answered 202", std::to_string(failures.load()), "0",
                 failures == 0);
    table_.info("observations sent > 100 ms late", std::to_string(late.load()));
    table_.info("REST POST latency p50 / max (ms)",
                fixed(quantile(all, 0.5), 2) + " / " + fixed(all.empty() ? 0 : all.back(), 1));
    const double p99 = quantile(all, 0.99);
    table_.check("REST POST latency p99 (ms)", fixed(p99, 2), "< " + fixed(options_.p99LimitMs, 0),
                 p99 < options_.p99LimitMs);
    table_.info("fewest state events one reader got", std::to_string(fewestEvents));
    table_.check("readers on the final state (version " + std::to_string(finalVersion) + ")",
                 std::to_string(onFinal) + " of " + std::to_string(readers.size()),
                 "all, within 10 s", onFinal == readers.size() && laterVersion == finalVersion);
    table_.info("time until all readers had it (ms)", fixed(lagMs, 0));

    // RSS flat after the warm-up.
    const std::size_t warm =
        std::min(samples.size() - 1, static_cast<std::size_t>(options_.warmupSecs));
    std::int64_t highest = samples[warm].rssKib;
    std::size_t closeWaitMax = 0;
    std::size_t closeWaitLasting = 0;  // in two samples in a row
    std::size_t threadsMax = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (i >= warm) {
        highest = std::max(highest, samples[i].rssKib);
      }
      closeWaitMax = std::max(closeWaitMax, samples[i].closeWait);
      if (i > 0) {
        closeWaitLasting =
            std::max(closeWaitLasting, std::min(samples[i - 1].closeWait, samples[i].closeWait));
      }
      threadsMax = std::max(threadsMax, samples[i].threads);
    }
    table_.info(
        "RSS KiB at " + std::to_string(warm) + " s / at the end",
        std::to_string(samples[warm].rssKib) + " / " + std::to_string(samples.back().rssKib));
    table_.check("RSS growth after the warm-up (KiB)",
                 std::to_string(highest - samples[warm].rssKib),
                 "<= " + std::to_string(options_.rssToleranceKib),
                 highest - samples[warm].rssKib <= options_.rssToleranceKib);
    table_.info("sockets in CLOSE_WAIT in one sample (most)", std::to_string(closeWaitMax));
    table_.check("sockets in CLOSE_WAIT for 1 s or more (most)", std::to_string(closeWaitLasting),
                 "0", closeWaitLasting == 0);
    table_.info("daemon threads during the load (most)", std::to_string(threadsMax));

    // The stalled client: once its buffers are full, a write to it blocks
    // for at most server.request_timeout_s and the daemon drops it, freeing
    // its slot; the readers above were served all the while. If the load was
    // too short to fill its buffers, states go on (at the same rate, at most
    // kStallDeadline) until the daemon lets go of it — watched in /proc,
    // never by reading from it.
    const auto stallBegin = Clock::now();
    bool stalledDropped = !stalled || !probe.holdsConnectionFrom(stalled->localPort());
    if (stalled) {
      RestClient poster(port_, token_);
      std::uint64_t index = 0;
      auto nextCheck = Clock::now();
      while (!stalledDropped && Clock::now() - stallBegin < kStallDeadline) {
        poster.call("POST", "/evidence/window", observationBody(index++, 1));
        if (Clock::now() >= nextCheck) {
          stalledDropped = !probe.holdsConnectionFrom(stalled->localPort());
          nextCheck += milliseconds(200);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(1'000'000 / options_.rate));
      }
    }
    if (stalled) {
      table_.check(
          "stream that never read dropped by the daemon",
          stalledDropped
              ? "yes, " +
                    fixed(std::chrono::duration<double>(Clock::now() - stallBegin).count(), 1) +
                    " s after the load"
              : "no",
          "within " + std::to_string(kStallDeadline.count()) + " s", stalledDropped);
    }

    // Everyone leaves; the daemon must release the streams.
    for (auto& reader : readers) {
      reader->close();
    }
    if (stalled) {
      stalled->close(CloseMode::Reset);
    }
    const auto released =
        waitUntilSettled(probe, [](const ProcessSample& sample) { return sample.closeWait == 0; });
    table_.check("time to release " + std::to_string(options_.sseClients) + " closed streams (ms)",
                 released ? fixed(*released, 0) : "never",
                 "<= " + std::to_string(options_.settleSecs * 1000), released.has_value());
    return true;
  }

  /// Waits (at most --settle-s, reading /proc every 50 ms) until `settled`
  /// holds for the daemon; the milliseconds it took, or nullopt.
  template <typename Predicate>
  std::optional<double> waitUntilSettled(ProcessProbe& probe, Predicate settled) {
    const auto begin = Clock::now();
    const auto deadline = begin + seconds(options_.settleSecs);
    while (true) {
      if (settled(probe.sample())) {
        return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
      }
      if (Clock::now() >= deadline) {
        return std::nullopt;
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
  }

  /// What a round of connect/kill cycles saw.
  struct CycleCounts {
    std::atomic<int> served{0};
    std::atomic<int> busy{0};
    std::atomic<int> broken{0};
  };

  /// Runs `cycles` connect/kill cycles on --churn-workers threads.
  void runCycles(int cycles, CycleCounts& counts) {
    std::atomic<int> next{0};
    std::vector<std::thread> workers;
    for (int worker = 0; worker < options_.churnWorkers; ++worker) {
      workers.emplace_back([&] {
        for (int cycle = next++; cycle < cycles; cycle = next++) {
          try {
            RawEventSocket socket(port_, 0);
            const int status = socket.readStatus(seconds(10));
            if (status == 200) {
              ++counts.served;
            } else if (status == 503) {
              ++counts.busy;
            } else {
              ++counts.broken;
            }
            // Killed mid-stream: the first event is unread in the buffer.
            socket.close(cycle % 2 == 0 ? CloseMode::Reset : CloseMode::Orderly);
          } catch (const std::exception&) {
            ++counts.broken;
          }
        }
      });
    }
    for (std::thread& worker : workers) {
      worker.join();
    }
  }

  bool churnPhase(ProcessProbe& probe) {
    if (options_.cycles == 0) {
      return true;
    }
    const ProcessSample before = probe.sample();
    // Poco's pool keeps idle threads until they have been idle for its idle
    // time and a later request lets it tidy up, so the count may stay above
    // the one before the churn; a leaked thread would push it past the
    // pool's capacity (server.threads) over the threads of a fresh daemon.
    const std::size_t threadLimit = start_.threads + static_cast<std::size_t>(poolThreads());
    auto settledNow = [&](const ProcessSample& sample) {
      return sample.closeWait == 0 && sample.threads <= threadLimit &&
             sample.descriptors <= before.descriptors;
    };
    // Two halves: the first grows the pool (new threads bring their stacks
    // and malloc arenas into RSS); the second, on a warm pool, must not grow
    // memory — what a leak per stream would do.
    CycleCounts counts;
    const auto begin = Clock::now();
    const int firstHalf = options_.cycles / 2;
    runCycles(firstHalf, counts);
    const auto firstSettled = waitUntilSettled(probe, settledNow);
    const ProcessSample middle = probe.sample();
    runCycles(options_.cycles - firstHalf, counts);
    const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
    const auto settled = waitUntilSettled(probe, settledNow);
    const ProcessSample after = probe.sample();

    table_.info("streams killed mid-stream (cycles/s)",
                std::to_string(options_.cycles) + " (" +
                    fixed(static_cast<double>(options_.cycles) / elapsed, 0) + "/s)");
    table_.info("  of them served 200 / refused 503 (slots full)",
                std::to_string(counts.served.load()) + " / " + std::to_string(counts.busy.load()));
    table_.check("  of them failed otherwise", std::to_string(counts.broken.load()), "0",
                 counts.broken == 0);
    auto describe = [](const ProcessSample& sample) {
      return std::to_string(sample.threads) + " / " + std::to_string(sample.descriptors) + " / " +
             std::to_string(sample.rssKib);
    };
    table_.info("daemon before / between halves / after: threads / fds / RSS KiB",
                describe(before) + " -> " + describe(middle) + " -> " + describe(after));
    table_.check(
        "time until fds back, no CLOSE_WAIT, threads <= " + std::to_string(threadLimit) + " (ms)",
        firstSettled && settled ? fixed(*firstSettled, 0) + ", " + fixed(*settled, 0) : "never",
        "<= " + std::to_string(options_.settleSecs * 1000), firstSettled && settled);
    table_.check("RSS growth over the second half (KiB)",
                 std::to_string(after.rssKib - middle.rssKib),
                 "<= " + std::to_string(options_.rssToleranceKib),
                 after.rssKib - middle.rssKib <= options_.rssToleranceKib);
    return true;
  }

  Options options_;
  ProcessSample start_;  ///< the daemon right after it started
  test::TempDirectory directory_;
  std::uint16_t port_ = 0;
  std::string token_;
  FigureTable table_;
};

}  // namespace
}  // namespace antidrift::load

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  antidrift::load::Options options;
  try {
    if (argc == 2 && std::string(argv[1]) == "--help") {
      std::cout << antidrift::load::kUsage;
      return 0;
    }
    options = antidrift::load::parseOptions(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "load_churn: " << error.what() << "\n" << antidrift::load::kUsage;
    return 2;
  }
  try {
    return antidrift::load::LoadRun(options).run();
  } catch (const std::exception& error) {
    std::cerr << "load_churn: " << error.what() << "\n";
    return 2;
  }
}
