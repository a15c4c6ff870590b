#!/bin/bash
# run-days.sh [ANTIDRIFTD] [extra replay args...]: the DriftBench figures of every labelled
# day, AI off (--backend none) and with a perfect judge (--oracle), one line each.
#
# Days: linux-c1 (the shared development day and its shared labels), linux-c2 (the shared
# export under a second commitment, labels here) and windows-w1 (our own Windows day,
# export and labels here). The shared folder is $SHARED, by default ../shared next to the
# checkout (the main checkout's sibling); a day whose export or labels are missing is
# reported and skipped. ANTIDRIFTD defaults to build/antidriftd of this checkout.
#
# Figures (see ../shared/drift-labels/README.md): recall of drift time (and the heads-up's
# share of it), false time, false banners per on-task hour, visits caught, time to tell
# p50/p90 (s), judge calls per 100 window changes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/antidriftd}
[ $# -gt 0 ] && shift
shared=${SHARED:-$(cd "$root/.." && pwd)/shared}
linux=$shared/data/aw-window-export-linux.json

if [ ! -x "$bin" ]; then echo "run-days.sh: no antidriftd at $bin" >&2; exit 2; fi

# name | export | labels | next action | success condition | allowed apps
days=(
  "linux-c1|$linux|$shared/drift-labels/linux-c1.jsonl|Add page transitions to the chango.dev Gatsby site|Transitions work between blog pages with gatsby-plugin-transition-link|Code - Insiders,qterminal"
  "linux-c2|$linux|$here/linux-c2.jsonl|Build the blog of the transluciddata Gatsby site|The blog lists markdown posts with thumbnail images|Code - Insiders,qterminal"
  "windows-w1|$here/windows-w1.json|$here/windows-w1.jsonl|Add Stripe Checkout payments to the bakery-shop Next.js store|A test card order completes and shows as paid in the Stripe dashboard|Code.exe,WindowsTerminal.exe"
)

printf '%-11s %-6s %14s %8s %6s %9s %7s %7s %8s\n' day mode "recall (h-up)" false fb/h visits "tt p50" "tt p90" judge/100
status=0
for entry in "${days[@]}"; do
  IFS='|' read -r name export labels next done allowed <<<"$entry"
  if [ ! -r "$export" ] || [ ! -r "$labels" ]; then
    echo "$name: skipped (no $( [ -r "$export" ] && echo "$labels" || echo "$export" ))"
    continue
  fi
  for mode in none oracle; do
    if [ $mode = none ]; then flags=(--backend none); else flags=(--oracle); fi
    json=$(timeout 300 "$bin" replay "$export" --next "$next" --done "$done" --allowed "$allowed" \
             --labels "$labels" "${flags[@]}" "$@" --json 2>/dev/null)
    if [ $? -ne 0 ] || [ -z "$json" ]; then echo "$name $mode: replay failed"; status=1; continue; fi
    python3 -c '
import json, sys
name, mode = sys.argv[1], sys.argv[2]
l = json.load(sys.stdin)["labels"]
on_h = l["on_ms"] / 3.6e6
def sec(k):
    v = l.get(k)
    return "-" if v is None else "%.1f" % (v / 1000)
ai = l.get("ai", {})
print("%-11s %-6s %6.3f (%.3f) %8.4f %6.2f %4s/%-4s %7s %7s %8.2f" % (
    name, mode, l["recall_time"], l.get("recall_time_heads_up", 0), l["false_time"],
    l["false_banners_per_on_hour"], l.get("visits_caught"), l.get("visits"),
    sec("time_to_tell_p50_ms"), sec("time_to_tell_p90_ms"), ai.get("judge_per_100_changes", 0)))
' "$name" "$mode" <<<"$json" || status=1
  done
done
exit $status
