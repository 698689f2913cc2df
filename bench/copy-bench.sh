#!/usr/bin/env bash
# Cross-node copy benchmark: node-a's driver holds a 1 GiB block volume with 512 MiB of random data
# in every other MiB and a snapshot of it; node-b's driver creates a clone of the volume and a
# restore of the snapshot from them, pulled over the TLS port (two driver processes, data dirs on
# the same disk, a relay counting the bytes node-a sends). Each next to `cp --sparse=always` of the
# same image on the same disk (file and directory synced, as the driver syncs its copies). Prints
# bytes sent ÷ allocated bytes of the source (once, through a relay that counts them) and, per
# run, each copy's rate next to cp's and next to the raw tools' copy of the same bytes over TLS on
# loopback (socat with OpenSSL, receiver's file synced; left out without socat: apt-get install
# socat), with the CPU time each spends (both drivers; both socat processes), also per GiB
# copied. Then a VolumeMove's cut-over (CrossNodeDeltaBenchmark): a 4 GiB
# volume holding 1 GiB pre-copied to node-b, 16 MiB changed after, and the bytes and time of the copy
# of the changes only, [runs] times from one pre-copy, with data dirs on the disk (no reflinks) and
# on an xfs with reflinks.
# The drivers run with the image's JVM flags (packaging/image/thinvol-driver: C1 only, serial GC,
# 64 MiB heap) and its MALLOC_ARENA_MAX, as on a node; THINVOL_BENCH_DRIVER_FLAGS replaces the
# flags (empty: the JVM's defaults),
# THINVOL_BENCH_JFR=<dir> records each driver with JFR (a file per process in <dir>),
# THINVOL_BENCH_LOGS=<dir> keeps the drivers' logs there (what each step of a copy took).
# COPY_BENCH_PARTS=cut-over runs the cut-over only (not the whole pulls); COPY_BENCH_DATA_DIRS=disk
# (or xfs) its data dirs without reflinks (or with) only; COPY_BENCH_AGAINST=<commit> runs that
# commit's drivers beside this tree's in the cut-over, run by run in turns, each with its own
# pre-copy (built in a temporary directory from git archive, removed after). Each row carries the
# load.
# Needs root and the mounts lock (flock -s /var/lock/thinvol-mounts.lock); takes a few minutes.
# Usage: bench/copy-bench.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
parts="${COPY_BENCH_PARTS:-all}"
data_dirs="${COPY_BENCH_DATA_DIRS:-both}"
against="${COPY_BENCH_AGAINST:-}"
image_flags="$(grep -o -- '-X[^ "]*' packaging/image/thinvol-driver | tr '\n' ' ')"
eval "$(grep -o 'export MALLOC_ARENA_MAX=.*' packaging/image/thinvol-driver)"
driver_flags="${THINVOL_BENCH_DRIVER_FLAGS-$image_flags}"
if [ -n "${THINVOL_BENCH_JFR:-}" ]; then
  mkdir -p "$THINVOL_BENCH_JFR"
  driver_flags="$driver_flags -XX:StartFlightRecording=filename=$THINVOL_BENCH_JFR,settings=profile"
fi

./mvnw -B -q -o -pl driver -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile="$PWD/driver/target/copy-bench.cp" -Dmdep.includeScope=test
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/copy-bench.cp)"
against_cp=""
if [ -n "$against" ]; then
  tree="$(mktemp -d /var/tmp/thinvol-bench-against.XXXXXX)"
  trap 'rm -rf "$tree"' EXIT
  git archive --format=tar "$against" | tar -x -C "$tree"
  (cd "$tree" && ./mvnw -B -q -o -pl driver -am -DskipTests compile dependency:build-classpath \
    -Dmdep.outputFile="$tree/driver/target/against.cp")
  against_cp="$tree/driver/target/classes:$(cat "$tree/driver/target/against.cp")"
  against="$(git rev-parse --short "$against")"
fi

echo "thinvol cross-node copy benchmark ($(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs)"
echo "data dirs and cp on $(df --output=source,fstype /var/tmp | tail -n 1)"
echo "JVM flags of the drivers: ${driver_flags:-none} (and --add-opens=java.base/java.nio=ALL-UNNAMED, which the driver jar's manifest gives java -jar); MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX"
echo
bench_java=(java -Djava.io.tmpdir=/var/tmp -Dthinvol.driver.jvm-flags="$driver_flags"
  -Dthinvol.bench.logs="${THINVOL_BENCH_LOGS:-}" -Dthinvol.bench.data-dirs="$data_dirs" -cp "$cp")
: >/var/tmp/thinvol-copy-bench.log
if [ "$parts" != "cut-over" ]; then
  "${bench_java[@]}" io.thinvol.driver.peer.CrossNodeCopyBenchmark "$runs" \
    2>>/var/tmp/thinvol-copy-bench.log
  echo
fi
echo "cut-over (changes since the pre-copy only):"
echo
this="this tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- driver || echo ', changed'))"
if [ -z "$against" ]; then
  "${bench_java[@]}" -Dthinvol.bench.label="$this" io.thinvol.driver.peer.CrossNodeDeltaBenchmark \
    "$runs" 2>>/var/tmp/thinvol-copy-bench.log
else
  for run in $(seq 1 "$runs"); do
    echo "  run $run of $runs: $(uptime)"
    header=$([ "$run" = 1 ] && echo false || echo true)
    "${bench_java[@]}" -Dthinvol.bench.no-header="$header" -Dthinvol.bench.label="$against" \
      -Dthinvol.driver.classpath="$against_cp" io.thinvol.driver.peer.CrossNodeDeltaBenchmark 1 \
      2>>/var/tmp/thinvol-copy-bench.log
    "${bench_java[@]}" -Dthinvol.bench.no-header=true -Dthinvol.bench.label="$this" \
      io.thinvol.driver.peer.CrossNodeDeltaBenchmark 1 2>>/var/tmp/thinvol-copy-bench.log
  done
fi
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(uptime)"
