#!/bin/sh
# Change of window over HTTP -> its SSE event (issue 8 item 2): starts
# ANTIDRIFTD on an ephemeral port with a temporary store, enters an active
# session, posts N window changes (20 ms apart) and prints p50 and p99 of
# POST sent -> state event received on an open /events stream.
# usage: tests/load/sse_latency.sh ANTIDRIFTD [N]
bin=$1; n=${2:-300}
dir=$(mktemp -d); out=$dir/out
$bin -D server.port=0 -D store.dir=$dir/store -D evidence.source=none -D evidence.x11=false -D ai.backend=none > $out 2>$dir/err &
pid=$!
while ! grep -q listening $out; do sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' $out | head -1)
token=$(cat $dir/store/token)
curl -s -o /dev/null -X POST -H "X-AntiDrift-Token: $token" -H 'Content-Type: application/json' -d '{}' http://127.0.0.1:$port/planning
curl -s -o /dev/null -X POST -H "X-AntiDrift-Token: $token" -H 'Content-Type: application/json' -d '{"next_action":"Measure","success_condition":"figures","timebox_minutes":60,"allowed_apps":["code"]}' http://127.0.0.1:$port/commitment
timeout 120 python3 "$(dirname "$0")/sse_latency.py" $port $token $n
kill -TERM $pid; wait $pid; rm -rf $dir
