#!/bin/sh
# mmdebstrap's extract hook for the operator's base (build-local.sh): the packages were unpacked
# into ROOT without dpkg (no maintainer scripts, nothing but their files). Keeps what a program
# needs, drops what none of the image's programs reads, and records the packages.
#   extracted-root.sh ROOT
set -eu
root="$1"
# Documentation (but each package's copyright), manuals, translations, glibc's iconv modules.
find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
  "$root/usr/share/lintian" "$root"/usr/lib/*/gconv
# The dynamic linker's cache, which libc6's trigger would have made.
ldconfig -r "$root"
# dpkg's record of the packages, so that `dpkg -l` and image scanners see them.
mkdir -p "$root/var/lib/dpkg"
for deb in "$root"/var/cache/apt/archives/*.deb; do
  dpkg-deb --field "$deb" | sed '1a Status: install ok installed'
  echo
done >"$root/var/lib/dpkg/status"
