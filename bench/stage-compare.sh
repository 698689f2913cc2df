#!/usr/bin/env bash
# NodeStage and NodePublish of two driver builds side by side: each started through the image's
# entry point, their stage rounds (each interleaved with bench/raw-stage.sh, direct and buffered)
# run alternately, RUNS times each, so both see the same machine. Prints one line per run: build,
# driver and raw p50 (ms) and their ratio for NodeStage and for NodePublish, and the load average.
# Needs root and a built driver (driver-bench.sh builds it).
# Usage: bench/stage-compare.sh BEFORE.jar AFTER.jar [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
before="$1"
after="$2"
runs="${3:-3}"
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/bench.cp)"
work="$(mktemp -d /var/tmp/thinvol-stage-compare-XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  for m in $(awk -v w="$work" '$5 ~ "^"w {print $5}' /proc/self/mountinfo | sort -r); do umount "$m" || true; done
  losetup -a | awk -F: -v w="$work" 'index($0, w) {print $1}' | xargs -r -n1 losetup -d || true
  rm -rf "$work"
}
trap cleanup EXIT

start() { # name jar
  mkdir -p "$work/$1/home"
  cp packaging/image/thinvol-driver "$work/$1/home/thinvol"
  cp "$2" "$work/$1/home/thinvol-driver.jar"
  THINVOL_HOME="$work/$1/home" sh "$work/$1/home/thinvol" driver \
    --csi-endpoint "unix://$work/$1/csi.sock" --node-id "bench-$1" --data-dir "$work/$1/data" \
    --log-level WARN --addons-endpoint "unix://$work/$1/addons.sock" --addons-port 0 \
    --http-port 0 > "$work/$1/driver.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 1 200); do [ -S "$work/$1/csi.sock" ] && break; sleep 0.05; done
}
start before "$before"
start after "$after"
sleep 2
fig() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
for run in $(seq 1 "$runs"); do
  for side in before after; do
    out="$work/$side-$run"
    java -cp "$cp" io.thinvol.driver.bench.DriverBenchmark "$work/$side/csi.sock" "$work/$side" stage > "$out"
    awk -v s="$side" -v r="$run" -v d="$(fig stage_p50_ms "$out")" -v w="$(fig raw_stage_p50_ms "$out")" \
      -v p="$(fig publish_p50_ms "$out")" -v b="$(fig raw_publish_p50_ms "$out")" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN {printf "run %d %-6s NodeStage p50 %7.1f ms  raw direct %7.1f ms  ratio %.2f | NodePublish p50 %5.2f ms  raw %5.2f ms  ratio %.2f | load %s\n", r, s, d, w, d / w, p, b, p / b, l}'
  done
done
