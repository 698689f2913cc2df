#!/usr/bin/env bash
# One round of what NodeStage and NodePublish do, with the raw tools and the same options, timed with bash's own
# clock (reading it starts no process). Prints "<stage ms> <publish ms>".
# Usage: bench/raw-stage.sh DIR [direct|buffered]   (DIR is created and removed)
# The loop device's I/O mode is the volume's (ioMode, direct by default): losetup --direct-io=on
# configures it as the device is bound, as the driver does.
set -euo pipefail
dir="$1"
mode="${2:-direct}"
case "$mode" in
  direct) dio=on ;;
  buffered) dio=off ;;
  *) echo "unknown I/O mode $mode" >&2; exit 2 ;;
esac
mkdir -p "$dir/stage" "$dir/target"
truncate -s 64M "$dir/disk.img"
t0=$EPOCHREALTIME
dev=$(losetup --find --show --direct-io="$dio" "$dir/disk.img")
mkfs.ext4 -q -F -m 0 -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 "$dev"
mount -t ext4 "$dev" "$dir/stage"
t1=$EPOCHREALTIME
mount --bind "$dir/stage" "$dir/target"
t2=$EPOCHREALTIME
umount "$dir/target"
umount "$dir/stage"
losetup --detach "$dev"
rm -rf "$dir"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "%.3f %.3f\n", (b - a) * 1000, (c - b) * 1000}'
