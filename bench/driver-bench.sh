#!/usr/bin/env bash
# Driver benchmark: the driver (started by the container image's entry point) against the raw
# tools on this machine. Prints the figures and their ratios. Needs root; takes a few minutes.
# Usage: bench/driver-bench.sh   (RECLAIM_CASES=n1 runs only the 96 MiB single-volume reclaim;
#   DRIVER_OPS=stage runs only the stage/publish rounds of the "ops" part; DRIVER_FIGURES=FILE
#   keeps the raw "key value" figures; BENCH_PREBUILT=1 skips the build; BENCH_TMP: where the
#   temp dir goes, /var/tmp by default)
set -euo pipefail
cd "$(dirname "$0")/.."

# package, never install: other checkouts on this machine share ~/.m2
if [ -z "${BENCH_PREBUILT:-}" ]; then
  ./mvnw -B -q -DskipTests -pl driver -am package dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
fi
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/bench.cp)"
# DRIVER_JAR measures another build of the driver with the same client and raw rounds
jar="${DRIVER_JAR:-$(ls driver/target/thinvol-driver-*-all.jar | head -n 1)}"
work="$(mktemp -d "${BENCH_TMP:-/var/tmp}/thinvol-bench-XXXXXX")"
driver_pid=""
cleanup() {
  [ -n "$driver_pid" ] && kill "$driver_pid" 2>/dev/null && wait "$driver_pid" 2>/dev/null || true
  bench/release-under.sh "$work"
}
trap cleanup EXIT

# The driver, as the DaemonSet runs it: through the image's entry point (its JVM flags and
# environment). The Java client alternates its rounds with bench/raw-stage.sh (the same steps with
# the raw tools) and reports both.
mkdir -p "$work/home"
cp packaging/image/thinvol-driver "$work/home/thinvol"
cp "$jar" "$work/home/thinvol-driver.jar"
THINVOL_HOME="$work/home" sh "$work/home/thinvol" driver --csi-endpoint "unix://$work/csi.sock" \
  --node-id bench --data-dir "$work/data" --log-level WARN \
  --addons-endpoint "unix://$work/addons.sock" --addons-port 0 --http-port 0 > "$work/driver.log" 2>&1 &
driver_pid=$!
for _ in $(seq 1 200); do [ -S "$work/csi.sock" ] && break; sleep 0.05; done
sleep 2
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$driver_pid/status"; }
rss_idle=$(rss)
bench() { java -cp "$cp" io.thinvol.driver.bench.DriverBenchmark "$work/csi.sock" "$work" "$1"; }
bench "${DRIVER_OPS:-ops}" > "$work/driver-figures"
java -cp "$cp" io.thinvol.driver.bench.DriverBenchmark "$work/csi.sock" "$work" reclaim \
  "$work/addons.sock" "$work/data" "${RECLAIM_CASES:-n1,n8,n1_1g}" >> "$work/driver-figures"
bench fill >> "$work/driver-figures"
sleep 1
rss_1000=$(rss)
bench drain
rss_after=$(rss)

if [ -n "${DRIVER_FIGURES:-}" ]; then cp "$work/driver-figures" "$DRIVER_FIGURES"; fi
fig() { awk -v k="$1" '$1 == k {print $2}' "$work/driver-figures"; }
raw_stage_p50=$(fig raw_stage_p50_ms); raw_stage_p99=$(fig raw_stage_p99_ms)
raw_pub_p50=$(fig raw_publish_p50_ms); raw_pub_p99=$(fig raw_publish_p99_ms)
raw_buf_p50=$(fig raw_buffered_stage_p50_ms); raw_buf_p99=$(fig raw_buffered_stage_p99_ms)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

cat <<REPORT
thinvol driver benchmark ($(nproc) cores, $(uname -r), 40 interleaved rounds, 64 MiB ext4 volumes)

A no-op call (NodeGetCapabilities), warm: p50 $(fig noop_p50_ms) ms, p99 $(fig noop_p99_ms) ms (first 5,000 calls: p50 $(fig noop_first_p50_ms) ms)
CreateVolume+DeleteVolume, 1 client:  $(fig create_delete_ops_per_s_c1) ops/s  (CreateVolume p50 $(fig create_p50_ms_c1) ms, p99 $(fig create_p99_ms_c1) ms)
CreateVolume+DeleteVolume, 8 clients: $(fig create_delete_ops_per_s_c8) ops/s  (CreateVolume p50 $(fig create_p50_ms_c8) ms, p99 $(fig create_p99_ms_c8) ms)

Volumes use the default ioMode (direct); the raw tools run with the same loop I/O mode
(losetup --direct-io=on), and once more buffered for reference, in the same rounds.
                      driver p50   raw p50   ratio | driver p99   raw p99   ratio
NodeStage (losetup+mkfs+mount) $(fig stage_p50_ms)   $raw_stage_p50   $(ratio "$(fig stage_p50_ms)" "$raw_stage_p50") | $(fig stage_p99_ms)   $raw_stage_p99   $(ratio "$(fig stage_p99_ms)" "$raw_stage_p99")
  raw with a buffered loop     $(fig stage_p50_ms)   $raw_buf_p50   $(ratio "$(fig stage_p50_ms)" "$raw_buf_p50") | $(fig stage_p99_ms)   $raw_buf_p99   $(ratio "$(fig stage_p99_ms)" "$raw_buf_p99")
NodePublish (bind mount)       $(fig publish_p50_ms)   $raw_pub_p50   $(ratio "$(fig publish_p50_ms)" "$raw_pub_p50") | $(fig publish_p99_ms)   $raw_pub_p99   $(ratio "$(fig publish_p99_ms)" "$raw_pub_p99")

NodeReclaimSpace vs a bare fstrim on identical volumes (medians; one after another):
  1 volume,  96 MiB deleted: $(fig reclaim_n1_driver_ms) ms vs $(fig reclaim_n1_raw_ms) ms, time ratio $(fig reclaim_n1_time_ratio), bytes ratio $(fig reclaim_n1_bytes_ratio)
    vs sync MOUNT + fstrim (its journal commit too): $(fig reclaim_n1_commit_raw_ms) ms, time ratio $(fig reclaim_n1_commit_time_ratio)
  8 volumes, 96 MiB each:    $(fig reclaim_n8_driver_ms) ms vs $(fig reclaim_n8_raw_ms) ms, time ratio $(fig reclaim_n8_time_ratio), bytes ratio $(fig reclaim_n8_bytes_ratio)
  1 volume,  1 GiB deleted:  $(fig reclaim_n1_1g_driver_ms) ms vs $(fig reclaim_n1_1g_raw_ms) ms, time ratio $(fig reclaim_n1_1g_time_ratio), bytes ratio $(fig reclaim_n1_1g_bytes_ratio)

Driver RSS: idle ${rss_idle} MiB; with 1,000 volumes ${rss_1000} MiB; after deleting them ${rss_after} MiB
REPORT
