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
# 64 MiB heap), as on a node; THINVOL_BENCH_DRIVER_FLAGS replaces them (empty: the JVM's defaults),
# THINVOL_BENCH_JFR=<dir> records each driver with JFR (a file per process in <dir>),
# THINVOL_BENCH_LOGS=<dir> keeps the drivers' logs there (what each step of a copy took).
# Needs root; takes a few minutes. Usage: bench/copy-bench.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
image_flags="$(grep -o -- '-X[^ "]*' packaging/image/thinvol-driver | tr '\n' ' ')"
driver_flags="${THINVOL_BENCH_DRIVER_FLAGS-$image_flags}"
if [ -n "${THINVOL_BENCH_JFR:-}" ]; then
  mkdir -p "$THINVOL_BENCH_JFR"
  driver_flags="$driver_flags -XX:StartFlightRecording=filename=$THINVOL_BENCH_JFR,settings=profile"
fi

./mvnw -B -q -o -pl driver -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile="$PWD/driver/target/copy-bench.cp" -Dmdep.includeScope=test
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/copy-bench.cp)"

echo "thinvol cross-node copy benchmark ($(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $runs runs)"
echo "data dirs and cp on $(df --output=source,fstype /var/tmp | tail -n 1)"
echo "JVM flags of the drivers: ${driver_flags:-none} (and --add-opens=java.base/java.nio=ALL-UNNAMED, which the driver jar's manifest gives java -jar)"
echo
bench_java=(java -Djava.io.tmpdir=/var/tmp -Dthinvol.driver.jvm-flags="$driver_flags"
  -Dthinvol.bench.logs="${THINVOL_BENCH_LOGS:-}" -cp "$cp")
"${bench_java[@]}" io.thinvol.driver.peer.CrossNodeCopyBenchmark "$runs" \
  2>/var/tmp/thinvol-copy-bench.log
echo
echo "cut-over (changes since the pre-copy only):"
echo
"${bench_java[@]}" io.thinvol.driver.peer.CrossNodeDeltaBenchmark "$runs" \
  2>>/var/tmp/thinvol-copy-bench.log
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
