#!/usr/bin/env bash
# The aims of issue 13 in one table: runs the repository's benchmarks in a short form N times
# (each run: bench/driver-bench.sh's stage/publish rounds and 96 MiB reclaim, bench/reclaim-job-bench.sh,
# bench/datapath-bench.sh with the host and the default `direct` volume, bench/driver-memory.sh),
# then prints a row per aim with each run's figure, their median, the aim and whether the median
# meets it, and the load average at the start and end of each run (a loaded run shows there).
# Every part's own report goes to a log file. Needs root, fio and jq; ~20 minutes for 3 runs on an
# idle 2-core machine. See docs/benchmarks.md.
# Usage: bench/aims.sh [runs]   (default 3)
#   AIMS_QUICK=1 shrinks every part further, only to check the plumbing: its figures mean nothing.
#   AIMS_LOG=FILE: the parts' reports (default /var/tmp/thinvol-aims-<UTC time>.log).
#   AIMS_PREBUILT=1 skips the build (several minutes on a loaded machine): reuses target/ as an
#   earlier run of this script left it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
quick="${AIMS_QUICK:-}"
log="${AIMS_LOG:-/var/tmp/thinvol-aims-$(date -u +%Y%m%dT%H%M%SZ).log}"

if [ -n "$quick" ]; then
  job_rounds=1 job_mib=32 seq_mib=64 rand_seconds=2 rand_mib=64
else
  job_rounds=5 job_mib=256 seq_mib=1024 rand_seconds=10 rand_mib=1024
fi

