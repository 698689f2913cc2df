#!/usr/bin/env bash
# A bare fstrim of each given mount point, one after the other, timed with bash's own clock.
# With --sync, each is first synced (`sync -f`: syncfs), as NodeReclaimSpace does so that blocks
# freed by deletes not yet committed to the journal can be trimmed.
# Prints "<total ms> <bytes the images gave back>".
# Usage: bench/raw-fstrim.sh [--sync] IMAGE:MOUNT [IMAGE:MOUNT ...]
set -euo pipefail
sync_first=false
if [ "${1:-}" = "--sync" ]; then sync_first=true; shift; fi
before=0; after=0
for pair in "$@"; do before=$((before + $(stat --format '%b * %B' "${pair%%:*}"))); done
t0=$EPOCHREALTIME
for pair in "$@"; do
  if $sync_first; then sync -f "${pair#*:}"; fi
  fstrim "${pair#*:}"
done
t1=$EPOCHREALTIME
for pair in "$@"; do after=$((after + $(stat --format '%b * %B' "${pair%%:*}"))); done
awk -v a="$t0" -v b="$t1" -v freed=$((before - after)) 'BEGIN {printf "%.3f %d\n", (b - a) * 1000, freed}'
