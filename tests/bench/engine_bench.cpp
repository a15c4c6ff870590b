// The engine pieces on the real titles of the ActivityWatch export
// (../shared/data; issue 8 item 4, docs/PERFORMANCE.md "Engine pieces"):
// sanitising and normalising a title, redacting it for a prompt, the drift
// decision of one observation, the verdict cache, and the State JSON (built
// and stringified, as every SSE broadcast does today). Each benchmark walks
// the whole export once per pass and reports items (titles) per second.
//
//   build/tests/bench/bench_engine [--benchmark_min_time=0.05]
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <Poco/JSON/Stringifier.h>

#include "antidrift/ai/redact.h"
#include "antidrift/drift/engine.h"
#include "antidrift/drift/title_normalizer.h"
#include "antidrift/drift/verdict_cache.h"
#include "antidrift/evidence/observation.h"
#include "antidrift/session/controller.h"
#include "antidrift/text/normalize.h"
#include "antidrift/wire/json.h"
#include "bench/aw_export.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"

namespace {

using namespace antidrift;
using bench::awWindowEvents;

/// The export's events as the X11 source hands them on: app normalised,
/// title sanitised.
const std::vector<Observation>& observations() {
  static const std::vector<Observation> loaded = [] {
    std::vector<Observation> out;
    for (const auto& event : awWindowEvents()) {
      out.push_back(
          Observation{event.atMs, normalizeApp(event.app), sanitizeTitle(event.title), "x11", ""});
    }
    return out;
  }();
  return loaded;
}

/// The commitment of the export's README (the chango.dev Gatsby work).
Commitment readmeCommitment() {
  Commitment commitment;
  commitment.id = "bench";
  commitment.nextAction = "Add page transitions to the chango.dev Gatsby site";
  commitment.successCondition =
      "Transitions work between blog pages with gatsby-plugin-transition-link";
  commitment.timeboxSecs = 12 * 3600;
  commitment.startedAtMs = awWindowEvents().front().atMs;
  commitment.deadlineMs = commitment.startedAtMs + commitment.timeboxSecs * 1000;
  commitment.allowedApps = {"code - insiders", "qterminal"};
  return commitment;
}

void setTitlesPerSecond(benchmark::State& state, std::size_t perPass) {
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(perPass));
}

// sanitizeTitle on every raw title (docs/DESIGN.md §3): what the X11 source does first.
void BM_SanitizeTitle(benchmark::State& state) {
  const auto& events = awWindowEvents();
  for (auto _ : state) {
    for (const auto& event : events) benchmark::DoNotOptimize(sanitizeTitle(event.title));
  }
  setTitlesPerSecond(state, events.size());
}
BENCHMARK(BM_SanitizeTitle);

// normalizeApp on every raw window class (issue 6 item 3).
void BM_NormalizeApp(benchmark::State& state) {
  const auto& events = awWindowEvents();
  for (auto _ : state) {
    for (const auto& event : events) benchmark::DoNotOptimize(normalizeApp(event.app));
  }
  setTitlesPerSecond(state, events.size());
}
BENCHMARK(BM_NormalizeApp);

// text::normalizeUnicode (NFC, invisibles dropped, white space folded).
void BM_NormalizeUnicode(benchmark::State& state) {
  const auto& obs = observations();
  for (auto _ : state) {
    for (const auto& o : obs) benchmark::DoNotOptimize(text::normalizeUnicode(o.title));
  }
  setTitlesPerSecond(state, obs.size());
}
BENCHMARK(BM_NormalizeUnicode);

// drift::normalizeTitle: the verdict-cache key form of a title.
void BM_NormalizeTitle(benchmark::State& state) {
  const auto& obs = observations();
  for (auto _ : state) {
    for (const auto& o : obs) benchmark::DoNotOptimize(drift::normalizeTitle(o.title));
  }
  setTitlesPerSecond(state, obs.size());
}
BENCHMARK(BM_NormalizeTitle);

// ai::Redactor with the default patterns: what a title goes through before a prompt.
void BM_RedactTitle(benchmark::State& state) {
  const auto& obs = observations();
  const ai::Redactor redactor(Settings{}.redactPatterns);
  for (auto _ : state) {
    for (const auto& o : obs) benchmark::DoNotOptimize(redactor.apply(o.title));
  }
  setTitlesPerSecond(state, obs.size());
}
BENCHMARK(BM_RedactTitle);

// drift::verdictKey then a VerdictCache lookup, filled as the judge would
// (every key once): the cached-verdict step of docs/DESIGN.md §4.
void BM_VerdictCacheLookup(benchmark::State& state) {
  const auto& obs = observations();
  const Settings settings;
  const drift::Rules rules(settings);
  drift::VerdictCache cache;
  for (const auto& o : obs) cache.put(drift::verdictKey(rules, o), {false, "entertainment"});
  for (auto _ : state) {
    for (const auto& o : obs) benchmark::DoNotOptimize(cache.find(drift::verdictKey(rules, o)));
  }
  setTitlesPerSecond(state, obs.size());
  state.counters["keys"] = static_cast<double>(cache.size());
}
BENCHMARK(BM_VerdictCacheLookup);

