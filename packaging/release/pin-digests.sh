#!/usr/bin/env bash
# Pins every image referenced by tag in the release's manifests to the digest the tag points to
# now, so that a disconnected cluster's mirror (which rewrites digest references only) serves them.
#
# Usage, from the repository root, after regenerating the generated files and pushing the images:
#   packaging/release/pin-digests.sh [FILE...]
# Default files: the bundle's ClusterServiceVersion and the chart's values.yaml. Image references
# are registry/repository:tag tokens (in the CSV: containerImage, the Deployment's image, the
# RELATED_IMAGE_* variables, the driver's image among them, and relatedImages; in the chart:
# relatedImages).
#
# Every digest is resolved before any file changes; a tag that cannot be resolved leaves every
# file as it was. PIN_DIGESTS_RESOLVER names a command that prints an image's digest
# (sha256:<64 hex>) given the image; by default `skopeo inspect` asks the registry.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  set -- bundle/manifests/thinvol.clusterserviceversion.yaml charts/thinvol/values.yaml
fi

skopeo_digest() {
  skopeo inspect --format '{{.Digest}}' "docker://$1"
}
resolver="${PIN_DIGESTS_RESOLVER:-skopeo_digest}"

# host (with a dot or a port) / path : tag, standing alone between spaces, quotes or line ends.
reference='[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]+)?(/[a-z0-9._-]+)+:[A-Za-z0-9_][A-Za-z0-9._-]{0,127}'

mapfile -t images < <(grep -ohE "(^|[[:space:]\"'=])${reference}([[:space:]\"',]|$)" "$@" \
  | grep -oE "${reference}" | sort -u)

declare -A pinned
for image in "${images[@]}"; do
  digest="$("$resolver" "$image")" || {
    echo "pin-digests: cannot resolve $image; no file changed" >&2
    exit 1
  }
  if [[ ! "$digest" =~ ^sha256:[0-9a-f]{64}$ ]]; then
    echo "pin-digests: $image resolved to '$digest', not a sha256 digest; no file changed" >&2
    exit 1
  fi
  pinned["$image"]="${image%:*}@${digest}"
done

for file in "$@"; do
  work="$(mktemp "${file}.XXXXXX")"
  cp "$file" "$work"
  for image in "${images[@]}"; do
    from="$(printf '%s' "$image" | sed 's/[.[\*^$/]/\\&/g')"
    to="$(printf '%s' "${pinned[$image]}" | sed 's/[&/\]/\\&/g')"
    sed -E -i "s/(^|[[:space:]\"'=])${from}([[:space:]\"',]|$)/\1${to}\2/g" "$work"
  done
  chmod --reference="$file" "$work"
  mv "$work" "$file"
  echo "pinned $file"
done
for image in "${images[@]}"; do
  echo "  $image -> ${pinned[$image]}"
done
