#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz for a while each (issue 9 item 4;
# results in docs/RELIABILITY.md "Fuzzing").
#
# Usage: tests/fuzz/run.sh [--minutes N] [--parallel N] [target ...]
#   --minutes N   how long each target runs (default 10)
#   --parallel N  how many targets run at once (default 1)
#   target        names from tests/fuzz/CMakeLists.txt (default: all)
#
# Builds them in build-asan (clang-14, -DANTIDRIFT_FUZZ=ON: AddressSanitizer +
# UndefinedBehaviorSanitizer, the folder scripts/test.sh also uses). Each
# target starts from its checked-in seeds (tests/fuzz/corpus/<name>) and its
# regressions, plus, for `text`, the window titles of the real ActivityWatch
# export in ../shared/data when it is there (read at run time, never copied
# into the repository). New inputs accumulate in
# build-asan/tests/fuzz/corpus-<name>, crashes in artifacts-<name>/, the log in
# run-<name>.log. Prints one summary line per target and exits 1 if any crashed.
# A crash found becomes a regression: minimise it (fuzz_<name>
# -minimize_crash=1 -runs=100000 <crash>), copy it into
# tests/fuzz/regressions/<name>/, fix the code; ctest fuzz.replay.<name> replays it.
set -euo pipefail
cd "$(dirname "$0")/../.."

minutes=10
parallel=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  read -r -a targets <<<"$(sed -n 's/^set(ANTIDRIFT_FUZZ_TARGETS \(.*\))$/\1/p' tests/fuzz/CMakeLists.txt)"
fi

build=build-asan
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON \
  -DANTIDRIFT_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

out=$build/tests/fuzz
run_one() {
  local name=$1
  local inputs=(tests/fuzz/corpus/"$name")
  [ -d tests/fuzz/regressions/"$name" ] && inputs+=(tests/fuzz/regressions/"$name")
  mkdir -p "$out/corpus-$name" "$out/artifacts-$name"
  if [ "$name" = text ] && [ -r ../shared/data/aw-window-export-linux.json ]; then
    # One file per distinct real title: a realistic start for the normalisers.
    local titles=$out/titles-real
    rm -rf "$titles" && mkdir -p "$titles"
    grep -o '"title": *"[^"]*"' ../shared/data/aw-window-export-linux.json | sort -u | head -500 |
      sed 's/^"title": *"//; s/"$//' | split -l 1 - "$titles/title-"
    inputs+=("$titles")
  fi
  local dict=()
  [ -f tests/fuzz/"$name".dict ] && dict=(-dict=tests/fuzz/"$name".dict)
  local status=0
  "$out/fuzz_$name" -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/artifacts-$name/" -print_final_stats=1 "${dict[@]}" \
    "$out/corpus-$name" "${inputs[@]}" >"$out/run-$name.log" 2>&1 || status=$?
  local done_line
  done_line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$out/run-$name.log" | tail -1 || true)
  local crashes
  crashes=$(find "$out/artifacts-$name" -type f | wc -l)
  printf '%-14s %s min  exit %s  crashes %s  corpus %s files  %s\n' "$name" "$minutes" "$status" \
    "$crashes" "$(find "$out/corpus-$name" -type f | wc -l)" "$done_line"
  return "$status"
}

failed=0
running=0
for name in "${targets[@]}"; do
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
