#!/usr/bin/env bash
# A ReclaimSpaceJob end to end (operator + addons + TLS + token + a real driver process on a loop
# device, the fabric8 mock API server) against a bare fstrim of the same volume, alternating rounds
# after the same amount of data was written and deleted. Needs root (loop devices, mounts).
# Usage: bench/reclaim-job-bench.sh [rounds] [MiB]
#   BENCH_PREBUILT=1 skips the build; BENCH_TMP: where the temp dir goes, /tmp by default;
#   BENCH_JVM_DEFAULTS=1: the JVMs' default flags instead of the images' (see below); BENCH_LOG=1:
#   the operator's log on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
mib="${2:-256}"

source bench/operator-classpath.sh
# The driver's data dir and staging mount go under a temp dir of this run (the JVM's tmpdir),
# released even when the benchmark is interrupted before it could unstage.
work="$(mktemp -d "${BENCH_TMP:-/tmp}/thinvol-reclaimjob-XXXXXX")"
trap 'bench/release-under.sh "$work"' EXIT
# The operator (with the mock API server in its JVM) and the driver run with the JVM flags of their
# images (C1 only, SerialGC, ...), as they ship: with the JVM's defaults C2 took a third to half of
# the operator JVM's CPU during a job. BENCH_JVM_DEFAULTS=1: the JVMs' defaults, as before.
image_flags() { sed -n 's/^flags="\(.*\)"$/\1/p' "packaging/image/$1"; }
operator_flags=()
driver_flags=""
if [ -z "${BENCH_JVM_DEFAULTS:-}" ]; then
  read -r -a operator_flags <<<"$(image_flags thinvol)"
  driver_flags="$(image_flags thinvol-driver)"
fi
# The operator's and the mock's log: on stderr with BENCH_LOG=1 (the operator's own configuration),
# else kept in the run's temp dir and printed if the run fails.
logging=(-Dlogback.configurationFile=/dev/null)
log="$work/benchmark.log"
if [ -n "${BENCH_LOG:-}" ]; then
  logging=(-Dlogback.configurationFile=operator/src/main/resources/logback.xml)
  log=/dev/stderr
fi
if ! java "${operator_flags[@]}" "-Dthinvol.driver.jvm-flags=$driver_flags" -Djava.io.tmpdir="$work" \
  "${logging[@]}" -cp "$cp" \
  io.thinvol.operator.ReclaimJobBenchmark "$rounds" "$mib" 2>>"$log"; then
  if [ -z "${BENCH_LOG:-}" ]; then tail -n 40 "$log" >&2; fi
  exit 1
fi
