#!/usr/bin/env bash
# Builds thinvol's two container images on this machine without a container registry:
#   1. two base images from Debian packages (mmdebstrap | podman import), cached in podman's store
#      under tags that hash how they are made, so later runs reuse them: the driver's (glibc, a
#      shell, the host tools) and the operator's (glibc and a shell only);
#   2. the project's jars with ./mvnw package (outside the image), when missing or out of date;
#   3. each jar's Java runtime, linked by packaging/image/java-runtime.sh from this machine's JDK 17
#      (THINVOL_JDK, /usr/lib/jvm/java-17-openjdk-amd64: Debian's openjdk-17-jdk-headless);
#   4. the operator's image from ../../Containerfile and the driver's from
#      ../../driver.Containerfile, each with its base, its jar and its runtime.
# Usage: packaging/image/build-local.sh [OPERATOR_IMAGE [DRIVER_IMAGE]]
#   (defaults localhost/thinvol:dev and localhost/thinvol-driver:dev)
# Needs podman, buildah, mmdebstrap, runc and openjdk-17-jdk-headless (Debian packages); runs as
# root. THINVOL_REBUILD_BASE=1 makes the bases again (e.g. for security updates).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
operator_image="${1:-localhost/thinvol:dev}"
driver_image="${2:-localhost/thinvol-driver:dev}"
jdk="${THINVOL_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
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

# base REPOSITORY SCRIPT MMDEBSTRAP_OPTION...: prints the base's name, building it unless cached.
# The tag hashes everything that makes it: the options and the script of this directory they run.
base() {
  local repository="$1" script="$2"
  shift 2
  local key start id replaced
  key="$(printf '%s\n' "$suite" "${sources[@]}" "$env" "$@" | cat - "$here/$script" |
    sha256sum | cut -c1-12)"
  local name="$repository:$key"
  start="$(seconds)"
  if [ "${THINVOL_REBUILD_BASE:-}" != 1 ] && podman image exists "$name"; then
    echo "base $name: cached" >&2
  else
    # Tagged only once complete: a failed run must not leave a base that later runs would reuse.
    id="$(mmdebstrap --quiet "$@" "$suite" - "${sources[@]}" |
      podman import --quiet --change "$env" -)"
    replaced="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
    podman tag "$id" "$name"
    [ -z "$replaced" ] || podman rmi "$replaced" >/dev/null 2>&1 || true
    echo "base $name: built in $(elapsed "$start") s" >&2
  fi
  echo "$name"
}

# The driver's: Debian's minimal system with the host tools (host-tools.sh), without
# documentation, manuals, translations or iconv modules (but each package's copyright).
slim=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/lib/*/gconv/*')
driver_base="$(base localhost/thinvol-base-driver host-tools.sh --variant=minbase "${slim[@]}" \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --customize-hook="chroot \"\$1\" sh -s < '$here/host-tools.sh'")"
# The operator's: the libraries the runtime loads (libjvm: libc, libgcc_s, libstdc++; libzip: zlib)
# and dash for the entry point, unpacked without dpkg (extracted-root.sh), no Essential set.
operator_base="$(base localhost/thinvol-base-operator extracted-root.sh --variant=extract \
  --include=libc6,libgcc-s1,libstdc++6,zlib1g,dash \
  --extract-hook="sh '$here/extracted-root.sh' \"\$1\"")"

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
contexts="$(mktemp -d)"
trap 'rm -rf "$contexts"' EXIT

# image NAME CONTAINERFILE BASE MODULE: builds one image. One build context replaces both the
# Containerfile's "jars" stage (the module's jar in jars/) and its "runtime" stage (the runtime
# linked here in runtime/).
image() {
  local name="$1" containerfile="$2" from="$3" module="$4" start previous current size
  local context="$contexts/$module"
  mkdir -p "$context/jars"
  cp "$(jar "$module")" "$context/jars/thinvol-$module.jar"
  start="$(seconds)"
  JAVA_HOME="$jdk" "$here/java-runtime.sh" "$context/jars/thinvol-$module.jar" "$context/runtime" \
    2>&1 | grep -v '^Created CDS archive' >&2
  echo "runtime $module: linked in $(elapsed "$start") s, $(du -sm "$context/runtime" | cut -f1) MiB" >&2
  start="$(seconds)"
  previous="$(podman image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)"
  buildah bud --quiet --pull=never --network=host --build-arg BASE="$from" \
    --build-context jars="$context" --build-context runtime="$context" \
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
