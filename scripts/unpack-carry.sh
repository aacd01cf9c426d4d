#!/usr/bin/env bash
# Run ON the GPU machine (scripts/gpu-build.sh runs it first): unpacks each
# .carry/<name>.tar.gz that scripts/pack-carry.sh wrote here into the
# repository root as .<name>/, replacing what an earlier call left there
# when the archive is newer. Does nothing without .carry.
#   scripts/unpack-carry.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -d .carry ] || exit 0
for archive in .carry/*.tar.gz; do
  [ -e "$archive" ] || continue
  name=$(basename "$archive" .tar.gz)
  folder=.$name
  # The stamp records which archive the folder came from: a folder newer
  # than its archive can still be an older call's.
  stamp=$folder/.unpacked-from
  sum=$(cksum < "$archive")
  if [ -d "$folder" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    continue
  fi
  rm -rf "$folder"
  tar -xzf "$archive" ||
    { echo "unpack-carry: cannot unpack $archive" >&2; rm -rf "$folder"; exit 1; }
  [ -d "$folder" ] ||
    { echo "unpack-carry: $archive holds no $folder/" >&2; exit 1; }
  echo "$sum" > "$stamp"
done
