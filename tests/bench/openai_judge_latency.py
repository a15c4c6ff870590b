#!/usr/bin/env python3
"""The judge's latency through the whole daemon with the openai plugin (issue 18 item 5).

Starts the stand-in OpenAI-compatible server (build/tests/openai_stand_in) and the real
antidriftd with ai.backend = openai against it, opens a session, then posts N (default 120)
browser windows with titles never seen before (firefox is judged per title) through
POST /evidence/window, one after the other, and times each from the POST to the State on the
SSE stream that carries the judge's verdict for that title (drift.status ontask or drifting).
Every fifth title has the stand-in's off-task word, so both verdicts occur. Prints the count,
p50, p99 and max in milliseconds. Figures in docs/PERFORMANCE.md.

  tests/bench/openai_judge_latency.py [build dir] [switches] [openai|fake]

With "fake" the same run goes through the fake plugin's canned answers instead (no HTTP to a
model server): the daemon's own share of the figure.
"""
import http.client
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 120
backend = sys.argv[3] if len(sys.argv) > 3 else "openai"
if backend not in ("openai", "fake"):
    sys.exit("the backend must be openai or fake")
if count < 1:
    sys.exit("switches must be at least 1")

work = tempfile.mkdtemp(prefix="antidrift-openai-bench.")
procs = []


def cleanup():
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    shutil.rmtree(work, ignore_errors=True)


def word(number):
    """A title word from `number` in letters (the title normaliser folds digits)."""
    letters = ""
    number += 26 * 26
    while number:
        number, digit = divmod(number, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[digit] + letters
    return letters


try:
    stand_in = subprocess.Popen(
        [os.path.join(build, "tests", "openai_stand_in"), "--print-port", "--off-task", "Solitaire"],
        stdout=subprocess.PIPE, text=True)
    procs.append(stand_in)
    stand_in_port = int(stand_in.stdout.readline())

    config = os.path.join(work, "antidrift.properties")
    responses = os.path.join(work, "responses.json")
    with open(responses, "w") as out:
        json.dump({"responses": [
            {"role": "judge", "match": "Solitaire",
             "text": '{"on_task": false, "reason": "Solitaire is not the report."}'},
            {"role": "judge", "text": '{"on_task": true, "reason": "It fits."}'},
            {"role": "*", "text": '{"on_track": true, "message": ""}'}]}, out)
    with open(config, "w") as out:
        out.write(f"ai.backend = {backend}\n"
                  f"ai.plugin_dir = {os.path.abspath(os.path.join(build, 'plugins'))}\n"
                  f"ai.openai.url = http://127.0.0.1:{stand_in_port}/v1\n"
                  "ai.openai.model = stand-in\n"
                  f"ai.fake.responses = {responses}\n"
                  "drift.judge_debounce_s = 0\n"
                  "drift.memory = false\n"
                  "evidence.source = none\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "SWAYSOCK", "I3SOCK", "ANTIDRIFT_AI_BACKEND")}
    env["XDG_CONFIG_HOME"] = os.path.join(work, "config")
    store = os.path.join(work, "store")
    daemon = subprocess.Popen(
        [os.path.join(build, "antidriftd"), "--config", config, "-D", "server.port=0",
         "-D", "store.dir=" + store],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    procs.append(daemon)
    line = daemon.stdout.readline().strip()
    prefix = "antidriftd listening on http://127.0.0.1:"
    if not line.startswith(prefix):
        sys.exit("unexpected first line from antidriftd: " + line)
    port = int(line[len(prefix):].strip("/"))
    with open(os.path.join(store, "token")) as f:
        token = f.read().strip()

    def call(method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        reply = conn.getresponse()
        data = reply.read()
        conn.close()
        if reply.status >= 300:
            sys.exit(f"{method} {path}: {reply.status} {data!r}")
        return json.loads(data) if data else None

    states = queue.Queue()

    def read_events():
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        reply = conn.getresponse()
        event = ""
        data = []
        while True:
            raw = reply.fp.readline()
            if not raw:
                return
            text = raw.decode("utf-8").rstrip("\n")
            if text.startswith("event:"):
                event = text[6:].strip()
            elif text.startswith("data:"):
                data.append(text[5:].lstrip())
            elif text == "":
                if event == "state" and data:
                    states.put((time.monotonic(), json.loads("\n".join(data))))
                event, data = "", []

    threading.Thread(target=read_events, daemon=True).start()

    state = call("GET", "/state")
    if not state.get("ai", {}).get("available"):
        sys.exit("the AI is not available: " + state.get("ai", {}).get("detail", ""))
    call("POST", "/planning", {})
    call("POST", "/commitment", {"next_action": "Write the quarterly report",
                                 "success_condition": "The draft is saved",
                                 "timebox_minutes": 600, "allowed_apps": ["code"]})

    latencies = []
    posts = []  # how long the POST itself took: the daemon's HTTP part of each figure
    verdicts = {"ontask": 0, "drifting": 0}
    for i in range(count):
        off = i % 5 == 4
        title = f"{word(i)} {'Solitaire' if off else 'quarterly figures'} — Mozilla Firefox"
        start = time.monotonic()
        call("POST", "/evidence/window", {"app": "firefox", "title": title})
        posts.append((time.monotonic() - start) * 1000)
        deadline = start + 30
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                sys.exit(f"no verdict for {title!r} within 30 s")
            try:
                at, s = states.get(timeout=left)
            except queue.Empty:
                continue
            current = (s.get("evidence") or {}).get("current") or {}
            status = (s.get("drift") or {}).get("status")
            if current.get("title") == title and status in ("ontask", "drifting"):
                latencies.append((at - start) * 1000)
                verdicts[status] += 1
                break

    calls = call("GET", "/state").get("stats", {}).get("ai_calls", {}).get("judge")
    latencies.sort()

    posts.sort()

    def pct(p, values=latencies):
        return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

    print(f"backend: {backend}; judged switches: {len(latencies)} (ontask {verdicts['ontask']}, drifting "
          f"{verdicts['drifting']}); judge calls in the State: {calls}")
    print(f"judge latency through the daemon (POST /evidence/window -> verdict on SSE), ms: "
          f"p50 {pct(50):.1f}  p99 {pct(99):.1f}  max {latencies[-1]:.1f}")
    print(f"of which the POST /evidence/window round trip, ms: p50 {pct(50, posts):.1f}  "
          f"p99 {pct(99, posts):.1f}")
finally:
    cleanup()
