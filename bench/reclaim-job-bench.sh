#!/usr/bin/env bash
# A ReclaimSpaceJob end to end (operator + addons + TLS + token + a real driver process on a loop
# device, the fabric8 mock API server) against a bare fstrim of the same volume, alternating rounds
# after the same amount of data was written and deleted. Needs root (loop devices, mounts).
# Usage: bench/reclaim-job-bench.sh [rounds] [MiB]
#   BENCH_PREBUILT=1 skips the build; BENCH_TMP: where the temp dir goes, /tmp by default.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
mib="${2:-256}"

source bench/operator-classpath.sh
# The driver's data dir and staging mount go under a temp dir of this run (the JVM's tmpdir),
# released even when the benchmark is interrupted before it could unstage.
work="$(mktemp -d "${BENCH_TMP:-/tmp}/thinvol-reclaimjob-XXXXXX")"
trap 'bench/release-under.sh "$work"' EXIT
java -Djava.io.tmpdir="$work" -Dlogback.configurationFile=/dev/null -cp "$cp" \
  io.thinvol.operator.ReclaimJobBenchmark "$rounds" "$mib" 2>/dev/null
