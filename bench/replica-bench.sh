#!/usr/bin/env bash
# Replication sync benchmark (ReplicaSyncBenchmark): two driver processes, node-a's 2 GiB ext4
# volume mounted and holding 512 MiB, a first whole sync to node-b, then syncs after 16 MiB
# written each, as the operator makes them (MoveCopy/Snapshot on node-a, MoveCopy/CopyIn onto the
# previous replica on node-b, MoveCopy/Synced on both). Prints per sync the bytes node-a sent over
# the bytes written (aim: at most 1.05), the snapshot's time (the filesystem's freeze), the
# replica's time, and beside it cp --reflink=auto --sparse=always of the previous replica on the
# same disk (the raw tools' floor for making the new image). Once with the data dirs on the disk
# (no reflinks), once on an xfs with reflinks; the drivers' resident memory after. The drivers run
# with the image's JVM flags, as on a node. Needs root; takes a few minutes; run it under the mount
# lock (flock -s /var/lock/thinvol-mounts.lock). Usage: bench/replica-bench.sh [syncs]
set -euo pipefail
cd "$(dirname "$0")/.."
syncs="${1:-5}"
image_flags="$(grep -o -- '-X[^ "]*' packaging/image/thinvol-driver | tr '\n' ' ')"
driver_flags="${THINVOL_BENCH_DRIVER_FLAGS-$image_flags}"

./mvnw -B -q -o -pl driver -am -DskipTests test-compile dependency:build-classpath \
  -Dmdep.outputFile="$PWD/driver/target/replica-bench.cp" -Dmdep.includeScope=test
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/replica-bench.cp)"

echo "thinvol replication sync benchmark ($(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $syncs syncs after the first)"
echo "disk data dirs on $(df --output=source,fstype /var/tmp | tail -n 1)"
echo "JVM flags of the drivers: ${driver_flags:-none}"
echo
java -Djava.io.tmpdir=/var/tmp -Dthinvol.driver.jvm-flags="$driver_flags" -cp "$cp" \
  io.thinvol.driver.peer.ReplicaSyncBenchmark "$syncs" \
  2>/var/tmp/thinvol-replica-bench.log
echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
