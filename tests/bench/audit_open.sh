#!/bin/sh
# Start-up of the real antidriftd on a large audit log (issue 19 item 6,
# review L4; figures in docs/PERFORMANCE.md). Writes a chained log of
# <megabytes> (default 1024), starts antidriftd on it with the page cache
# dropped where possible, and prints the time from exec to the first
# /healthz 200 and the daemon's peak RSS (VmHWM) at that moment.
#   tests/bench/audit_open.sh [build dir] [megabytes]
set -eu
build=${1:-build}
megabytes=${2:-1024}
store=$(mktemp -d /var/tmp/antidrift-audit-open.XXXXXX)
trap 'rm -rf "$store"' EXIT
trap 'exit 130' INT TERM
chmod 700 "$store"
"$build/tests/bench/bench_audit_open_write" "$store" "$megabytes"
ls -l "$store/audit.jsonl"
# DROP_CACHES=1 (root) starts on a cold page cache: the tail is read from
# the disk. Off by default: it slows everyone else on a shared machine.
sync
cache=warm
if [ "${DROP_CACHES:-0}" = 1 ] && [ -w /proc/sys/vm/drop_caches ]; then
  echo 3 > /proc/sys/vm/drop_caches
  cache=cold
fi
python3 - "$build/antidriftd" "$store" "$cache" <<'PY'
import subprocess, sys, time, urllib.request, re
daemon, store, cache = sys.argv[1:4]
start = time.monotonic()
proc = subprocess.Popen([daemon, "-D", "server.port=0", "-D", "store.dir=" + store,
                         "-D", "evidence.source=none",
                         "-D", "ai.backend=none"],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = proc.stdout.readline()
match = re.search(r"listening on (http://\S+)", line)
if not match:
    proc.kill()
    sys.exit("antidriftd did not start: " + line + proc.stderr.read())
url = match.group(1)
while True:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as answer:
            if answer.status == 200:
                break
    except OSError:
        pass
ready = time.monotonic() - start
with open(f"/proc/{proc.pid}/status") as status:
    hwm = next(l for l in status if l.startswith("VmHWM")).split()[1]
proc.terminate()
proc.wait(timeout=30)
print(f"antidriftd on a {cache}-cache log: first /healthz 200 after {ready*1000:.0f} ms; "
      f"peak RSS {int(hwm)/1024:.1f} MiB")
# The whole-chain check the daemon then runs in the background is the same
# streaming AuditLog::verify as --verify-audit: its time and peak RSS.
import os
start = time.monotonic()
check = subprocess.Popen([daemon, "--verify-audit", "-D", "store.dir=" + store],
                         stdout=subprocess.PIPE, text=True)
out = check.stdout.read().strip()
_, status, usage = os.wait4(check.pid, 0)
print(f"whole-chain check (--verify-audit, streaming): {time.monotonic() - start:.1f} s; "
      f"peak RSS {usage.ru_maxrss/1024:.1f} MiB; {out}")
PY
