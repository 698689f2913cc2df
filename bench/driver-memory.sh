#!/usr/bin/env bash
# Driver memory: the driver started by the container image's entry point (its JVM flags and
# environment) with the node DaemonSet's arguments - CSI and CSI-Addons sockets, the TLS port, the
# health port, its Pod reported to an API server - measured idle, after the operator's first call
# on the TLS port (handshake, token screen, signature check against the key set, TokenReview), and
# with 1,000 volumes. Needs root.
#
# Usage: bench/driver-memory.sh [ROUNDS] [OTHER_HOME]
#   OTHER_HOME: a directory holding another entry point (thinvol) and jar (thinvol-driver.jar),
#   e.g. an older build; its rounds alternate with this tree's so both see the same machine. A home
#   with a Java runtime in java/ runs on it (the image's), else on the java of the PATH.
#   This tree's home gets the class data archive of a start, as the image does (class-data.sh).
#   THINVOL_RUNTIME: the runtime this tree's rounds run on, e.g. the one build-local.sh links
#   (packaging/image/java-runtime.sh JAR DIR); the java of the PATH by default.
# Extra JVM flags for a diagnosis go in JAVA_OPTS, as in the image (e.g.
# JAVA_OPTS=-XX:NativeMemoryTracking=summary adds the JVM's own account of each measure).
# BENCH_PREBUILT=1 skips the build; BENCH_TMP: where the temp dir goes, /var/tmp by default.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
other="${2:-}"

# package, never install: other checkouts on this machine share ~/.m2
if [ -z "${BENCH_PREBUILT:-}" ]; then
  ./mvnw -B -q -DskipTests -pl driver -am package dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
fi
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/bench.cp)"
work="$(mktemp -d "${BENCH_TMP:-/var/tmp}/thinvol-memory-XXXXXX")"
this="$work/this"
mkdir -p "$this" "$work/tls"
cp packaging/image/thinvol-driver "$this/thinvol"
cp "$(ls driver/target/thinvol-driver-*-all.jar | head -n 1)" "$this/thinvol-driver.jar"
if [ -n "${THINVOL_RUNTIME:-}" ]; then ln -s "$(cd "$THINVOL_RUNTIME" && pwd)" "$this/java"; fi
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout "$work/tls/tls.key" -out "$work/tls/tls.crt" 2>/dev/null

probe_pid=""
driver_pid=""
cleanup() {
  [ -n "$driver_pid" ] && kill "$driver_pid" 2>/dev/null && wait "$driver_pid" 2>/dev/null || true
  [ -n "$probe_pid" ] && kill "$probe_pid" 2>/dev/null && wait "$probe_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# The class data archive of a start, made as the image's build makes it (docs/image.md).
this_path="$PATH"
if [ -x "$this/java/bin/java" ]; then this_path="$this/java/bin:$PATH"; fi
PATH="$this_path" CLASS_DATA_HTTP_PORT="$(free_port)" packaging/image/class-data.sh "$this/thinvol" "$this"
api_port=$(free_port)
java -cp "$cp" io.thinvol.driver.bench.MemoryProbe api "$api_port" "$work/signing.key" &
probe_pid=$!

# MiB figures of the running driver: RSS, its anonymous part (heap, metaspace, stacks, malloc)
# and its file-backed part (libjvm, the CDS archive, jars), and the number of threads.
measure() {
  awk '/^Rss:/ {rss = $2} /^Anonymous:/ {anon = $2}
       END {printf "%.1f %.1f %.1f", rss / 1024, anon / 1024, (rss - anon) / 1024}' \
    "/proc/$driver_pid/smaps_rollup"
  printf ' %s' "$(awk '/^Threads:/ {print $2}' "/proc/$driver_pid/status")"
}
nmt() {
  case "${JAVA_OPTS:-}" in
    *NativeMemoryTracking*)
      echo "--- NMT $1"
      jcmd "$driver_pid" VM.native_memory summary | grep -E '^-|committed=' | grep -E 'Total|^-' ;;
  esac
}

round() {
  local home="$1" name="$2" dir="$work/run"
  rm -rf "$dir"
  mkdir -p "$dir/data"
  local tls_port
  tls_port=$(free_port)
  local http_port
  http_port=$(free_port)
  # The DaemonSet's arguments and environment (operator model NodeDaemonSetModel).
  local path="$PATH"
  if [ -x "$home/java/bin/java" ]; then path="$home/java/bin:$PATH"; fi
  PATH="$path" THINVOL_HOME="$home" POD_NAME=bench-driver POD_NAMESPACE=thinvol-system \
    THINVOL_KUBE_API_URL="http://127.0.0.1:$api_port" \
    sh "$home/thinvol" driver --csi-endpoint="unix://$dir/csi.sock" \
    --addons-endpoint="unix://$dir/csi-addons.sock" --addons-port="$tls_port" \
    --addons-tls-cert="$work/tls/tls.crt" --addons-tls-key="$work/tls/tls.key" \
    --driver-name=thinvol.io --node-id=bench --data-dir="$dir/data" --overprovision-ratio=1.0 \
    --expansion=node --http-port="$http_port" --log-level=INFO > "$dir/driver.log" 2>&1 &
  driver_pid=$!
  # Serving once the health port, opened after every gRPC endpoint, answers; then settled.
  for _ in $(seq 1 600); do
    (exec 3<> "/dev/tcp/127.0.0.1/$http_port") 2>/dev/null && break
    sleep 0.05
  done
  sleep 8
  local idle tls filled
  idle=$(measure)
  nmt "$name idle"
  if ! java -cp "$cp" io.thinvol.driver.bench.MemoryProbe tls-call "$tls_port" \
    "$work/tls/tls.crt" addons.thinvol.io "$work/signing.key" > /dev/null; then
    tail -n 20 "$dir/driver.log" >&2
    return 1
  fi
  sleep 3
  tls=$(measure)
  nmt "$name after a TLS call"
  java -cp "$cp" io.thinvol.driver.bench.DriverBenchmark "$dir/csi.sock" "$dir" fill > /dev/null
  sleep 3
  filled=$(measure)
  nmt "$name with 1,000 volumes"
  local noop
  noop=$(java -cp "$cp" io.thinvol.driver.bench.DriverBenchmark "$dir/csi.sock" "$dir" noop |
    awk '$1 == "noop_p50_ms" {print $2}')
  printf '%-8s %s | %s | %s | %s ms | %s\n' "$name" "$idle" "$tls" "$filled" "$noop" \
    "$(PATH="$path" java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')"
  kill "$driver_pid"
  wait "$driver_pid" 2>/dev/null || true
  driver_pid=""
}

echo "driver memory, MiB: RSS anon file threads (idle | after a TLS call | 1,000 volumes)" \
  "| no-op call p50; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for _ in $(seq 1 "$rounds"); do
  round "$this" this
  # an if, not an && list: a false test as the loop's last command made the script exit 1
  if [ -n "$other" ]; then round "$other" other; fi
done
