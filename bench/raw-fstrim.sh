#!/usr/bin/env bash
# A bare fstrim of each given mount point, one after the other, timed with bash's own clock.
# With --commit, each filesystem's journal is first committed as NodeReclaimSpace does (`sync
# MOUNT`: an fsync of the mount's directory, which commits ext4's running transaction), so that
# blocks freed by deletes not yet committed can be trimmed.
# Prints "<total ms> <bytes the images gave back>".
# Usage: bench/raw-fstrim.sh [--commit] IMAGE:MOUNT [IMAGE:MOUNT ...]
set -euo pipefail
commit_first=false
if [ "${1:-}" = "--commit" ]; then commit_first=true; shift; fi
before=0; after=0
for pair in "$@"; do before=$((before + $(stat --format '%b * %B' "${pair%%:*}"))); done
t0=$EPOCHREALTIME
for pair in "$@"; do
  if $commit_first; then sync "${pair#*:}"; fi
  fstrim "${pair#*:}"
done
t1=$EPOCHREALTIME
for pair in "$@"; do after=$((after + $(stat --format '%b * %B' "${pair%%:*}"))); done
awk -v a="$t0" -v b="$t1" -v freed=$((before - after)) 'BEGIN {printf "%.3f %d\n", (b - a) * 1000, freed}'
