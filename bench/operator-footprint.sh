#!/usr/bin/env bash
# The operator's memory with many StorageBackends and claims: the operator runs with the container
# image's JVM flags in its own process against the fabric8 mock API server in another, so the RSS
# printed is the operator's alone. Usage: bench/operator-footprint.sh [backends] [claims]
set -euo pipefail
cd "$(dirname "$0")/.."
backends="${1:-10}"
claims="${2:-1000}"

source bench/operator-classpath.sh
port=$((20000 + RANDOM % 20000))

java -cp "$cp" io.thinvol.operator.OperatorFootprint server "$port" > /dev/null 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done

java -XX:+UseSerialGC -Xss512k -Xmx128m -XX:MaxMetaspaceSize=96m -XX:ReservedCodeCacheSize=32m \
  -XX:TieredStopAtLevel=1 -Dlogback.configurationFile=/dev/null -cp "$cp" \
  io.thinvol.operator.OperatorFootprint operator "http://127.0.0.1:$port" "$backends" "$claims" \
  2>/dev/null | grep '^backends='
