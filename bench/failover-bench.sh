#!/usr/bin/env bash
# Failover time on the kit's two nodes (docs/benchmarks.md, "Replication on two nodes"): runs the
# e2e ReplicationTest's steps ROUNDS times (e2e/run-on-kit.sh -Dtest=InstallTest,ReplicationTest;
# the operator installed from the bundle each time). Each round a StatefulSet writes on the joined
# node, a VolumeReplication (1 m interval) keeps a replica on the host's node, the joined node is
# powered off and tainted node.kubernetes.io/out-of-service, and the pod must be Ready on the
# host's node with the data of the last sync; the node comes back, is resynced, and the claim is
# switched back. Prints per round the times from the taint to FailedOver and to the pod Ready,
# then their medians (aim: the pod Ready < 30 s after the taint).
# Needs root and the kit (../shared/kube); the images as e2e/run-on-kit.sh builds them, or
# E2E_SKIP_BUILD=1 with images built before. Usage: bench/failover-bench.sh [rounds] (~5 min each)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
work="$(mktemp -d /var/tmp/thinvol-failover-XXXXXX)"
trap 'rm -rf "$work"' EXIT

median() {
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2];
    else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

echo "failover on two nodes: $rounds rounds; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  # the first round builds the images unless told not to; the others reuse them
  skip="${E2E_SKIP_BUILD:-}"
  [ "$round" -gt 1 ] && skip=1
  if ! E2E_SKIP_BUILD="$skip" E2E_KEEP_CLUSTER=1 e2e/run-on-kit.sh \
    -Dtest='InstallTest,ReplicationTest' >"$work/run-$round.log" 2>&1; then
    tail -n 40 "$work/run-$round.log" >&2
    echo "round $round: the e2e steps failed (above)" >&2
    exit 1
  fi
  line="$(grep 'tainted out-of-service' e2e/target/e2e/steps.md)"
  failed_over="$(echo "$line" | sed -n 's/.*FailedOver \([0-9.]*\) s.*/\1/p')"
  ready="$(echo "$line" | sed -n 's/.*pod Ready on [^ ]* \([0-9.]*\) s after the taint.*/\1/p')"
  echo "$failed_over" >>"$work/failed-over"
  echo "$ready" >>"$work/ready"
  echo "round $round: FailedOver $failed_over s, pod Ready $ready s after the taint" \
    "(load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "medians: FailedOver $(median <"$work/failed-over") s, pod Ready $(median <"$work/ready") s" \
  "after the taint (aim: < 30 s)"
