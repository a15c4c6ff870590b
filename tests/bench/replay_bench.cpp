// Replays the real ActivityWatch export (../shared/data, 3,512 window events)
// through the Controller's evidence path, as the X11 source would feed it, to
// measure what one observation costs while a session is active: sanitising,
// stats, drift local match, the State built for SSE, and its JSON.
#include <cstdint>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <benchmark/benchmark.h>

#include <Poco/DateTimeParser.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include "antidrift/evidence/observation.h"
#include "antidrift/replay/replay.h"
#include "antidrift/session/controller.h"
#include "antidrift/wire/json.h"
#include "bench/aw_export.h"
#include "mocks/fake_clock.h"
#include "mocks/manual_executor.h"
#include "mocks/memory_stores.h"

namespace {

using namespace antidrift;

using bench::awWindowEvents;
using bench::RawEvent;

// Cost of one observation through Controller::recordWindow while active,
// including building the State and its JSON for the SSE broadcast.
void BM_ReplayActiveSession(benchmark::State& state) {
  const auto& replay = awWindowEvents();
  test::FakeClock clock(replay.front().atMs);
  test::ManualExecutor executor;
  test::MemorySnapshotStore snapshots;
  test::MemoryAuditSink audit;
  Settings settings;
  Controller controller(settings, clock, executor, snapshots, audit);
  std::size_t jsonBytes = 0;
  controller.setChangeListener([&](const State& s) {
    std::ostringstream out;
    Poco::JSON::Stringifier::condense(toJson(s), out);
    jsonBytes += out.str().size();
  });
  (void)controller.enterPlanning();
  CommitmentRequest request;
  request.nextAction = "Add page transitions to the chango.dev Gatsby site";
  request.successCondition =
      "Transitions work between blog pages with gatsby-plugin-transition-link";
  request.timeboxSecs = 12 * 3600;
  request.allowedApps = std::vector<std::string>{"Code - Insiders", "qterminal"};
  (void)controller.startCommitment(request);
  std::size_t i = 0;
  for (auto _ : state) {
    const RawEvent& event = replay[i++ % replay.size()];
    clock.advance(1'000);
    controller.recordWindow(Observation{0, event.app, event.title, "x11", ""});
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["state_json_bytes_avg"] =
      benchmark::Counter(static_cast<double>(jsonBytes) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_ReplayActiveSession);

// `antidriftd replay` with the AI off (issue 8 item 2): the whole export
// through the drift engine, stats and timeline on a virtual clock, no
// persistence and no State JSON. items_per_second = observations/s (target
// ≥ 500,000 on the 2-core CI machine).
void BM_ReplayEngineAiOff(benchmark::State& state) {
  const replay::Activity activity =
      replay::loadActivity(ANTIDRIFT_SHARED_DATA "/aw-window-export-linux.json");
  replay::ReplayOptions options;
  replay::CommitmentRange range;
  range.fromMs = std::numeric_limits<std::int64_t>::min();
  range.toMs = std::numeric_limits<std::int64_t>::max();
  range.nextAction = "Add page transitions to the chango.dev Gatsby site";
  range.allowedApps = {"Code - Insiders", "qterminal"};
  options.commitments = {range};
  options.keepTimeline = false;
  std::int64_t observations = 0;
  for (auto _ : state) {
    const replay::ReplayReport report = replay::runReplay(activity, options);
    observations += report.observations;
    benchmark::DoNotOptimize(report.stats.switches);
  }
  state.SetItemsProcessed(observations);
}
BENCHMARK(BM_ReplayEngineAiOff)->Unit(benchmark::kMillisecond);

// Cost of sanitising every real title once.
void BM_SanitizeRealTitles(benchmark::State& state) {
  const auto& replay = awWindowEvents();
  for (auto _ : state) {
    for (const auto& event : replay) benchmark::DoNotOptimize(sanitizeTitle(event.title));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(replay.size()));
}
BENCHMARK(BM_SanitizeRealTitles);

}  // namespace

BENCHMARK_MAIN();
