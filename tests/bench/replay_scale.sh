#!/usr/bin/env bash
# Replay at scale (issue 16 item 5; docs/PERFORMANCE.md "Replay at scale"): builds the real
# ActivityWatch export repeated COPIES times in a temporary folder (default 100: 351,200 events,
# 65 MB, 200 days), each copy shifted by whole days, written compact as Python's json.dump
# writes it; then runs side by side, RUNS rounds of each in turn:
#   1. Python's json.load of the file (the yardstick: its parse time alone, measured inside);
#   2. the replay's reading alone (bench_replay_read: replay::loadActivity);
#   3. the whole `antidriftd replay FILE --next … --allowed …` command, AI off;
# and prints wall time, CPU time and peak RSS (/usr/bin/time) of each round and the medians,
# then the engine alone (bench_replay, BM_ReplayEngineAiOff: observations/s on the real export).
# Nothing is written outside the temporary folder, which is removed at the end.
#
# Usage: tests/bench/replay_scale.sh [--copies N] [--runs N] [--build DIR] [--export FILE]
#                                     [--compare ANTIDRIFTD]
#   --copies N   copies of the export (default 100)
#   --runs N     rounds of the three measurements (default 3)
#   --build DIR  the CMake build folder (default: build); antidriftd, bench_replay_read and
#                bench_replay are built there when missing
#   --export F   the export to repeat (default ../shared/data/aw-window-export-linux.json)
#   --compare B  also run the same replay command with another antidriftd binary B in each
#                round (an older build: before/after in one run), reported as "compare"
# Needs python3 and /usr/bin/time (Debian's `time` package).
set -euo pipefail
cd "$(dirname "$0")/../.."
copies=100
runs=3
build=build
export_file=../shared/data/aw-window-export-linux.json
compare=""
while [ $# -gt 0 ]; do
  case "$1" in
    --copies) copies=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --export) export_file=$2; shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    *) echo "usage: $0 [--copies N] [--runs N] [--build DIR] [--export FILE] [--compare BIN]" >&2
       exit 2 ;;
  esac
done
[ -r "$export_file" ] || { echo "replay_scale: no export at $export_file" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "replay_scale: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
python=$(command -v /usr/bin/python3 || command -v python3)

for target in antidriftd bench_replay_read bench_replay; do
  binary=$(find "$build" -name "$target" -type f -perm -u+x -print -quit 2>/dev/null || true)
  [ -n "$binary" ] || cmake --build "$build" -j2 --target "$target" >/dev/null
done
antidriftd=$(find "$build" -name antidriftd -type f -perm -u+x -print -quit)
reader=$(find "$build" -name bench_replay_read -type f -perm -u+x -print -quit)
engine=$(find "$build" -name bench_replay -type f -perm -u+x -print -quit)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=$work/export-x$copies.json
: >"$work/none.properties"

"$python" - "$export_file" "$big" "$copies" <<'PY'
import datetime, json, sys
source, target, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(source, encoding="utf-8") as f:
    export = json.load(f)
stamps = [datetime.datetime.fromisoformat(e["timestamp"])
          for b in export["buckets"].values() for e in b["events"]]
period = datetime.timedelta(days=(max(stamps) - min(stamps)).days + 1)
for bucket in export["buckets"].values():
    events = []
    for copy in range(copies - 1, -1, -1):  # newest first, as ActivityWatch exports them
        for e in bucket["events"]:
            moved = dict(e)
            at = datetime.datetime.fromisoformat(e["timestamp"]) + period * copy
            moved["timestamp"] = at.isoformat()
            events.append(moved)
    bucket["events"] = events
with open(target, "w", encoding="utf-8") as f:
    json.dump(export, f)
count = sum(len(b["events"]) for b in export["buckets"].values())
print(f"built {count} events over {(period * copies).days} days")
PY
echo "file: $(du -m "$big" | cut -f1) MB ($(stat -c %s "$big") bytes)"
echo "machine: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //');" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# measure NAME COMMAND...: one run under /usr/bin/time; appends "name wall cpu rss_mb inner" to
# $work/results (inner: the seconds the program printed itself, or -).
measure() {
  local name=$1
  shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || {
    echo "replay_scale: $name failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  local inner=""
  [ "$name" = replay ] || [ "$name" = compare ] || inner=$(grep -oE '[0-9]+\.[0-9]+ s$' "$work/out" | head -1 | cut -d' ' -f1 || true)
  read -r wall user sys rss <"$work/time"
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v i="${inner:--}" \
    'BEGIN { printf "%s %.2f %.2f %.0f %s\n", n, w, u + s, r / 1024, i }' >>"$work/results"
  tail -1 "$work/results" | awk '{ printf "  %-8s wall %6.2f s  cpu %6.2f s  peak RSS %5d MB  %s\n",
    $1, $2, $3, $4, ($5 == "-" ? "" : "(inside: " $5 " s)") }'
}

: >"$work/results"
for run in $(seq "$runs"); do
  echo "--- round $run of $runs"
  measure python "$python" -c '
import json, sys, time
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    json.load(f)
print("json.load %.3f s" % (time.perf_counter() - start))' "$big"
  measure read "$reader" "$big"
  measure replay "$antidriftd" replay "$big" --config "$work/none.properties" \
    --next "Add page transitions to the chango.dev Gatsby site" \
    --allowed "Code - Insiders,qterminal"
  [ -z "$compare" ] || measure compare "$compare" replay "$big" --config "$work/none.properties" \
    --next "Add page transitions to the chango.dev Gatsby site" \
    --allowed "Code - Insiders,qterminal"
done

echo "--- medians of $runs rounds"
"$python" - "$work/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss, inner = line.split()
    rows.setdefault(name, []).append((float(wall), float(cpu), int(rss), inner))
def med(name, i):
    return statistics.median(r[i] for r in rows[name])
parse = statistics.median(float(r[3]) for r in rows["python"])
labels = {"python": "python3 json.load (whole process)", "read": "replay reading alone",
          "replay": "antidriftd replay (whole command)", "compare": "--compare binary (whole command)"}
print(f"  {'':36} {'wall s':>7} {'cpu s':>7} {'peak RSS MB':>12}")
for name in [n for n in ("python", "read", "replay", "compare") if n in rows]:
    print(f"  {labels[name]:36} {med(name, 0):7.2f} {med(name, 1):7.2f} {med(name, 2):12.0f}")
print(f"  python json.load alone (inside): {parse:.2f} s")
print(f"  reading alone (inside): {statistics.median(float(r[3]) for r in rows['read']):.2f} s")
ratio = med("replay", 0) / parse
print(f"  whole replay / python parse: {ratio:.2f} x (target <= 1.5): "
      + ("met" if ratio <= 1.5 else "missed"))
print(f"  cpu: whole replay / python process: {med('replay', 1) / med('python', 1):.2f} x;"
      f" reading alone / python process: {med('read', 1) / med('python', 1):.2f} x")
if "compare" in rows:
    print(f"  --compare binary / python parse: {med('compare', 0) / parse:.2f} x")
print(f"  replay peak RSS: {med('replay', 2):.0f} MB (target <= 200): "
      + ("met" if med("replay", 2) <= 200 else "missed"))
PY

echo "--- the engine alone (bench_replay, BM_ReplayEngineAiOff; target >= 500k obs/s)"
"$engine" --benchmark_filter=ReplayEngineAiOff --benchmark_min_time=0.5 2>/dev/null |
  grep -E 'BM_ReplayEngineAiOff|^Benchmark'
