#!/usr/bin/env bash
# A ReclaimSpaceJob end to end (operator + addons + TLS + token + a real driver process on a loop
# device, the fabric8 mock API server) against a bare fstrim of the same volume, alternating rounds
# after the same amount of data was written and deleted. Needs root (loop devices, mounts).
# Usage: bench/reclaim-job-bench.sh [rounds] [MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
mib="${2:-256}"

./mvnw -B -q -DskipTests install
./mvnw -B -q -pl operator dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cp="operator/target/test-classes:operator/target/classes:$(cat operator/target/bench.cp)"
java -Dlogback.configurationFile=/dev/null -cp "$cp" io.thinvol.operator.ReclaimJobBenchmark "$rounds" "$mib" 2>/dev/null
