#!/usr/bin/env bash
# Run HERE (the machine with MLIR) before a call to the GPU machine: fills the
# git-ignored folders that the call must carry:
#   .deps/     header-only deps + GoogleTest (scripts/make-deps.sh)
#   .gpudata/  data/<name>/ and weights/<name>.safetensors copied from
#              ../shared for the named datasets (the GPU machine does not see
#              ../shared), and bundles/<program>.pcb compiled by `proofc compile`
#              (and <program>-step.pcb, <program>-persistent.pcb: each schedule;
#              and the GPU tests' bundles, test/compiled-bundles.txt),
#              with compiler-sources.sha256: the compiler sources they were
#              compiled from (scripts/check-gpudata-current.sh)
# and packs both into .carry/ (scripts/pack-carry.sh; PROOFC_PACK_CARRY=0
# leaves that to the caller): a call carries [".carry"].
# Usage: scripts/prepare-gpu-run.sh [DATASET...]   (default: what the GPU tests read)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${PROOFC_SHARED_DIR:-$root/../shared}
build=${PROOFC_BUILD_DIR:-$root/build}
dest=$root/.gpudata
datasets=("$@")
# Default: every dataset a GPU unit test reads (scripts/gpu-check.sh; the
# cancel tests run wn18rr with every corruption).
[ ${#datasets[@]} -gt 0 ] ||
  datasets=(countries_s1 countries_s2 countries_s3 family kinship umls nations wn18rr)

[ -d "$root/.deps" ] || "$root/scripts/make-deps.sh"
# The bundles come from this tree's compiler: rebuild it if a source changed.
cmake --build "$build" --target proofc > /dev/null
mkdir -p "$dest/data" "$dest/weights" "$dest/bundles"
# Every bundle is compiled again (bench/prepare.sh adds its own after this
# script): none is left from older compiler sources under the new hash.
rm -f "$dest/bundles/"*.pcb
for name in "${datasets[@]}"; do
  rm -rf "$dest/data/$name"
  cp -r "$shared/data/$name" "$dest/data/$name"
  [ -f "$shared/weights/$name.safetensors" ] &&
    cp "$shared/weights/$name.safetensors" "$dest/weights/"
done
for program in "$root"/examples/*.mlir; do
  name=$(basename "$program" .mlir)
  "$build/bin/proofc" compile "$program" -o "$dest/bundles/$name.pcb"
  # Both proof-loop schedules (the default picks one from B).
  for schedule in step persistent; do
    "$build/bin/proofc" compile "$program" --schedule $schedule \
      -o "$dest/bundles/$name-$schedule.pcb"
  done
done
# The GPU tests' bundles (test/compiled-bundles.txt: a name and the flags a
# line) that the loop above did not already make (scripts/gpu-check.sh runs
# them).
grep -v '^#' "$root/test/compiled-bundles.txt" | while read -r name flags; do
  [ -f "$dest/bundles/$name" ] ||
    "$build/bin/proofc" compile "$root/examples/v10.mlir" $flags \
      -o "$dest/bundles/$name"
done
# What the GPU machine's scripts check the bundles against
# (scripts/check-gpudata-current.sh).
"$root/scripts/compiler-sources-hash.sh" > "$dest/compiler-sources.sha256"
du -sh "$dest" "$root/.deps"
[ "${PROOFC_PACK_CARRY:-1}" = 0 ] || "$root/scripts/pack-carry.sh" .deps .gpudata
