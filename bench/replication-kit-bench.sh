#!/usr/bin/env bash
# Replication on the kit's two real nodes, side by side in one run (docs/benchmarks.md,
# "Replication on two nodes"). A StorageBackend `replbench` whose data dir is an xfs with reflinks
# on each node (as /var is on OpenShift nodes: a loop-mounted image here, mounted in each node's own
# mount namespace); a pod on the joined node holds a claim, and fio writes 4 KiB blocks at random
# into it at a fixed rate, run from the host inside that node's mount namespace (the pod's own
# mount), O_DIRECT.
#   1. Write latency and RPO. Phases without and with a VolumeReplication (schedulingInterval 1m,
#      the host's node the standby) alternate, their order swapped every round. Each phase runs fio
#      for PHASE_SECONDS; with replication, every second the age of the standby's data is sampled:
#      now − status.lastSyncTime (the time of the sync point the standby holds). Prints fio's
#      completion latency p50/p99 per phase, the medians per side and their ratio (aim ≤ 1.2), and
#      the age's p50/p99 over every sample (aim: p99 ≤ 2 intervals).
#   2. Memory per replicated volume: MEMORY_VOLUMES claims of 256 MiB held by one pod on the joined node; the
#      resident memory of the drivers on both nodes and of the operator's leader, before the
#      claims are replicated, once the first has synced twice (its fixed costs), and once all
#      have; the growth per volume after the first.
# Needs root, KUBECONFIG (the kit's cluster with a joined node and the operator installed, e.g. as
# left by `e2e/run-on-kit.sh -Dtest=InstallTest -Dthinvol.e2e.keep=true`), fio, jq, mkfs.xfs.
# Usage: bench/replication-kit-bench.sh [rounds]      (~10 minutes a round, ~5 for part 2)
# Options: BENCH_PARTS ("latency memory"), PHASE_SECONDS (240), IOPS (256), FILE_MIB (512),
# MEMORY_VOLUMES (10), DISK_GIB (16),
# KUBE_E2E_DIR (the kit's, /tmp/thinvol-kube).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
phase="${PHASE_SECONDS:-240}"
iops="${IOPS:-256}"
file_mib="${FILE_MIB:-512}"
memory_volumes="${MEMORY_VOLUMES:-10}"
disk_gib="${DISK_GIB:-16}"
parts="${BENCH_PARTS:-latency memory}"
kube_dir="${KUBE_E2E_DIR:-/tmp/thinvol-kube}"
backend=replbench
class=thinvol-replbench
interval_class=replbench-1m
ns=thinvol-replbench
data_dir=/var/lib/thinvol/$backend
operator_ns=thinvol-system
work="$(mktemp -d /var/tmp/thinvol-replbench-XXXXXX)"
for tool in fio jq mkfs.xfs kubectl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install fio jq xfsprogs)" >&2; exit 1; }
done
[ -n "${KUBECONFIG:-}" ] || { echo "needs KUBECONFIG: the kit's cluster" >&2; exit 1; }
k() { kubectl "$@"; }

# --- the nodes: the joined one (primary) runs in namespaces held by a process of the kit ---------
joined="" number=""
for n in $(k get nodes -o jsonpath='{.items[*].metadata.name}'); do
  num="$(echo "$n" | sed -n 's/.*[^0-9]\([0-9][0-9]*\)$/\1/p')"
  if [ -n "$num" ] && [ -d "$kube_dir/nodes/$num" ]; then joined="$n" number="$num"; else host="$n"; fi
done
[ -n "$joined" ] || { echo "needs a node joined by the kit's add-node.sh" >&2; exit 1; }
holder="$(sed -n 's/^sleep //p' "$kube_dir/nodes/$number/pids")"
in_joined() { nsenter --target "$holder" --mount -- "$@"; }

loops=()
cleanup() {
  set +e
  jobs -p | xargs -r kill 2>/dev/null
  k delete namespace "$ns" --wait=true --timeout=300s >/dev/null 2>&1
  k delete volumereplicationclass "$interval_class" --ignore-not-found >/dev/null 2>&1
  k delete storagebackend "$backend" --wait=true --timeout=300s >/dev/null 2>&1
  in_joined umount "$data_dir" 2>/dev/null
  umount "$data_dir" 2>/dev/null
  for loop in "${loops[@]}"; do losetup -d "$loop" 2>/dev/null; done
  rm -f /var/tmp/thinvol-replbench-*.img
  rm -rf "$work"
}
trap cleanup EXIT

# --- an xfs with reflinks at the data dir of each node ------------------------------------------
disk() { # node-name, then the command prefix that runs in its mount namespace
  local name="$1" image loop
  shift
  image="/var/tmp/thinvol-replbench-$name.img"
  truncate --size="${disk_gib}G" "$image"
  mkfs.xfs -q -f -m reflink=1 "$image"
  loop="$(losetup --find --show "$image")"
  loops+=("$loop")
  "$@" mkdir -p "$data_dir"
  "$@" mount "$loop" "$data_dir"
}
disk "$host" env
disk "$joined" in_joined

