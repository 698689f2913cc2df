#!/usr/bin/env bash
# The operator's memory with many StorageBackends and claims: the operator runs with the container
# image's JVM flags in its own process against the fabric8 mock API server in another, so the RSS
# printed is the operator's alone. Usage: bench/operator-footprint.sh [backends] [claims] [moves]
#
# With moves > 0 the operator runs twice, each against a fresh server holding the same objects plus
# `moves` bound claims on node-a of a backend of their own: once without VolumeMoves (the baseline),
# once with a VolumeMove for each claim, and the difference is divided by the moves. Two runs
# rather than one process measured before and after creating the moves: both runs go through the
# same timeline (seed, settle, the blocked deletion, GC), so what grows with time alone in a JVM
# (JIT-compiled code, metaspace, the heap's committed size after the earlier GCs) cancels out; a
# before/after in one process would charge it to the moves. Run-to-run noise stays: repeat it.
set -euo pipefail
cd "$(dirname "$0")/.."
backends="${1:-10}"
claims="${2:-1000}"
moves="${3:-0}"

source bench/operator-classpath.sh
server_pid=""
trap '[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true' EXIT

# Prints the operator's lines of one run against a fresh mock API server.
run_once() {
  local port=$((20000 + RANDOM % 20000))
  java -cp "$cp" io.thinvol.operator.OperatorFootprint server "$port" > /dev/null 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  java -XX:+UseSerialGC -Xss512k -Xmx128m -XX:MaxMetaspaceSize=96m -XX:ReservedCodeCacheSize=32m \
    -XX:TieredStopAtLevel=1 -Dlogback.configurationFile=/dev/null -cp "$cp" \
    io.thinvol.operator.OperatorFootprint operator "http://127.0.0.1:$port" "$backends" "$claims" \
    "$@" 2>/dev/null | grep -E '^(backends|moves)=?' || true
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

if [ "$moves" -eq 0 ]; then
  run_once
  exit 0
fi

baseline="$(run_once "$moves" 0)"
with_moves="$(run_once "$moves" "$moves")"
echo "baseline:   $(echo "$baseline" | tr '\n' ' ')"
echo "with moves: $(echo "$with_moves" | tr '\n' ' ')"
rss() { echo "$1" | sed -n 's/.*VmRSS: \([0-9]*\) kB.*/\1/p'; }
heap() { echo "$1" | sed -n 's/.*heap-used-kib=\([0-9]*\).*/\1/p'; }
rss0="$(rss "$baseline")" rss1="$(rss "$with_moves")"
heap0="$(heap "$baseline")" heap1="$(heap "$with_moves")"
if [ -z "$rss0" ] || [ -z "$rss1" ] || [ -z "$heap0" ] || [ -z "$heap1" ]; then
  echo "a run printed no figures" >&2
  exit 1
fi
awk -v n="$moves" -v r0="$rss0" -v r1="$rss1" -v h0="$heap0" -v h1="$heap1" 'BEGIN {
  printf "per move (%d moves): RSS %+.1f KiB (%+d KiB in all), heap used after GC %+.1f KiB (%+d KiB in all)\n",
    n, (r1 - r0) / n, r1 - r0, (h1 - h0) / n, h1 - h0 }'
