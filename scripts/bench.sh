#!/usr/bin/env bash
# The benchmarks of docs/PERFORMANCE.md (issue 8 item 4) in one command: builds
# what they need in `build` (RelWithDebInfo, the folder of scripts/test.sh),
# runs each and prints its figures. Needs what scripts/deps.sh test installs
# (libbenchmark-dev, Xvfb, openbox). Takes about 15 minutes with the defaults:
#  1. bench_engine: the engine pieces on the real titles (Google Benchmark);
#  2. bench_replay: one observation through the Controller (Google Benchmark);
#  3. bench_x11: switch -> SSE latency beside a 1 s poller and the X server's
#     floor, and idle CPU, RSS and wake-ups (locked, active, 10 SSE clients);
#  4. load_churn --stall=0: SSE fan-out with 30 clients, observations/s and CPU,
#     BENCH_FANOUT_RUNS times (one run's CPU varies by a third on a shared VM);
#  5. the replay: engine throughput (AI off) and judge calls on the real export;
#  6. the replay at scale: the export repeated 100 times (20 under BENCH_QUICK=1) beside
#     Python's json.load (tests/bench/replay_scale.sh, issue 16 item 5).
# Settings (environment): BENCH_SWITCHES (200), BENCH_IDLE_S (60),
# BENCH_FANOUT_S (20), BENCH_FANOUT_RATE (10000), BENCH_FANOUT_POSTERS (16),
# BENCH_FANOUT_RUNS (3).
# BENCH_QUICK=1 runs short versions (about 2 minutes) with the same output.
#
# `scripts/bench.sh bars` runs only tests/bench/bars_bench.mjs (issue 20): the
# daemon, the AntiDrift page, a blank page (each in headless chromium),
# `antidrift watch --format waybar` and the old 5 s polling snippet side by
# side, % of a core and wake-ups per minute, locked and active, visible and
# hidden, then the switch -> bar latency. BENCH_BARS_S (60) seconds a window,
# BENCH_BARS_SWITCHES (200) switches; about 5 minutes. Needs node, npm and
# /usr/bin/chromium (scripts/deps.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = bars ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
  cmake --build build -j"$(nproc)" --target antidriftd antidrift antidrift-watch
  [ -d tests/e2e/browser/node_modules/playwright-core ] ||
    (cd tests/e2e/browser && npm ci --no-audit --no-fund --loglevel=error)
  echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M'); commit: $(git rev-parse --short HEAD)"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //');" \
    "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  ANTIDRIFT_BIN="$PWD/build/antidriftd" ANTIDRIFT_CLI="$PWD/build/antidrift" \
    exec node tests/bench/bars_bench.mjs
fi
quick=${BENCH_QUICK:-0}
switches=${BENCH_SWITCHES:-$([ "$quick" = 1 ] && echo 20 || echo 200)}
idle=${BENCH_IDLE_S:-$([ "$quick" = 1 ] && echo 5 || echo 60)}
fanout_s=${BENCH_FANOUT_S:-$([ "$quick" = 1 ] && echo 5 || echo 20)}
fanout_rate=${BENCH_FANOUT_RATE:-10000}
fanout_posters=${BENCH_FANOUT_POSTERS:-16}
fanout_runs=${BENCH_FANOUT_RUNS:-$([ "$quick" = 1 ] && echo 1 || echo 3)}
min_time=$([ "$quick" = 1 ] && echo 0.05 || echo 0.5)
export_file=../shared/data/aw-window-export-linux.json

section() { printf '\n=== %s\n' "$*"; }

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build build -j"$(nproc)" --target antidriftd bench_engine bench_replay bench_x11 load_churn \
  bench_replay_read

section "machine"
echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
echo "commit: $(git rev-parse --short HEAD) ($(git rev-parse --abbrev-ref HEAD))"
echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo "kernel: $(uname -r); load average: $(cut -d' ' -f1-3 /proc/loadavg)"

section "1. engine pieces (bench_engine)"
build/tests/bench/bench_engine --benchmark_min_time="$min_time"

section "2. one observation through the Controller (bench_replay)"
build/tests/bench/bench_replay --benchmark_min_time="$min_time"

section "3. switch -> SSE latency and idle cost under Xvfb (bench_x11)"
build/tests/bench/bench_x11 --switches="$switches" --idle-s="$idle" --idle-clients=10

section "4. SSE fan-out, 30 clients (load_churn --stall=0)"
# The load tool's limits are its own (docs/RELIABILITY.md); here only the
# figures count, so its exit status is reported, not fatal.
for run in $(seq "$fanout_runs"); do
  echo "--- run $run of $fanout_runs"
  build/tests/load/load_churn --duration-s="$fanout_s" --warmup-s=1 --cycles=0 --stall=0 \
    --sse-clients=30 --rate="$fanout_rate" --posters="$fanout_posters" \
    --p99-limit-ms=100000 --rss-tolerance-kib=1000000 ||
    echo "(load_churn exited $?: a limit of the load test did not hold; the figures stand)"
done

section "5. replay (antidriftd replay): throughput and judge calls on the real export"
# Throughput of the engine the replay drives, AI off, no persistence and no
# State JSON (the target's terms): BM_ReplayEngineAiOff reports items/s.
build/tests/bench/bench_replay --benchmark_filter=ReplayEngineAiOff --benchmark_min_time="$min_time"
# The whole command once, file parsing included.
start=$(date +%s.%N)
build/antidriftd replay "$export_file" --json \
  --next "Add page transitions to the chango.dev Gatsby site" \
  --allowed "Code - Insiders,qterminal" >/tmp/antidrift-bench-replay.json
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "the whole command, AI off: %.3f s\n", e - s }'
# Judge calls with the default settings and the fake judge of the README,
# beside judging every stable title on its own and a 30 s timer.
build/antidriftd replay "$export_file" \
  --next "Add page transitions to the chango.dev Gatsby site" \
  --done "Transitions work between blog pages with gatsby-plugin-transition-link" \
  --allowed "Code - Insiders,qterminal" --backend fake \
  -D ai.fake.responses=plugins/fake/responses.replay.json |
  grep -E '^(From|On task|Drift episodes|AI calls|A judge on|Judging every)'

section "6. the replay at scale beside Python's json.load (tests/bench/replay_scale.sh)"
tests/bench/replay_scale.sh --build build --runs "$([ "$quick" = 1 ] && echo 1 || echo 3)" \
  --copies "$([ "$quick" = 1 ] && echo 20 || echo 100)"
