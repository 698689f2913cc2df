#!/usr/bin/env bash
# How soon a node serves its volumes, for two releases side by side in one run:
#   1. the driver's image alone (podman, no cluster): from its container's start to its first
#      answer to Probe on the CSI socket, as the registrar and livenessprobe see it;
#   2. on a real cluster (the kit's): the operator switched between the two releases (its image and
#      RELATED_IMAGE_DRIVER), which rolls the node pod, then the node pod deleted and made again by
#      its DaemonSet while a pod that uses a thinvol volume is started on the node; from the node
#      pod's creation to its Ready condition, to the driver's first NodeStage (its log line, with
#      the container runtime's timestamp) and to the workload pod Running.
# Rounds alternate which release goes first. Times of the cluster part are read by a watch on this
# machine's clock, which is the kit node's.
#
# Usage: bench/node-start-bench.sh OLD_OPERATOR_IMAGE OLD_DRIVER_IMAGE NEW_OPERATOR_IMAGE \
#          NEW_DRIVER_IMAGE [ROUNDS]
#   e.g. localhost/thinvol:fp-main localhost/thinvol-driver:fp-main localhost/thinvol:fp \
#        localhost/thinvol-driver:fp 3
# Needs root, podman holding the four images, and for part 2 KUBECONFIG pointing at a cluster where
# the operator is installed (Deployment thinvol-operator in thinvol-system, e.g. left by
# `e2e/run-on-kit.sh -Dtest=InstallTest -Dthinvol.e2e.keep=true`) and whose node's container
# runtime holds the four images (the kit: NODE_START_KIT=../shared/kube imports them). Without
# KUBECONFIG only part 1 runs. The operator's Deployment is put back as it was at the end.
# NODE_START_NODE: the node measured (default the first; its node pod and the workload there).
# NODE_START_BUSYBOX: the workload's image (the kit's localhost/e2e-busybox:1);
# BENCH_PREBUILT=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
old_operator="$1" old_driver="$2" new_operator="$3" new_driver="$4"
rounds="${5:-3}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/packaging/image/containers.conf}"
namespace=thinvol-system
deployment=thinvol-operator
backend=node-start
workloads=thinvol-node-start-bench
selector="app.kubernetes.io/name=thinvol-node,thinvol.io/backend=$backend"
busybox="${NODE_START_BUSYBOX:-localhost/e2e-busybox:1}"

if [ -z "${BENCH_PREBUILT:-}" ]; then
  ./mvnw -B -q -DskipTests -pl driver -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
fi
cp="driver/target/test-classes:driver/target/classes:$(cat driver/target/bench.cp)"
work="$(mktemp -d "${BENCH_TMP:-/var/tmp}/thinvol-node-start-XXXXXX")"
restore=""
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null || true
  podman rm --force --ignore --time 5 thinvol-node-start-probe >/dev/null 2>&1 || true
  if [ -n "$restore" ]; then eval "$restore" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

seconds() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }
median() { sort -n | awk '{v[NR] = $1} END {print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : "-"}'; }
side_order() { if [ $(($1 % 2)) = 1 ]; then echo "old new"; else echo "new old"; fi; }
operator_of() { if [ "$1" = old ]; then echo "$old_operator"; else echo "$new_operator"; fi; }
driver_of() { if [ "$1" = old ]; then echo "$old_driver"; else echo "$new_driver"; fi; }

# --- 1. The driver's image: container start to the first Probe answered -------------------------
probe_round() {
  local side="$1" image dir first started
  image="$(driver_of "$side")"
  dir="$work/probe"
  rm -rf "$dir"
  mkdir -p "$dir/csi" "$dir/data"
  # The DaemonSet's endpoints: both sockets, the TLS port, the health port.
  podman create --name thinvol-node-start-probe --privileged --user 0 --network none \
    --volume "$dir/csi:/csi" --volume "$dir/data:$dir/data" --volume "$work/tls:/etc/thinvol/tls:ro" \
    --tmpfs /tmp "$image" \
    driver --csi-endpoint=unix:///csi/csi.sock --addons-endpoint=unix:///csi/csi-addons.sock \
    --addons-port=9070 --addons-tls-cert=/etc/thinvol/tls/tls.crt \
    --addons-tls-key=/etc/thinvol/tls/tls.key --driver-name=start.thinvol.io --node-id=bench \
    --data-dir="$dir/data" --http-port=9808 >/dev/null
  java -cp "$cp" io.thinvol.driver.bench.FirstProbe "$dir/csi/csi.sock" 60 >"$dir/first" \
    2>"$dir/probe.log" &
  local probe=$!
  # the probe client's own start and first Probe (its classes), before the driver's is timed
  until grep -qs '^warm$' "$dir/first"; do
    kill -0 "$probe" 2>/dev/null || { cat "$dir/probe.log" >&2; return 1; }
    sleep 0.05
  done
  local start
  start="$(seconds)"
  podman start thinvol-node-start-probe >/dev/null
  wait "$probe" || { cat "$dir/probe.log" >&2; return 1; }
  first="$(tail -n 1 "$dir/first")"
  started="$(date -d "$(podman inspect --format '{{.State.StartedAt}}' thinvol-node-start-probe |
    sed 's/ +0000 UTC$/Z/; s/ /T/')" +%s.%N)"
  podman rm --force --time 10 thinvol-node-start-probe >/dev/null
  echo "$side $(minus "$first" "$started") $(minus "$first" "$start")" >>"$work/probes"
  printf 'probe  %-3s container start -> Probe %s s (podman start -> Probe %s s)\n' "$side" \
    "$(minus "$first" "$started")" "$(minus "$first" "$start")"
}

