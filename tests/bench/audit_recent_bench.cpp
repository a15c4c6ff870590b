// recentSessions (issue 7 item 2) reads audit.jsonl backwards from its end:
// its time must not grow with the log. Compare the two sizes:
//   build/tests/bench/bench_audit_recent
// BM_RecentSessions/1000 and BM_RecentSessions/100000 should take about the
// same time; BM_ReadWholeLog (1k, 10k) shows how a whole-file read grows instead.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include <Poco/File.h>
#include <Poco/FileStream.h>
#include <Poco/TemporaryFile.h>

#include "antidrift/store/audit_log.h"

namespace {

using namespace antidrift;

// One audit line of a realistic detailed session (its hash is not checked here).
std::string sampleLine() {
  SessionSummary summary;
  summary.id = "0f8e6c1a-3b7d-4e0f-9a2b-5c4d3e2f1a0b";
  summary.startedAtMs = 1780000000000;
  summary.endedAtMs = summary.startedAtMs + 1'800'000;
  summary.nextAction = "Add page transitions to the chango.dev Gatsby site";
  summary.successCondition = "Transitions work between blog pages";
  summary.timeboxSecs = 1500;
  summary.outcome = Outcome::Completed;
  summary.switches = 12;
  summary.topBuckets = {{"code", 1200}, {"firefox", 300}, {"qterminal", 200}};
  summary.plannedSecs = 1800;
  summary.driftReasons = {"YouTube is not the Gatsby site"};
  summary.recap = "Mostly on task, one detour to YouTube.";
  summary.carryForward = "Close the browser before starting.";
  for (int index = 0; index < 20; ++index) {
    summary.timeline.push_back(
        {summary.startedAtMs + index * 90'000, summary.startedAtMs + (index + 1) * 90'000,
         index % 3 ? "code" : "firefox", index % 3 ? SpanStatus::OnTask : SpanStatus::Drifting});
  }
  summary.prev = kGenesisHash;
  summary.hash = computeHash(summary);
  return toJsonLine(summary) + "\n";
}

// A log of `lines` records, written once per size and kept for the run.
const std::string& logOf(std::int64_t lines) {
  static std::map<std::int64_t, std::string> paths;
  static Poco::TemporaryFile directory;
  auto it = paths.find(lines);
  if (it != paths.end()) return it->second;
  Poco::File(directory.path()).createDirectories();
  const std::string path = directory.path() + "/audit-" + std::to_string(lines) + ".jsonl";
  const std::string line = sampleLine();
  Poco::FileOutputStream out(path);
  for (std::int64_t index = 0; index < lines; ++index) out << line;
  out.close();
  return paths.emplace(lines, path).first->second;
}

void BM_RecentSessions(benchmark::State& state) {
  const std::string& path = logOf(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(recentSessions(path, 20));
  }
}
BENCHMARK(BM_RecentSessions)->Arg(1'000)->Arg(100'000)->Unit(benchmark::kMicrosecond);

void BM_ReadWholeLog(benchmark::State& state) {
  const std::string& path = logOf(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(recentSessions(path, static_cast<std::size_t>(state.range(0))));
  }
}
BENCHMARK(BM_ReadWholeLog)->Arg(1'000)->Arg(10'000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
