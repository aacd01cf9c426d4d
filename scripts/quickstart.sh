#!/usr/bin/env bash
# The main job on a fresh machine: install, build, then evaluate the bundled
# V10 program on kinship (test split, first 100 queries, 100 corruptions, both
# modes) with the trained policy from ../shared/weights, on the CPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${PROOFC_SHARED_DIR:-$root/../shared}
build=${PROOFC_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
mkdir -p "$root/out"
"$build/bin/proofc" run "$root/examples/v10.mlir" \
  --data "$shared/data/kinship" --weights "$shared/weights/kinship.safetensors" \
  --queries 100 --corruptions 100 --device "${PROOFC_DEVICE:-cpu}" \
  --report "$root/out/kinship-v10.json" --outcomes "$root/out/kinship-v10.tsv" "$@"
echo "report: out/kinship-v10.json, outcomes: out/kinship-v10.tsv"
