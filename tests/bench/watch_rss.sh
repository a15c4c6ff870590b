#!/bin/sh
# Memory of the status bars' watch at rest (issue 20 item 2: ≤ 5 MB RSS;
# figures in docs/PERFORMANCE.md). Starts the real antidriftd on an ephemeral
# port with its own store, starts a session through the HTTP API (planning,
# commitment, one window), runs `antidrift watch --format waybar` — which
# execs antidrift-watch — waits for its first line, lets it rest REST_S (5)
# seconds and prints its VmRSS, RssAnon, RssFile and PSS, what it maps most
# (Rss by file, from smaps) and its NEEDED libraries.
#   tests/bench/watch_rss.sh [build dir] [watch binary to run directly instead]
set -eu
build=${1:-build}
direct=${2:-}
store=$(mktemp -d /var/tmp/antidrift-watch-rss.XXXXXX)
trap 'rm -rf "$store"' EXIT
trap 'exit 130' INT TERM
chmod 700 "$store"
python3 - "$build" "$store" "${REST_S:-5}" "$direct" <<'PY'
import json, re, subprocess, sys, time, urllib.request
build, store, rest, direct = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
daemon = subprocess.Popen([build + "/antidriftd", "-D", "server.port=0", "-D", "store.dir=" + store + "/store",
                           "-D", "evidence.x11=false", "-D", "ai.backend=none"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    first = daemon.stdout.readline()
    url = re.search(r"http://127\.0\.0\.1:\d+", first).group(0)
    token = open(store + "/store/token").read().strip()
    def post(path, body):
        request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "X-AntiDrift-Token": token})
        urllib.request.urlopen(request).read()
    post("/planning", {})
    post("/commitment", {"next_action": "Measure the watch", "success_condition": "",
                         "timebox_minutes": 25, "allowed_apps": ["code"]})
    post("/evidence/window", {"app": "code", "title": "main.cpp"})
    port = url.rsplit(":", 1)[1]
    if direct:
        command = [direct, "--format", "waybar", "--refresh", "60", "--silence", "50",
                   "--timeout", "10", "--address", "127.0.0.1", "--port", port,
                   "--host", "127.0.0.1:" + port]
    else:
        command = [build + "/antidrift", "--url", url, "watch", "--format", "waybar"]
    watch = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = watch.stdout.readline()
    assert '"class":"ontask"' in line, line
    time.sleep(rest)  # at rest: the stream's keep-alives only
    proc = "/proc/%d" % watch.pid
    status = open(proc + "/status").read()
    field = lambda name: int(re.search(name + r":\s+(\d+)", status).group(1))
    pss = int(re.search(r"^Pss:\s+(\d+)", open(proc + "/smaps_rollup").read(), re.M).group(1))
    exe = subprocess.run(["readlink", proc + "/exe"], capture_output=True, text=True).stdout.strip()
    print("watch: %s (pid %d), %g s at rest" % (exe, watch.pid, rest))
    print("VmRSS %.2f MiB  RssAnon %.2f MiB  RssFile %.2f MiB  PSS %.2f MiB  (VmHWM %.2f MiB)" % (
        field("VmRSS") / 1024, field("RssAnon") / 1024, field("RssFile") / 1024, pss / 1024,
        field("VmHWM") / 1024))
    by_file, name = {}, "[anon]"
    for row in open(proc + "/smaps"):
        head = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", row)
        if head:
            name = head.group(1) or "[anon]"
        elif row.startswith("Rss:"):
            by_file[name] = by_file.get(name, 0) + int(row.split()[1])
    for name, kib in sorted(by_file.items(), key=lambda item: -item[1])[:6]:
        print("  %6d KiB  %s" % (kib, name))
    needed = re.findall(r"\(NEEDED\).*\[(.*)\]",
                        subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout)
    print("NEEDED:", " ".join(needed))
    watch.terminate()
    print("exit on SIGTERM:", watch.wait())
finally:
    daemon.terminate()
    daemon.wait()
PY
