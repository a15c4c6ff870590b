// Reading alone of `antidriftd replay` (issue 16 item 5): loads FILE the way the replay does
// (replay::loadActivity: an ActivityWatch export streamed, or JSONL line by line) and prints
// what it read and how long it took, so tests/bench/replay_scale.sh can set the reading beside
// the whole command and Python's json.load. Usage: bench_replay_read FILE
#include <chrono>
#include <cstdio>

#include "antidrift/replay/activity_reader.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_replay_read FILE\n");
    return 2;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const antidrift::replay::Activity activity = antidrift::replay::loadActivity(argv[1]);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("read %zu window events, %zu away spans, %zu web events in %.3f s\n",
                activity.windows.size(), activity.away.size(), activity.webEvents, took.count());
  } catch (const antidrift::replay::ReplayError& error) {
    std::fprintf(stderr, "bench_replay_read: %s\n", error.what());
    return 1;
  }
  return 0;
}