cat <<EOF | k apply -f - >/dev/null
apiVersion: thinvol.io/v1alpha1
kind: StorageBackend
metadata: {name: $backend}
spec:
  sparseFile: {dataDir: $data_dir, filesystem: ext4, dedicatedMount: true}
  storageClasses: [{name: $class}]
---
apiVersion: thinvol.io/v1alpha1
kind: VolumeReplicationClass
metadata: {name: $interval_class}
spec:
  provisioner: $backend.thinvol.io
  parameters: {schedulingInterval: 1m}
---
apiVersion: v1
kind: Namespace
metadata: {name: $ns}
EOF
k wait storagebackend "$backend" --for=condition=Ready --timeout=300s >/dev/null

# A pod on the joined node holding claims; prints its uid once Running.
holding_pod() { # name, size, claim names...
  local pod="$1" size="$2" volumes="" mounts="" i=0
  shift 2
  for claim in "$@"; do
    cat <<EOF | k -n "$ns" apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $claim}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: $class
  resources: {requests: {storage: $size}}
EOF
    volumes+="  - {name: v$i, persistentVolumeClaim: {claimName: $claim}}"$'\n'
    mounts+="    - {name: v$i, mountPath: /data/$claim}"$'\n'
    i=$((i + 1))
  done
  cat <<EOF | k -n "$ns" apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: $pod}
spec:
  nodeSelector: {kubernetes.io/hostname: $joined}
  terminationGracePeriodSeconds: 1
  containers:
  - name: hold
    image: localhost/e2e-busybox:1
    command: [sleep, infinity]
    volumeMounts:
$mounts  volumes:
$volumes
EOF
  k -n "$ns" wait pod "$pod" --for=condition=Ready --timeout=300s >/dev/null
  k -n "$ns" get pod "$pod" -o jsonpath='{.metadata.uid}'
}

# The claim's mount in the joined node's mount namespace.
mount_of() { # pod-uid claim
  local pv
  pv="$(k -n "$ns" get pvc "$2" -o jsonpath='{.spec.volumeName}')"
  echo "/var/lib/kubelet/pods/$1/volumes/kubernetes.io~csi/$pv/mount"
}

replicate() { # claim
  cat <<EOF | k -n "$ns" apply -f - >/dev/null
apiVersion: thinvol.io/v1alpha1
kind: VolumeReplication
metadata: {name: $1}
spec:
  volumeReplicationClass: $interval_class
  dataSource: {kind: PersistentVolumeClaim, name: $1}
  replicationState: primary
  autoResync: true
EOF
}

last_sync() { # name: its status.lastSyncTime, empty before the first
  k -n "$ns" get volumereplication "$1" -o jsonpath='{.status.lastSyncTime}' 2>/dev/null
}

await_sync_after() { # name epoch-seconds
  local deadline=$((SECONDS + 300)) last
  while [ "$SECONDS" -lt "$deadline" ]; do
    last="$(last_sync "$1")"
    if [ -n "$last" ] && [ "$(date -d "$last" +%s)" -gt "$2" ]; then return 0; fi
    sleep 1
  done
  echo "VolumeReplication $1: no sync after $(date -d "@$2" -u +%FT%TZ) within 300 s" >&2
  exit 1
}

