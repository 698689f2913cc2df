#!/usr/bin/env bash
# The addons' API load at scale, before and after (docs/benchmarks.md): runs
# bench/addons-scale.sh's benchmark on this tree and on an older commit, alternating, one run at a
# time, and prints the figures side by side. The older commit gets this tree's harness (the strict
# API fixture of testing/ and the benchmark's classes); its addons, CRDs and RBAC stay its own.
# Usage: bench/addons-scale-compare.sh <old-commit> [claims] [nodes] [period-minutes] [rounds]
# The old tree is a git worktree in $OLD_TREE (default: a temporary directory), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
old_commit="$1"
claims="${2:-5000}"
nodes="${3:-100}"
minutes="${4:-5}"
rounds="${5:-2}"
new_tree="$PWD"
old_tree="${OLD_TREE:-$(mktemp -d -u /tmp/thinvol-scale-old.XXXXXX)}"
out="${OUT:-target/addons-scale}"
mkdir -p "$out"

git worktree add --detach "$old_tree" "$old_commit" >/dev/null
trap 'git worktree remove --force "$old_tree"' EXIT
harness=(testing/src addons/src/test/java/io/thinvol/addons/bench
  addons/src/test/resources/logback-bench.xml)
for path in "${harness[@]}"; do
  rm -rf "${old_tree:?}/$path"
  mkdir -p "$(dirname "$old_tree/$path")"
  cp -r "$new_tree/$path" "$old_tree/$path"
done

build() {
  (cd "$1" && ./mvnw -B -q -o -pl addons -am test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test >/dev/null)
}
run() { # tree, output file
  local cp
  cp="$1/addons/target/test-classes:$1/addons/target/classes:$(cat "$1/addons/target/bench.cp")"
  (cd "$1" && java -Xmx2g -Dlogback.configurationFile=logback-bench.xml \
    "-Dbench.operator.flags=-XX:+UseSerialGC -Xss512k -Xmx160m -XX:MaxMetaspaceSize=96m -XX:ReservedCodeCacheSize=32m -XX:TieredStopAtLevel=1" \
    -cp "$cp" io.thinvol.addons.bench.AddonsScaleBenchmark "$claims" "$nodes" "$minutes" \
    >"$2" 2>"$2.err") || echo "run failed: $2 (see $2.err)" >&2
}

build "$new_tree"
build "$old_tree"
files=()
for round in $(seq 1 "$rounds"); do
  # Alternating which goes first, so that a change of the machine's load hits both.
  if ((round % 2)); then order=(old new); else order=(new old); fi
  for side in "${order[@]}"; do
    tree="$new_tree"
    [[ $side == old ]] && tree="$old_tree"
    file="$out/$side-$claims-$round.txt"
    run "$tree" "$file"
    echo "$side round $round: $(grep -c . "$file" || true) lines in $file" >&2
  done
done
for side in old new; do
  for round in $(seq 1 "$rounds"); do files+=("$out/$side-$claims-$round.txt"); done
done
bench/addons-scale-table.sh "${files[@]}"