mkdir -p "$work/tls"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -keyout "$work/tls/tls.key" -out "$work/tls/tls.crt" 2>/dev/null
echo "node start: old $old_operator + $old_driver, new $new_operator + $new_driver;" \
  "$(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  for side in $(side_order "$round"); do probe_round "$side"; done
done

if [ -z "${KUBECONFIG:-}" ]; then
  echo "no KUBECONFIG: the cluster part is skipped"
  summary_cluster=""
else
  # --- 2. On the cluster ------------------------------------------------------------------------
  if [ -n "${NODE_START_KIT:-}" ]; then
    mkdir -p "$work/tars"
    for image in "$old_operator" "$old_driver" "$new_operator" "$new_driver"; do
      podman save --quiet --format docker-archive \
        -o "$work/tars/$(echo "$image" | tr '/:' '__').tar" "$image"
    done
    "$NODE_START_KIT/import-images.sh" "$work"/tars/*.tar >/dev/null
    rm -rf "$work/tars"
  fi
  k() { kubectl "$@"; }
  # One node is measured (a cluster may have more, each with its node pod): NODE_START_NODE, else
  # the first node.
  node="${NODE_START_NODE:-$(k get nodes -o jsonpath='{.items[0].metadata.name}')}"
  on_node="spec.nodeName=$node"
  container='{.spec.template.spec.containers[?(@.name=="operator")]'
  was_image="$(k -n "$namespace" get deployment "$deployment" -o jsonpath="$container.image}")"
  was_driver="$(k -n "$namespace" get deployment "$deployment" \
    -o jsonpath="$container.env[?(@.name==\"RELATED_IMAGE_DRIVER\")].value}")"
  restore="kubectl -n $namespace set image deployment/$deployment operator=$was_image;
    kubectl -n $namespace set env deployment/$deployment -c operator RELATED_IMAGE_DRIVER=$was_driver;
    kubectl delete namespace $workloads --wait=false; kubectl delete storagebackend $backend --wait=false"

  use() {
    k -n "$namespace" set image "deployment/$deployment" "operator=$(operator_of "$1")" >/dev/null
    k -n "$namespace" set env "deployment/$deployment" -c operator \
      "RELATED_IMAGE_DRIVER=$(driver_of "$1")" >/dev/null
    k -n "$namespace" rollout status "deployment/$deployment" --timeout=180s >/dev/null
  }
  # The node pod that is not being deleted.
  node_pod() {
    k -n "$namespace" get pods -l "$selector" --field-selector "$on_node" \
      -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' |
      awk 'NF == 1 {print $1; exit}'
  }
  # Waits until the DaemonSet runs the side's driver image on every node, all Ready.
  settled() {
    local image
    image="$(driver_of "$1")"
    for _ in $(seq 1 600); do
      if [ "$(k -n "$namespace" get daemonset "thinvol-$backend-node" -o \
        jsonpath='{.spec.template.spec.containers[0].image} {.status.updatedNumberScheduled} {.status.numberReady} {.status.desiredNumberScheduled}' \
        2>/dev/null | awk -v i="$image" '$1 == i && $2 == $4 && $3 == $4 && $4 > 0 {print "yes"}')" = yes ]; then
        return 0
      fi
      sleep 0.5
    done
    echo "the node pods did not settle on $image" >&2
    return 1
  }
  # watch_pods SELECTOR LOG: appends "seconds name ready phase" to LOG for every change of a pod
  # the selector matches, stamped on arrival; the watch's pid goes to $watcher.
  watch_pods() {
    local fifo="$work/fifo.$RANDOM"
    mkfifo "$fifo"
    while read -r name ready phase; do echo "$(seconds) $name $ready $phase"; done <"$fifo" >>"$2" &
    k get pods -A -l "$1" --field-selector "$on_node" --watch --no-headers \
      -o 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,PHASE:.status.phase' \
      >"$fifo" &
    watcher=$!
  }
  workload() {
    cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: workload, namespace: $workloads, labels: {thinvol-bench: node-start}}
spec:
  terminationGracePeriodSeconds: 1
  nodeSelector: {kubernetes.io/hostname: $node}
  containers:
  - {name: sleep, image: $busybox, command: [sleep, "3600"], volumeMounts: [{name: data, mountPath: /data}]}
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
EOF
  }
  unstage_count() {
    k -n "$namespace" logs "$1" -c driver 2>/dev/null | grep -c 'unstaged volume' || true
  }
  # One measure: the node pod of the side made again (by the DaemonSet after a delete, or by the
  # roll to the side) while the workload starts.
  measure() {
    local side="$1" kind="$2" old_pod="$3" watch_log="$work/watch" new_pod created ready staged running
    local stamp unstaged
    # The kubelet unstages a volume after its pod is gone, not before the delete returns: a workload
    # started meanwhile finds it still staged and no NodeStage is made. So the old node pod's
    # "unstaged volume" line is awaited first.
    unstaged="$(unstage_count "$old_pod")"
    k -n "$workloads" delete pod workload --ignore-not-found --wait=true --timeout=120s >/dev/null
    for _ in $(seq 1 600); do
      [ "$(unstage_count "$old_pod")" -gt "$unstaged" ] && break
      sleep 0.1
    done
    : >"$watch_log"
    watch_pods "$selector" "$watch_log"
    local node_watch="$watcher"
    watch_pods thinvol-bench=node-start "$watch_log"
    local workload_watch="$watcher"
    sleep 1
    local switching=""
    if [ "$kind" = restart ]; then
      k -n "$namespace" delete pod "$old_pod" --wait=false >/dev/null
    else
      use "$side" &
      switching=$!
    fi
    new_pod=""
    for _ in $(seq 1 1200); do
      if [ -z "$new_pod" ]; then
        new_pod="$(awk -v o="$old_pod" '$2 ~ /^thinvol-/ && $2 != o {print $2; exit}' "$watch_log")"
        # Only now: the old node pod, gone, cannot stage the volume itself.
        if [ -n "$new_pod" ]; then workload | k apply -f - >/dev/null; fi
      elif grep -q " $new_pod True" "$watch_log" && grep -q ' workload True Running' "$watch_log"; then
        break
      fi
      sleep 0.1
    done
    kill "$node_watch" "$workload_watch" 2>/dev/null || true
    wait "$node_watch" "$workload_watch" 2>/dev/null || true
    if [ -n "$switching" ]; then wait "$switching"; fi
    created="$(awk -v p="$new_pod" '$2 == p {print $1; exit}' "$watch_log")"
    ready="$(awk -v p="$new_pod" '$2 == p && $3 == "True" {print $1; exit}' "$watch_log")"
    running="$(awk '$2 == "workload" && $4 == "Running" {print $1; exit}' "$watch_log")"
    if [ -z "$ready" ] || [ -z "$running" ]; then
      echo "node pod ${new_pod:-(none)} or the workload not ready after 2 minutes:" >&2
      cat "$watch_log" >&2
      return 1
    fi
    stamp="$(k -n "$namespace" logs "$new_pod" -c driver --timestamps |
      awk '/staged volume/ {print $1; exit}')"
    if [ -z "$stamp" ]; then
      echo "node pod $new_pod logged no NodeStage: was the volume still staged?" >&2
      return 1
    fi
    staged="$(date -d "$stamp" +%s.%N)"
    echo "$side $kind $(minus "$ready" "$created") $(minus "$staged" "$created") $(minus "$running" "$created")" \
      >>"$work/starts"
    printf 'node   %-3s %-7s created -> Ready %s s, -> first NodeStage %s s, -> workload Running %s s\n' \
      "$side" "$kind" "$(minus "$ready" "$created")" "$(minus "$staged" "$created")" \
      "$(minus "$running" "$created")"
  }

  k create namespace "$workloads" --dry-run=client -o yaml | k apply -f - >/dev/null
  cat <<EOF | k apply -f - >/dev/null
apiVersion: thinvol.io/v1alpha1
kind: StorageBackend
metadata: {name: $backend}
spec:
  sparseFile: {dataDir: /var/lib/thinvol/$backend, filesystem: ext4}
  storageClasses: [{name: thinvol-$backend, reclaimPolicy: Delete}]
EOF
  use old
  settled old
  cat <<EOF | k apply -f - >/dev/null
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: $workloads}
spec: {accessModes: [ReadWriteOnce], storageClassName: thinvol-$backend, resources: {requests: {storage: 64Mi}}}
EOF
  workload | k apply -f - >/dev/null
  k -n "$workloads" wait pod/workload --for=condition=Ready --timeout=180s >/dev/null
  current=old
  for round in $(seq 1 "$rounds"); do
    for side in $(side_order "$round"); do
      if [ "$side" != "$current" ]; then
        measure "$side" roll "$(node_pod)"
        current="$side"
      fi
      settled "$side"
      measure "$side" restart "$(node_pod)"
    done
  done
  summary_cluster=1
fi

echo
echo "medians, seconds (old = $old_driver, new = $new_driver):"
for side in old new; do
  printf '  %-3s container start -> Probe %s' "$side" \
    "$(awk -v s="$side" '$1 == s {print $2}' "$work/probes" | median)"
  if [ -n "${summary_cluster:-}" ]; then
    printf ' | node pod created -> Ready %s, -> first NodeStage %s, -> workload Running %s' \
      "$(awk -v s="$side" '$1 == s {print $3}' "$work/starts" | median)" \
      "$(awk -v s="$side" '$1 == s {print $4}' "$work/starts" | median)" \
      "$(awk -v s="$side" '$1 == s {print $5}' "$work/starts" | median)"
  fi
  echo
done