percentile() { # p, numbers on stdin
  sort -g | awk -v p="$1" '{v[NR] = $1} END {if (NR == 0) {print "n/a"; exit};
    i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1; print v[i]}'
}
median() {
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
    else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

echo "replication on two nodes: primary $joined, standby $host; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "fio: 4 KiB random writes, O_DIRECT, queue depth 1, $iops IOPS, a ${file_mib} MiB file; phases of $phase s; interval 1m"

# --- 1. write latency without and with replication, and the standby's age -----------------------
if [[ " $parts " == *" latency "* ]]; then
uid="$(holding_pod writer 2Gi fio)"
mnt="$(mount_of "$uid" fio)"
in_joined fio --name=layout --filename="$mnt/fio.dat" --size="${file_mib}M" --rw=write --bs=1M \
  --direct=1 --end_fsync=1 --output-format=terse >/dev/null

run_fio() { # output file
  in_joined fio --name=rpo --filename="$mnt/fio.dat" --size="${file_mib}M" --rw=randwrite --bs=4k \
    --direct=1 --ioengine=libaio --iodepth=1 --rate_iops="$iops" --time_based --runtime="$phase" \
    --output-format=json >"$1"
}
p_ms() { jq -r ".jobs[0].write.clat_ns.percentile.\"$2\" / 1e6" "$1"; }

phase_without() {
  run_fio "$work/without-$1.json"
  printf 'round %s  without replication  write latency p50 %.3f ms  p99 %.3f ms\n' "$1" \
    "$(p_ms "$work/without-$1.json" 50.000000)" "$(p_ms "$work/without-$1.json" 99.000000)"
  p_ms "$work/without-$1.json" 99.000000 >>"$work/p99-without"
}

phase_with() {
  local asked last
  asked="$(date +%s)"
  replicate fio
  await_sync_after fio "$((asked - 1))"
  run_fio "$work/with-$1.json" &
  local fio_pid=$!
  while kill -0 "$fio_pid" 2>/dev/null; do
    last="$(last_sync fio)"
    echo $(($(date +%s) - $(date -d "$last" +%s))) >>"$work/ages"
    sleep 1
  done
  wait "$fio_pid"
  k -n "$ns" get volumereplication fio \
    -o jsonpath='{.status.lastSyncBytes} {.status.lastSyncDuration}{"\n"}' >>"$work/syncs"
  k -n "$ns" delete volumereplication fio --wait=true --timeout=300s >/dev/null
  printf 'round %s  with replication     write latency p50 %.3f ms  p99 %.3f ms  (last sync: %s)\n' \
    "$1" "$(p_ms "$work/with-$1.json" 50.000000)" "$(p_ms "$work/with-$1.json" 99.000000)" \
    "$(tail -n 1 "$work/syncs")"
  p_ms "$work/with-$1.json" 99.000000 >>"$work/p99-with"
}

for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then
    phase_without "$round"
    phase_with "$round"
  else
    phase_with "$round"
    phase_without "$round"
  fi
done
without="$(median <"$work/p99-without")"
with="$(median <"$work/p99-with")"
echo
paste "$work/p99-with" "$work/p99-without" | awk '{printf "%.2f\n", $1 / $2}' >"$work/ratios"
printf 'write latency p99, median of rounds: without %.3f ms, with %.3f ms: ratio %.2f (aim <= 1.2); per round: %s\n' \
  "$without" "$with" "$(echo "$with / $without" | bc -l)" "$(paste -s -d' ' "$work/ratios")"
printf 'age of the standby data, %s samples: p50 %s s, p99 %s s (aim: p99 <= 120 s, two intervals)\n' \
  "$(wc -l <"$work/ages")" "$(percentile 50 <"$work/ages")" "$(percentile 99 <"$work/ages")"
k -n "$ns" delete pod writer --wait=true >/dev/null
k -n "$ns" delete pvc fio --wait=true >/dev/null
fi

# --- 2. memory per replicated volume -------------------------------------------------------------
# The resident memory (KiB) of the java process of a pod, found by the pod's uid in its cgroup.
rss_of_pod() { # namespace pod
  local uid total=0 pid
  uid="$(k -n "$1" get pod "$2" -o jsonpath='{.metadata.uid}')"
  for pid in $(grep -l -e "pod$uid" -e "pod${uid//-/_}" /proc/[0-9]*/cgroup 2>/dev/null |
    cut -d/ -f3); do
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = java ]; then
      total=$((total + $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")))
    fi
  done
  echo "$total"
}
node_pod() { # node
  k -n "$operator_ns" get pods -l "app.kubernetes.io/name=thinvol-node,thinvol.io/backend=$backend" \
    --field-selector "spec.nodeName=$1" -o jsonpath='{.items[0].metadata.name}'
}
leader() {
  k -n "$operator_ns" get lease thinvol-operator -o jsonpath='{.spec.holderIdentity}'
}
memory() { # label
  echo "$1 $(rss_of_pod "$operator_ns" "$(node_pod "$joined")") $(rss_of_pod "$operator_ns" "$(node_pod "$host")") $(rss_of_pod "$operator_ns" "$(leader)")"
}
if [[ " $parts " == *" memory "* ]]; then
claims=()
for i in $(seq 1 "$memory_volumes"); do claims+=("m$i"); done
holding_pod many 256Mi "${claims[@]}" >/dev/null
sleep 30 # the drivers' and the operator's own work for the new claims settles
before="$(memory before)"
# The first replicated volume pays the fixed costs (the copy's classes, code and buffers); the
# others what each adds.
asked="$(date +%s)"
replicate "${claims[0]}"
await_sync_after "${claims[0]}" "$((asked + 60))"
one="$(memory one)"
asked="$(date +%s)"
for claim in "${claims[@]:1}"; do replicate "$claim"; done
for claim in "${claims[@]:1}"; do await_sync_after "$claim" "$((asked + 60))"; done
after="$(memory all)"
echo
echo "resident memory, KiB: driver on $joined, driver on $host, operator (leader)"
printf '  %s\n' "$before" "$one" "$after"
read -r _ b1 b2 b3 <<<"$before"
read -r _ o1 o2 o3 <<<"$one"
read -r _ a1 a2 a3 <<<"$after"
others=$((memory_volumes - 1))
printf 'the first replicated volume: primary driver %+d KiB, standby driver %+d KiB, operator %+d KiB\n' \
  $((o1 - b1)) $((o2 - b2)) $((o3 - b3))
printf 'each of the other %s: primary driver %+d KiB, standby driver %+d KiB, operator %+d KiB\n' \
  "$others" $(((a1 - o1) / others)) $(((a2 - o2) / others)) $(((a3 - o3) / others))
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
