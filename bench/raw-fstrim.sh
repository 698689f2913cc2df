#!/usr/bin/env bash
# A bare fstrim of each given mount point, one after the other, timed with bash's own clock.
# Prints "<total ms> <bytes the images gave back>".
# Usage: bench/raw-fstrim.sh IMAGE:MOUNT [IMAGE:MOUNT ...]
set -euo pipefail
before=0; after=0
for pair in "$@"; do before=$((before + $(stat --format '%b * %B' "${pair%%:*}"))); done
t0=$EPOCHREALTIME
for pair in "$@"; do fstrim "${pair#*:}"; done
t1=$EPOCHREALTIME
for pair in "$@"; do after=$((after + $(stat --format '%b * %B' "${pair%%:*}"))); done
awk -v a="$t0" -v b="$t1" -v freed=$((before - after)) 'BEGIN {printf "%.3f %d\n", (b - a) * 1000, freed}'
