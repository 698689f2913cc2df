#!/bin/sh
# Installs the host tools the driver runs into a Debian root with apt (driver.Containerfile runs it
# on its base; build-local.sh in the driver's base as mmdebstrap makes it): util-linux, mount,
# e2fsprogs, xfsprogs and coreutils. See docs/image.md.
#
# xfsprogs is unpacked without two of its dependencies, python3 (for xfs_scrub_all) and libicu (for
# xfs_scrub's Unicode checks): 65 MB with what they pull in, for programs the driver never runs.
# Its other dependencies are installed, and every tool the driver runs is checked below to load all
# its libraries. apt reports xfsprogs' dependencies as unmet afterwards: an image is rebuilt, not
# upgraded in place.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends util-linux mount e2fsprogs coreutils >/dev/null
deps="$(apt-cache depends xfsprogs | sed -n 's/^ *Depends: <\{0,1\}\([^:>]*\).*/\1/p' |
  grep -v -e '^python3' -e '^libicu')"
# shellcheck disable=SC2086 # one package a word
apt-get install -y -qq --no-install-recommends $deps >/dev/null
(cd /tmp && apt-get download -qq xfsprogs && dpkg --force-depends --install xfsprogs_*.deb >/dev/null &&
  rm -f xfsprogs_*.deb)
for tool in losetup blkid mount umount fstrim unshare mkfs.ext4 e2fsck resize2fs mkfs.xfs xfs_growfs \
  cp sync; do
  path="$(command -v "$tool")" || { echo "host-tools: $tool is missing" >&2; exit 1; }
  if ldd "$path" | grep 'not found' >&2; then
    echo "host-tools: $tool cannot load the libraries above" >&2
    exit 1
  fi
done
apt-get clean
rm -rf /var/lib/apt/lists/*
