#!/usr/bin/env bash
# Run HERE before bench/scale-out/run.sh's calls: fills the git-ignored
# folder a call needs beside .deps for a whole-split workload and packs the
# two, alone, into .carry/ (scripts/pack-carry.sh --only), V10 at
# B=16384 (examples/v10.mlir, `proofc compile --slots 16384`; 4096 before
# issue 29, whose q700 sweep measured 5 % less GPU run at 16384 and none
# more at 32768 or 65536):
#   fb15k-237 (default)  .fbdata/: fb15k-237's data, seed-0 random weights
#                        (`proofc init-weights`: fb15k-237 has no trained
#                        policy) and the bundle
#   wn18rr               .gpudata/ (scripts/prepare-gpu-run.sh wn18rr): the
#                        data and the shipped trained policy
#                        (../shared/weights/wn18rr.safetensors), and the
#                        bundle as .gpudata/bundles/v10-b16384.pcb
# Usage: bench/scale-out/prepare.sh [fb15k-237|wn18rr]   (WORKLOAD of run.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${PROOFC_SHARED_DIR:-$root/../shared}
build=${PROOFC_BUILD_DIR:-$root/build}
proofc=$build/bin/proofc
workload=${1:-fb15k-237}
case $workload in
  fb15k-237)
    dest=$root/.fbdata
    rm -rf "$dest" && mkdir -p "$dest/data" "$dest/weights" "$dest/bundles"
    cp -r "$shared/data/fb15k-237" "$dest/data/" && chmod -R u+w "$dest/data"
    "$proofc" init-weights "$root/examples/v10.mlir" --data "$dest/data/fb15k-237" --seed 0 \
      -o "$dest/weights/fb15k-237-random.safetensors" > /dev/null ;;
  wn18rr)
    dest=$root/.gpudata
    PROOFC_BUILD_DIR=$build PROOFC_SHARED_DIR=$shared PROOFC_PACK_CARRY=0 \
      "$root/scripts/prepare-gpu-run.sh" wn18rr > /dev/null ;;
  *) echo "prepare.sh: unknown workload '$workload' (fb15k-237 or wn18rr)" >&2; exit 2 ;;
esac
"$proofc" compile "$root/examples/v10.mlir" --slots 16384 -o "$dest/bundles/v10-b16384.pcb"
[ -d "$root/.deps" ] || "$root/scripts/make-deps.sh"
du -sh "$dest" "$root/.deps"
# What the call carries: [".carry"] (scripts/pack-carry.sh).
"$root/scripts/pack-carry.sh" --only .deps "${dest#$root/}"
