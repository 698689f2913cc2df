#!/usr/bin/env bash
# Data-path benchmark: fio inside a thin volume (an ext4 filesystem on a loop device over a sparse
# image, set up with exactly the driver's commands) against fio on the host filesystem that holds
# the data dir, for each loop configuration worth considering. Rounds are interleaved (every
# configuration once per round) so load from other processes spreads over all of them; caches are
# dropped before every job. Prints medians over the rounds and volume / host ratios.
# The 4k random write job runs twice: on a new file (fio only fallocates it, so every write is a
# first write: the volume's filesystem converts an unwritten extent and, below it, the sparse
# image allocates a block in the host filesystem - thin provisioning's first-write cost), and on a
# file fio wrote in full first (--overwrite=1: every write overwrites allocated blocks).
# Needs root and fio (Debian: apt-get install -y fio). Takes ~5 minutes per round.
# Usage: bench/datapath-bench.sh [rounds] [work dir on the filesystem to measure]
#   Shorter runs: SIZE_MIB (sequential jobs, 1024), RAND_SECONDS (15), RAND_MIB (the random jobs'
#   file, 1024), CONFIGS="direct ..." (only these loop configurations beside the host);
#   RESULTS_OUT=FILE keeps the raw "<config> <job> <value>" lines.
set -euo pipefail
rounds="${1:-3}"
work="$(mktemp -d "${2:-/var/tmp}/thinvol-datapath-XXXXXX")"
size_mib="${SIZE_MIB:-1024}"  # what each sequential job writes and reads
rand_seconds="${RAND_SECONDS:-15}"  # each random job runs this long
rand_mib="${RAND_MIB:-1024}"  # the random jobs' file
image_size=4G

# name | losetup options | queue settings (sysfs attribute=value of the loop device's queue/)
configs=(
  "buffered||"
  "direct|--direct-io=on|"
  "direct-4k|--direct-io=on --sector-size 4096|"
  "direct-4k-ra1m|--direct-io=on --sector-size 4096|read_ahead_kb=1024"
  "direct-4k-mqdl|--direct-io=on --sector-size 4096|scheduler=mq-deadline"
)
if [ -n "${CONFIGS:-}" ]; then
  chosen=()
  for config in "${configs[@]}"; do
    [[ " $CONFIGS " == *" ${config%%|*} "* ]] && chosen+=("$config")
  done
  configs=("${chosen[@]}")
fi

trap '"$(dirname "$0")/release-under.sh" "$work"' EXIT

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
cached_kib() { awk '/^Cached:/ {print $2}' /proc/meminfo; }

# fio job runner: prints "<MB/s or IOPS>" for the job on directory $1.
fio_job() {
  local dir="$1" kind="$2" out
  case "$kind" in
    seqwrite) out=$(fio --name=j --directory="$dir" --filename=seq --rw=write --bs=1M \
      --size=${size_mib}M --ioengine=psync --end_fsync=1 --output-format=json)
      jq -r '.jobs[0].write.bw_bytes / 1048576' <<<"$out" ;;
    seqread) out=$(fio --name=j --directory="$dir" --filename=seq --rw=read --bs=1M \
      --size=${size_mib}M --ioengine=psync --output-format=json)
      jq -r '.jobs[0].read.bw_bytes / 1048576' <<<"$out" ;;
    randwrite|randread|randoverwrite)
      local rw="${kind/overwrite/write}" overwrite=0
      [ "$kind" = randoverwrite ] && overwrite=1
      out=$(fio --name=j --directory="$dir" --filename=rand --rw="$rw" --overwrite=$overwrite \
        --bs=4k --size=${rand_mib}M --ioengine=libaio --iodepth=16 --direct=1 --time_based \
        --runtime=$rand_seconds --randrepeat=0 --output-format=json)
      jq -r ".jobs[0].${rw#rand}.iops" <<<"$out" ;;
  esac
}

