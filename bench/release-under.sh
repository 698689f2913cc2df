#!/usr/bin/env bash
# Releases what the host holds under a benchmark's temp dir and removes it: mounts (deepest first,
# lazily if busy), loop devices backed by files there, then the directory itself - only once
# nothing is mounted under it (removing through a mount would delete a volume's files instead).
# For the benchmarks' own temp dirs only, never for a data dir in use.
# Usage: bench/release-under.sh DIR
set -uo pipefail
dir="$(realpath -m "$1")"
[ -d "$dir" ] || exit 0
mounts_under() {
  awk -v d="$dir/" 'index($5 "/", d) == 1 {print $5}' /proc/self/mountinfo | sort -r
}
for mount in $(mounts_under); do
  umount "$mount" 2>/dev/null || umount -l "$mount" || true
done
losetup --list --noheadings --raw --output NAME,BACK-FILE \
  | awk -v d="$dir/" 'index($2, d) == 1 {print $1}' | xargs -r -n1 losetup --detach || true
if [ -n "$(mounts_under)" ]; then
  echo "release-under: still mounted under $dir, not removed:" $(mounts_under) >&2
  exit 1
fi
rm -rf "$dir"
