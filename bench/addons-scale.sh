#!/usr/bin/env bash
# The addons' API load at scale (docs/benchmarks.md): the strict API server with N annotated
# claims bound to thinvol PVs on M Node objects and a driver pod per node, the operator's addons in
# a process of their own (the container image's JVM flags) with the drivers faked; one scheduled
# period measured. Usage: bench/addons-scale.sh [claims] [nodes] [period-minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
claims="${1:-5000}"
nodes="${2:-100}"
minutes="${3:-5}"

# Built in the reactor, not installed: the class path points at the modules' target/classes.
./mvnw -B -q -pl addons -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
cp="addons/target/test-classes:addons/target/classes:$(cat addons/target/bench.cp)"

flags="-XX:+UseSerialGC -Xss512k -Xmx160m -XX:MaxMetaspaceSize=96m -XX:ReservedCodeCacheSize=32m -XX:TieredStopAtLevel=1"
java -Xmx2g -Dlogback.configurationFile=logback-bench.xml "-Dbench.operator.flags=$flags" -cp "$cp" \
  io.thinvol.addons.bench.AddonsScaleBenchmark "$claims" "$nodes" "$minutes" 2>target/addons-scale.log
