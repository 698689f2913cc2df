#!/bin/sh
# Records the classes a driver's start loads, up to its first answers, in HOME/thinvol-driver.jsa
# (a dynamic CDS archive), which the entry point then hands to the JVM: a start maps them instead of
# reading, parsing and verifying them from the jar again. driver.Containerfile runs it in the image
# it builds, so the archive matches that image's runtime and jar (the JVM ignores an archive made
# with another runtime or jar); bench/driver-memory.sh runs it on the home it measures.
#   class-data.sh ENTRY_POINT HOME
# Starts the driver as the DaemonSet does (both sockets, the health port; no TLS port: that needs a
# certificate, and its classes load after the driver serves), waits until it serves, asks Probe on
# its CSI socket, and stops it; the JVM writes the archive as it exits.
set -eu
entry="$1"
home="$2"
archive="$home/thinvol-driver.jsa"
dir="$(mktemp -d)"
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
rm -f "$archive"
export THINVOL_HOME="$home"
# -Xlog: the classes it cannot archive (picocli's, compiled for Java 5) are no news.
JAVA_OPTS="-XX:ArchiveClassesAtExit=$archive -Xlog:cds*=error -Djna.tmpdir=$dir" "$entry" driver \
  --csi-endpoint="unix://$dir/csi.sock" --addons-endpoint="unix://$dir/csi-addons.sock" \
  --addons-port=0 --http-port="${CLASS_DATA_HTTP_PORT:-9808}" --driver-name=class-data.thinvol.io \
  --node-id=class-data --data-dir="$dir/data" >"$dir/driver.log" 2>&1 &
pid=$!
"$entry" driver probe --csi-endpoint="unix://$dir/csi.sock" --timeout=120 >/dev/null
# The health port is served last (a taken port is only logged).
i=0
until grep -q -e 'health and metrics on' -e 'is taken by another process' "$dir/driver.log"; do
  i=$((i + 1))
  if [ "$i" -gt 1200 ] || ! kill -0 "$pid" 2>/dev/null; then
    cat "$dir/driver.log" >&2
    exit 1
  fi
  sleep 0.1
done
kill -TERM "$pid"
wait "$pid" || true # 143: stopped by SIGTERM, as intended
pid=""
if [ ! -s "$archive" ]; then
  cat "$dir/driver.log" >&2
  echo "class-data.sh: no archive written to $archive" >&2
  exit 1
fi