// drift::Engine::observe over the whole export with the README commitment,
// judge and nudge on; every judge request is answered at once (off task),
// as a fake judge would, so later observations of a key hit the cache.
void BM_DriftDecision(benchmark::State& state) {
  const auto& obs = observations();
  const Settings settings;
  const Commitment commitment = readmeCommitment();
  drift::Engine engine(settings);
  std::int64_t judgeCalls = 0;
  std::int64_t passes = 0;
  for (auto _ : state) {
    engine.reset();
    ++passes;
    std::int64_t mono = 0;
    for (const auto& o : obs) {
      mono += 2'000;  // two seconds apart: past no debounce, so most keys wait
      drift::Decision decision =
          engine.observe(o, commitment, mono, drift::Engine::Advisors::JudgeAndNudge);
      if (const auto due = engine.nextDueMono(); due && *due <= mono + 20'000) {
        mono = *due;
        decision = engine.due(commitment, mono);
      }
      if (decision.judge) {
        ++judgeCalls;
        benchmark::DoNotOptimize(engine.applyVerdict(
            decision.judge->key, ai::Verdict{false, "not the Gatsby site"}, "", o.atMs));
      }
    }
  }
  setTitlesPerSecond(state, obs.size());
  state.counters["judge_calls_per_pass"] =
      static_cast<double>(judgeCalls) / static_cast<double>(passes);
}
BENCHMARK(BM_DriftDecision);

// BM_DriftDecision with a verdict memory lent to the engine (issue 16 item 3),
// kept across passes: each pass is a new session (reset) after a restart, so
// after the first pass every key is answered by the memory once, then by the
// session cache. judge_calls_per_pass falls to the first pass's share.
void BM_DriftDecisionWithMemory(benchmark::State& state) {
  const auto& obs = observations();
  const Settings settings;
  Commitment commitment = readmeCommitment();
  commitment.id = "bench";
  drift::VerdictMemory memory;
  drift::Engine engine(settings);
  engine.setMemory(&memory);
  std::int64_t judgeCalls = 0;
  std::int64_t passes = 0;
  for (auto _ : state) {
    engine.reset();
    ++passes;
    std::int64_t mono = 0;
    for (const auto& o : obs) {
      mono += 2'000;
      drift::Decision decision =
          engine.observe(o, commitment, mono, drift::Engine::Advisors::JudgeAndNudge);
      if (const auto due = engine.nextDueMono(); due && *due <= mono + 20'000) {
        mono = *due;
        decision = engine.due(commitment, mono);
      }
      if (decision.judge) {
        ++judgeCalls;
        benchmark::DoNotOptimize(engine.applyVerdict(
            decision.judge->key, ai::Verdict{false, "not the Gatsby site"}, "", o.atMs));
      }
    }
  }
  setTitlesPerSecond(state, obs.size());
  state.counters["judge_calls_per_pass"] =
      static_cast<double>(judgeCalls) / static_cast<double>(passes);
  state.counters["remembered"] = static_cast<double>(memory.size());
}
BENCHMARK(BM_DriftDecisionWithMemory);

/// How many events of the export the State benchmarks' Controller sees:
/// enough for a long timeline and many stats buckets. (Feeding it the whole
/// export takes a minute on a loaded machine: the cost of the Controller's
/// hot path, which bench_replay measures.)
constexpr std::size_t kStateEvents = 600;

/// A Controller in an active session that has seen kStateEvents events of the
/// export, so its State carries stats and a timeline (what SSE clients receive).
struct ActiveController {
  test::FakeClock clock{awWindowEvents().front().atMs};
  test::ManualExecutor executor;
  test::MemorySnapshotStore snapshots;
  test::MemoryAuditSink audit;
  Settings settings;
  Controller controller{settings, clock, executor, snapshots, audit};

  ActiveController() {
    (void)controller.enterPlanning();
    CommitmentRequest request;
    request.nextAction = "Add page transitions to the chango.dev Gatsby site";
    request.successCondition =
        "Transitions work between blog pages with gatsby-plugin-transition-link";
    request.timeboxSecs = 12 * 3600;
    request.allowedApps = std::vector<std::string>{"Code - Insiders", "qterminal"};
    (void)controller.startCommitment(request);
    const auto& events = awWindowEvents();
    for (std::size_t i = 0; i < kStateEvents && i < events.size(); ++i) {
      clock.advance(1'000);
      controller.recordWindow(Observation{0, events[i].app, events[i].title, "x11", ""});
    }
  }
};

/// The one ActiveController of the State benchmarks, built on first use.
Controller& activeController() {
  static ActiveController active;
  return active.controller;
}

// Controller::state(): the State built (today once per client per change).
void BM_StateBuild(benchmark::State& state) {
  Controller& controller = activeController();
  for (auto _ : state) {
    benchmark::DoNotOptimize(controller.state());
  }
}
BENCHMARK(BM_StateBuild);

// toJson(State) and Poco::JSON::Stringifier::condense: the SSE event's data.
void BM_StateJson(benchmark::State& state) {
  const State snapshot = activeController().state();
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    Poco::JSON::Stringifier::condense(toJson(snapshot), out);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_StateJson);

}  // namespace

BENCHMARK_MAIN();