# One configuration's round: writes "<config> <job> <value>" lines to $work/results.
run_config() {
  local name="$1" options="$2" queue="$3" dir image before image_cached
  if [ "$name" = host ]; then
    dir="$work/host"
    mkdir -p "$dir"
  else
    image="$work/volume.img"
    truncate -s "$image_size" "$image"
    # shellcheck disable=SC2086 # options are words
    dev=$(losetup --find --show $options "$image")
    if [ -n "$queue" ]; then
      echo "${queue#*=}" > "/sys/block/${dev#/dev/}/queue/${queue%%=*}"
    fi
    mkfs.ext4 -q -F -m 0 -E nodiscard,lazy_itable_init=1,lazy_journal_init=1 "$dev"
    mkdir -p "$work/mnt"
    mount -t ext4 "$dev" "$work/mnt"
    dir="$work/mnt"
  fi
  drop_caches
  before=$(cached_kib)
  echo "$name seqwrite $(fio_job "$dir" seqwrite)" >> "$work/results"
  # What the host's page cache holds after the pod wrote 1 GiB and fsynced it: the pod's own copy
  # (the volume's file) plus, for a buffered loop device, a second copy (the image file's pages).
  echo "$name cache_total_mib_per_gib $(( ($(cached_kib) - before) / size_mib ))" \
    >> "$work/results"
  if [ "$name" = host ]; then
    image_cached=0
  else
    image_cached=$(fincore --bytes --noheadings --output RES "$image")
  fi
  echo "$name cache_image_mib_per_gib $(( image_cached / 1048576 * 1024 / size_mib ))" \
    >> "$work/results"
  drop_caches
  echo "$name seqread $(fio_job "$dir" seqread)" >> "$work/results"
  rm -f "$dir/seq"
  for kind in randwrite randread; do
    drop_caches
    echo "$name $kind $(fio_job "$dir" "$kind")" >> "$work/results"
  done
  rm -f "$dir/rand" # the overwrite job lays out a file of its own
  drop_caches
  echo "$name randoverwrite $(fio_job "$dir" randoverwrite)" >> "$work/results"
  rm -f "$dir/rand"
  if [ "$name" = host ]; then
    rm -rf "$dir"
  else
    umount "$work/mnt"
    losetup --detach "$dev"
    dev=""
    rm -f "$image"
  fi
}

for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds" >&2
  run_config host "" ""
  for config in "${configs[@]}"; do
    IFS='|' read -r name options queue <<<"$config"
    run_config "$name" "$options" "$queue"
  done
done

if [ -n "${RESULTS_OUT:-}" ]; then cp "$work/results" "$RESULTS_OUT"; fi
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
value() { awk -v c="$1" -v j="$2" '$1 == c && $2 == j {print $3}' "$work/results" | median; }
spread() {
  awk -v c="$1" -v j="$2" '$1 == c && $2 == j {print $3}' "$work/results" | sort -g \
    | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.0f-%.0f", lo, hi}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

echo "thinvol data-path benchmark: $(nproc) cores, kernel $(uname -r), data dir on" \
  "$(findmnt -no FSTYPE,SOURCE --target "$work"), $rounds interleaved rounds, medians (min-max)"
echo
printf '| %-16s | %-24s | %-24s | %-24s | %-24s | %-24s | %-9s | %-9s |\n' configuration \
  "1M seq write+fsync MiB/s" "1M seq read MiB/s" "4k rand first write IOPS" \
  "4k rand overwrite IOPS" "4k rand read IOPS" "cache/GiB" "of which image"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------------ -------------------------- \
  -------------------------- -------------------------- -------------------------- \
  -------------------------- ----------- -----------
for config in host "${configs[@]}"; do
  name="${config%%|*}"
  row="| $(printf '%-16s' "$name") |"
  for job in seqwrite seqread randwrite randoverwrite randread; do
    v=$(value "$name" "$job")
    cell="$(printf '%.0f' "$v") ($(spread "$name" "$job"))"
    [ "$name" != host ] && cell="$cell $(ratio "$v" "$(value host "$job")")x"
    row="$row $(printf '%-24s' "$cell") |"
  done
  row="$row $(printf '%-9s' "$(value "$name" cache_total_mib_per_gib) MiB") |"
  row="$row $(printf '%-9s' "$(value "$name" cache_image_mib_per_gib) MiB") |"
  echo "$row"
done
echo
echo "cache/GiB: growth of the host's page cache (Cached in /proc/meminfo) per GiB the pod wrote"
echo "and fsynced; of which image: the image file's pages held (fincore), i.e. a second copy."
