#!/usr/bin/env bash
# A ReclaimSpaceJob end to end (operator + addons + TLS + token + a real driver process on a loop
# device, the fabric8 mock API server) against a bare fstrim of the same volume, alternating rounds
# after the same amount of data was written and deleted. Needs root (loop devices, mounts).
# Usage: bench/reclaim-job-bench.sh [rounds] [MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
mib="${2:-256}"

source bench/operator-classpath.sh
java -Dlogback.configurationFile=/dev/null -cp "$cp" io.thinvol.operator.ReclaimJobBenchmark "$rounds" "$mib" 2>/dev/null