# Every part runs in a process group of its own under $root: an interrupt stops the whole group
# (the part's own clean-up runs on SIGTERM), then whatever it still held under $root is released.
root="$(mktemp -d /var/tmp/thinvol-aims-XXXXXX)"
part_pid=""
stop_part() {
  [ -n "$part_pid" ] || return 0
  kill -TERM -- "-$part_pid" 2>/dev/null || true
  for _ in $(seq 1 150); do
    kill -0 -- "-$part_pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL -- "-$part_pid" 2>/dev/null || true
  part_pid=""
}
cleanup() {
  stop_part
  bench/release-under.sh "$root"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# part NAME OUT COMMAND...: runs a benchmark, its stdout to OUT, both to the log; a failed part
# leaves its figures empty and the other parts still run.
part() {
  local name="$1" out="$2" rc=0
  shift 2
  echo "$(date -u +%H:%M:%S) run $run/$runs: $name" >&2
  echo "=== run $run: $name: $*" >> "$log"
  setsid "$@" > "$out" 2>> "$log" &
  part_pid=$!
  wait "$part_pid" || rc=$?
  stop_part # anything of the group still alive (a driver the part started)
  cat "$out" >> "$log"
  if [ "$rc" -ne 0 ]; then
    echo "  $name failed (exit $rc), its figures are left out; see $log" >&2
    : > "$out"
  fi
}

load() { cut -d' ' -f1 /proc/loadavg; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
key() { awk -v k="$1" '$1 == k {print $2}' "$2"; }
fio_value() { awk -v c="$1" -v j="$2" '$1 == c && $2 == j {print $3}' "$3"; }

declare -A figure
record() { figure["$1,$run"]="$2"; }

echo "bench/aims.sh: $runs runs$([ -n "$quick" ] && echo ', QUICK (plumbing check only)'); log $log" >&2
echo "bench/aims.sh $(date -u +%FT%TZ), $(nproc) cores, kernel $(uname -r), commit" \
  "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" > "$log"

# Built once for every run: package, never install (other checkouts share ~/.m2).
if [ -z "${AIMS_PREBUILT:-}" ]; then
  echo "$(date -u +%H:%M:%S) building the driver and the operator's test classes" >&2
  ./mvnw -B -q -DskipTests -pl driver -am package dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >> "$log" 2>&1
  source bench/operator-classpath.sh >> "$log" 2>&1
fi
export BENCH_PREBUILT=1 BENCH_TMP="$root"

for run in $(seq 1 "$runs"); do
  dir="$root/run-$run"
  mkdir -p "$dir"
  record load_start "$(load)"
  echo "$(date -u +%H:%M:%S) run $run/$runs: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

  part "driver: stage/publish, 96 MiB reclaim" "$dir/driver.out" env DRIVER_OPS=stage \
    RECLAIM_CASES=n1 DRIVER_FIGURES="$dir/driver.fig" bench/driver-bench.sh
  if [ -s "$dir/driver.out" ]; then
    fig="$dir/driver.fig"
    record stage "$(ratio "$(key stage_p50_ms "$fig")" "$(key raw_stage_p50_ms "$fig")")"
    record publish "$(ratio "$(key publish_p50_ms "$fig")" "$(key raw_publish_p50_ms "$fig")")"
    record reclaim "$(key reclaim_n1_time_ratio "$fig")"
  fi

  part "ReclaimSpaceJob end to end" "$dir/job.out" \
    bench/reclaim-job-bench.sh "$job_rounds" "$job_mib"
  record job "$(awk '$1 == "median:" && $2 == "time" {sub(",", "", $4); print $4}' "$dir/job.out")"

  part "data path: host and direct" "$dir/datapath.out" env CONFIGS=direct SIZE_MIB="$seq_mib" \
    RAND_SECONDS="$rand_seconds" RAND_MIB="$rand_mib" RESULTS_OUT="$dir/datapath.results" \
    bench/datapath-bench.sh 1 "$root"
  if [ -s "$dir/datapath.out" ]; then
    results="$dir/datapath.results"
    for job in seqwrite seqread randwrite randoverwrite randread; do
      record "$job" "$(ratio "$(fio_value direct "$job" "$results")" \
        "$(fio_value host "$job" "$results")")"
    done
    record cache "$(fio_value direct cache_image_mib_per_gib "$results")"
  fi

  part "driver memory" "$dir/memory.out" bench/driver-memory.sh 1
  # "this  <idle: rss anon file threads> | <after a TLS call> | <1,000 volumes> | <no-op> ms"
  record rss_idle "$(awk -F'|' '$1 ~ /^this / {split($1, f, " "); print f[2]}' "$dir/memory.out")"
  record rss_1000 "$(awk -F'|' '$1 ~ /^this / {split($3, f, " "); print f[1]}' "$dir/memory.out")"

  record load_end "$(load)"
  echo "$(date -u +%H:%M:%S) run $run/$runs done: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done

# key | measure | aim as "<op> <bound>" (op: le, lt, ge; empty: no aim) | unit shown in the aim
rows=(
  "stage|NodeStage ÷ raw losetup+mkfs+mount (both direct, p50)|le 0.95|"
  "publish|NodePublish ÷ raw mount --bind (p50)|le 1.0|"
  "reclaim|NodeReclaimSpace ÷ bare fstrim, 96 MiB deleted|le 1.0|"
  "job|ReclaimSpaceJob end to end ÷ bare fstrim, $job_mib MiB|le 1.3|"
  "seqwrite|volume (direct) ÷ host fs: 1M seq write+fsync|ge 0.9|"
  "seqread|volume (direct) ÷ host fs: 1M seq read|ge 0.9|"
  "randwrite|volume (direct) ÷ host fs: 4k rand write (first write)|ge 0.9|"
  "randoverwrite|volume (direct) ÷ host fs: 4k rand overwrite|ge 0.9|"
  "randread|volume (direct) ÷ host fs: 4k rand read|ge 0.9|"
  "cache|image's page cache per GiB written, MiB (double caching)|le 10| MiB"
  "rss_idle|driver RSS idle with TLS, MiB|lt 64| MiB"
  "rss_1000|driver RSS with 1,000 volumes, MiB|lt 96| MiB"
  "load_start|load average (1 min) at the run's start||"
  "load_end|load average (1 min) at the run's end||"
)
median() {
  sort -g | awk '{v[NR] = $1} END {
    if (NR % 2) print v[(NR + 1) / 2]; else if (NR) printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
symbol() { case "$1" in le) echo "≤" ;; lt) echo "<" ;; ge) echo "≥" ;; esac; }
met() {
  awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
    ok = (op == "le") ? v <= b : (op == "lt") ? v < b : v >= b
    print ok ? "✓" : "✗" }'
}

header="| measure |"
rule="|---|"
for run in $(seq 1 "$runs"); do header="$header run $run |"; rule="$rule---|"; done
echo
echo "thinvol aims (issue 13): $runs runs, $(nproc) cores, kernel $(uname -r)$([ -n "$quick" ] && echo ', QUICK: plumbing check, figures mean nothing')"
echo
echo "$header median | aim | met |"
echo "$rule---|---|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r key measure aim unit <<<"$row"
  line="| $measure |"
  values=()
  for run in $(seq 1 "$runs"); do
    v="${figure["$key,$run"]:-}"
    line="$line ${v:-—} |"
    [ -n "$v" ] && values+=("$v")
  done
  m=""
  [ "${#values[@]}" -gt 0 ] && m=$(printf '%s\n' "${values[@]}" | median)
  if [ -n "$aim" ]; then
    read -r op bound <<<"$aim"
    line="$line ${m:-—} | $(symbol "$op") $bound$unit | $([ -n "$m" ] && met "$m" "$op" "$bound" || echo —) |"
  else
    line="$line ${m:-—} | | |"
  fi
  echo "$line"
done
echo
echo "Ratios are driver or volume ÷ the raw tools or host fs, measured side by side in each run;"
echo "each part's own report (absolute times, spreads) is in $log."
