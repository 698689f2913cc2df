#!/usr/bin/env bash
# Builds thinvol's two container images on this machine without a container registry:
#   1. two base images from Debian packages (mmdebstrap | podman import), cached in podman's store
#      under tags that hash their package lists, so later runs reuse them: the driver's (a Java
#      runtime and the host tools) and the operator's (a Java runtime only, no recommended
#      packages);
#   2. the project's jars with ./mvnw package (outside the image), when missing or out of date;
#   3. the operator's image from ../../Containerfile and the driver's from
#      ../../driver.Containerfile, each with its base and its jar.
# Usage: packaging/image/build-local.sh [OPERATOR_IMAGE [DRIVER_IMAGE]]
#   (defaults localhost/thinvol:dev and localhost/thinvol-driver:dev)
# Needs podman, buildah, mmdebstrap, runc (Debian packages); runs as root.
# THINVOL_REBUILD_BASE=1 makes the bases again (e.g. for security updates).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
operator_image="${1:-localhost/thinvol:dev}"
driver_image="${2:-localhost/thinvol-driver:dev}"
# This VM's podman settings without touching /etc/containers or ~/.config/containers.
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"

suite=bookworm
sources=(
  "deb http://deb.debian.org/debian $suite main"
  "deb http://deb.debian.org/debian $suite-updates main"
  "deb http://deb.debian.org/debian-security $suite-security main"
)
env='ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }

# base REPOSITORY PACKAGES [MMDEBSTRAP_OPTION...]: prints the base's name, building it unless
# cached. The tag hashes everything that makes it.
base() {
  local repository="$1" packages="$2"
  shift 2
  local key start id replaced
  key="$(printf '%s\n' "$suite" "$packages" "${sources[@]}" "$env" "$@" | sha256sum | cut -c1-12)"
  local name="$repository:$key"
  start="$(seconds)"
  if [ "${THINVOL_REBUILD_BASE:-}" != 1 ] && podman image exists "$name"; then
    echo "base $name: cached" >&2
  else
    # Tagged only once complete: a failed run must not leave a base that later runs would reuse.
    id="$(mmdebstrap --quiet --variant=minbase --include="$packages" "$@" \
      --customize-hook='chroot "$1" java -version >&2' \
      "$suite" - "${sources[@]}" |
      podman import --quiet --change "$env" -)"
    replaced="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
    podman tag "$id" "$name"
    [ -z "$replaced" ] || podman rmi "$replaced" >/dev/null 2>&1 || true
    echo "base $name: built in $(elapsed "$start") s" >&2
  fi
  echo "$name"
}

# The driver's base is the one image with every tool (its tag is the single base's of earlier
# versions, so a machine that has that one cached reuses it). The operator needs only Java: no
# recommended packages and merged /usr without the usrmerge package keep perl and python out.
driver_base="$(base localhost/thinvol-base openjdk-17-jre-headless,util-linux,mount,e2fsprogs,xfsprogs)"
operator_base="$(base localhost/thinvol-base-operator openjdk-17-jre-headless \
  --aptopt='APT::Install-Recommends "false"' \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr)"

start="$(seconds)"
jar() { ls "$root/$1/target/thinvol-$1-"*-all.jar 2>/dev/null | head -n 1; }
if [ -z "$(jar driver)" ] || [ -z "$(jar operator)" ] ||
  [ -n "$(find "$root/pom.xml" "$root"/{proto,driver}/{pom.xml,src/main} \
    -newer "$(jar driver)" -print -quit)" ] ||
  [ -n "$(find "$root/pom.xml" "$root"/{api,addons,operator}/{pom.xml,src/main} \
    -newer "$(jar operator)" -print -quit)" ]; then
  (cd "$root" && ./mvnw -B -q -DskipTests -pl driver,operator -am package) >&2
  echo "jars: built in $(elapsed "$start") s" >&2
fi
jars="$(mktemp -d)"
trap 'rm -rf "$jars"' EXIT

# image NAME CONTAINERFILE BASE MODULE: builds one image; the "jars" build context (the module's
# jar) replaces the Containerfile's stage of that name.
image() {
  local name="$1" containerfile="$2" from="$3" module="$4" start previous current size
  mkdir -p "$jars/$module/jars"
  cp "$(jar "$module")" "$jars/$module/jars/thinvol-$module.jar"
  start="$(seconds)"
  previous="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
  buildah bud --quiet --pull=never --network=host \
    --build-arg BASE="$from" --build-context jars="$jars/$module" \
    -f "$root/$containerfile" -t "$name" "$root" >/dev/null
  current="$(podman image inspect --format '{{.Id}}' "$name")"
  if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
    podman rmi --force "$previous" >/dev/null 2>&1 || true
  fi
  size="$(podman image inspect --format '{{.Size}}' "$name")"
  echo "image $name: built in $(elapsed "$start") s, $((size / 1024 / 1024)) MiB" >&2
}

image "$operator_image" Containerfile "$operator_base" operator
image "$driver_image" driver.Containerfile "$driver_base" driver
