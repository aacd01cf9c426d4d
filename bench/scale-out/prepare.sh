#!/usr/bin/env bash
# Run HERE before bench/scale-out/run.sh's calls: fills .fbdata/ (git-ignored,
# carried with .deps): fb15k-237's data, seed-0 random weights
# (`proofc init-weights`: fb15k-237 has no trained policy) and
# examples/v10.mlir compiled at B=4096.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PROOFC_SHARED_DIR:-$root/../shared}
proofc=${PROOFC_BUILD_DIR:-$root/build}/bin/proofc
dest=$root/.fbdata
rm -rf "$dest" && mkdir -p "$dest/data" "$dest/weights" "$dest/bundles"
cp -r "$shared/data/fb15k-237" "$dest/data/" && chmod -R u+w "$dest/data"
"$proofc" init-weights "$root/examples/v10.mlir" --data "$dest/data/fb15k-237" --seed 0 \
  -o "$dest/weights/fb15k-237-random.safetensors" > /dev/null
"$proofc" compile "$root/examples/v10.mlir" --slots 4096 -o "$dest/bundles/v10-b4096.pcb"
[ -d "$root/.deps" ] || "$root/scripts/make-deps.sh"
du -sh "$dest" "$root/.deps"
