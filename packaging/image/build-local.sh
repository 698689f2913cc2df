#!/usr/bin/env bash
# Builds thinvol's container image on this machine without a container registry:
#   1. a base image from Debian packages (mmdebstrap | podman import), cached in podman's store
#      under a tag that is a hash of its package list, so later runs reuse it;
#   2. the project's jars with ./mvnw package (outside the image), when missing or out of date;
#   3. the image from ../../Containerfile with that base and those jars.
# Usage: packaging/image/build-local.sh [IMAGE]    (default localhost/thinvol:dev)
# Needs podman, buildah, mmdebstrap, runc (Debian packages); runs as root.
# THINVOL_REBUILD_BASE=1 makes the base again (e.g. for security updates).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
image="${1:-localhost/thinvol:dev}"
# This VM's podman settings without touching /etc/containers or ~/.config/containers.
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"

suite=bookworm
packages=openjdk-17-jre-headless,util-linux,mount,e2fsprogs,xfsprogs
sources=(
  "deb http://deb.debian.org/debian $suite main"
  "deb http://deb.debian.org/debian $suite-updates main"
  "deb http://deb.debian.org/debian-security $suite-security main"
)
env='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
key="$(printf '%s\n' "$suite" "$packages" "${sources[@]}" "$env" | sha256sum | cut -c1-12)"
base="localhost/thinvol-base:$key"

seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }

start="$(seconds)"
if [ "${THINVOL_REBUILD_BASE:-}" != 1 ] && podman image exists "$base"; then
  echo "base $base: cached" >&2
else
  # Tagged only once complete: a failed run must not leave a base that later runs would reuse.
  id="$(mmdebstrap --quiet --variant=minbase --include="$packages" \
    --customize-hook='chroot "$1" java -version >&2' \
    "$suite" - "${sources[@]}" |
    podman import --quiet --change "$env" -)"
  replaced="$(podman image inspect --format '{{.Id}}' "$base" 2>/dev/null || true)"
  podman tag "$id" "$base"
  [ -z "$replaced" ] || podman rmi "$replaced" >/dev/null 2>&1 || true
  echo "base $base: built in $(elapsed "$start") s" >&2
fi

start="$(seconds)"
jar() { ls "$root/$1/target/thinvol-$1-"*-all.jar 2>/dev/null | head -n 1; }
if [ -z "$(jar driver)" ] || [ -z "$(jar operator)" ] ||
  [ -n "$(find "$root/pom.xml" "$root"/{proto,api,addons,driver,operator}/{pom.xml,src/main} \
    -newer "$(jar driver)" -print -quit)" ] ||
  [ -n "$(find "$root"/{api,addons,operator}/{pom.xml,src/main} -newer "$(jar operator)" -print -quit)" ]; then
  (cd "$root" && ./mvnw -B -q -DskipTests -pl driver,operator -am package) >&2
  echo "jars: built in $(elapsed "$start") s" >&2
fi
# The "jars" build context replaces the Containerfile's stage of that name.
jars="$(mktemp -d)"
trap 'rm -rf "$jars"' EXIT
mkdir "$jars/jars"
cp "$(jar driver)" "$jars/jars/thinvol-driver.jar"
cp "$(jar operator)" "$jars/jars/thinvol-operator.jar"

start="$(seconds)"
previous="$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
buildah bud --quiet --pull=never --network=host \
  --build-arg BASE="$base" --build-context jars="$jars" \
  -f "$root/Containerfile" -t "$image" "$root" >/dev/null
current="$(podman image inspect --format '{{.Id}}' "$image")"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  podman rmi --force "$previous" >/dev/null 2>&1 || true
fi
size="$(podman image inspect --format '{{.Size}}' "$image")"
echo "image $image: built in $(elapsed "$start") s, $((size / 1024 / 1024)) MiB" >&2
