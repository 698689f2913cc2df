#!/usr/bin/env bash
# Snapshot benchmark: a 1 GiB block volume holding 512 MiB (random data in every other MiB),
# snapshotted through a real driver's CreateSnapshot, next to raw copies of the same image in the
# same data dir (cp --sparse=always, cp --reflink=always), on an ext4 data dir and on an xfs data
# dir with reflinks (made on a loop device here). Prints time and extra bytes on disk per run.
# Needs root; takes a few minutes.
# Usage: bench/snapshot-bench.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"

./mvnw -B -q -pl driver -am -DskipTests package dependency:build-classpath \
  -Dmdep.outputFile="$PWD/driver/target/snapshot-bench.cp" -Dmdep.includeScope=test
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/snapshot-bench.cp)"
jar="$(ls driver/target/thinvol-driver-*-all.jar | head -n 1)"
work="$(mktemp -d /var/tmp/thinvol-snapbench-XXXXXX)"
driver_pid=""
stop_driver() {
  if [ -n "$driver_pid" ]; then kill "$driver_pid" 2>/dev/null && wait "$driver_pid" 2>/dev/null || true; fi
  driver_pid=""
}
cleanup() {
  stop_driver
  for m in $(awk -v w="$work" '$5 ~ "^"w {print $5}' /proc/self/mountinfo | sort -r); do umount "$m" || true; done
  losetup -a | awk -F: -v w="$work" 'index($0, w) {print $1}' | xargs -r -n1 losetup -d || true
  rm -rf "$work"
}
trap cleanup EXIT

# Each data dir is a filesystem of its own (a sparse 4 GiB file on this machine's disk, on a
# loop device), so that its usage counts the copies and nothing else the machine writes.
truncate -s 4G "$work/xfs.img" "$work/ext4.img"
mkfs.xfs -q -m reflink=1 "$work/xfs.img"
mkfs.ext4 -q "$work/ext4.img"
mkdir -p "$work/xfs" "$work/ext4"
mount -o loop "$work/xfs.img" "$work/xfs"
mount -o loop "$work/ext4.img" "$work/ext4"

bench() { # label data-dir
  local dir="$work/$1-run"
  mkdir -p "$dir"
  java -XX:+UseSerialGC -Xmx64m -XX:TieredStopAtLevel=1 -Djdk.lang.Process.launchMechanism=VFORK \
    -jar "$jar" driver --csi-endpoint "unix://$dir/csi.sock" --node-id bench --data-dir "$2" \
    --log-level WARN --addons-endpoint none --addons-port 0 --http-port 0 > "$dir/driver.log" 2>&1 &
  driver_pid=$!
  for _ in $(seq 1 200); do [ -S "$dir/csi.sock" ] && break; sleep 0.05; done
  java -cp "$cp" io.thinvol.driver.bench.SnapshotBenchmark "$dir/csi.sock" "$dir" "$2" "$1" "$runs"
  stop_driver
}

echo "thinvol snapshot benchmark ($(nproc) cores, $(uname -r), $runs runs; 1 GiB volume, 512 MiB written)"
echo "cells: time / extra bytes on the data dir's filesystem (statfs, settled after syncfs)"
echo
header="| data dir | copy |"; rule="|---|---|"
for i in $(seq 1 "$runs"); do header="$header run $i |"; rule="$rule---|"; done
echo "$header"; echo "$rule"
bench ext4 "$work/ext4/data"
bench xfs-reflink "$work/xfs/data"
