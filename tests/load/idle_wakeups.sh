#!/bin/sh
# Idle wake-ups (issue 8 item 3): starts ANTIDRIFTD on an ephemeral port,
# opens STREAMS idle event streams with curl, and prints the voluntary
# context switches
# (wake-ups) of each daemon thread over SECONDS, and its CPU ticks.
# usage: tests/load/idle_wakeups.sh ANTIDRIFTD STREAMS SECONDS
bin=$1; streams=$2; secs=$3
dir=$(mktemp -d); out=$dir/out
$bin -D server.port=0 -D store.dir=$dir/store -D evidence.source=none -D evidence.x11=false -D ai.backend=none > $out 2>$dir/err &
pid=$!
while ! grep -q listening $out; do sleep 0.1; done
port=$(sed -n 's/.*127.0.0.1:\([0-9]*\).*/\1/p' $out | head -1)
i=0; while [ $i -lt $streams ]; do curl -s -N http://127.0.0.1:$port/events > /dev/null & i=$((i+1)); done
sleep 2
snap() { for t in /proc/$pid/task/*; do echo "$(basename $t) $(cat $t/comm | tr ' ' _) $(awk '/^voluntary_ctxt/{print $2}' $t/status)"; done | sort; }
snap > $dir/a; c0=$(awk '{print $14+$15}' /proc/$pid/stat); sleep $secs; snap > $dir/b; c1=$(awk '{print $14+$15}' /proc/$pid/stat)
join $dir/a $dir/b | awk -v s=$secs '{d=$5-$3; tot+=d; if (d>0) printf "  thread %s %s: %d wake-ups (%.2f/s)\n", $1, $2, d, d/s} END {printf "total %d wake-ups in %d s (%.2f/s)\n", tot, s, tot/s}'
echo "CPU ticks in $secs s: $((c1-c0))"
kill -TERM $pid; wait $pid 2>/dev/null; kill $(jobs -p) 2>/dev/null; rm -rf $dir
