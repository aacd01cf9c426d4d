#!/usr/bin/env bash
# Run HERE (the machine with MLIR and the full build) before a bench call to
# the GPU machine. Fills the git-ignored folders the call carries:
#   .deps/                          header-only deps (scripts/make-deps.sh)
#   .gpudata/data/kinship/          the V10 workload's data and trained weights
#   .gpudata/bundles/v10-b<B>.pcb   examples/v10.mlir compiled with B slots,
#                                   for each B of BENCH_BATCHES
#                                   (`proofc compile --slots B`)
#   .gpudata/data/fb15k-237.tar.gz  the large workload (largest dataset with rules),
#                                   packed; bench/run.sh unpacks it
#   .gpudata/weights/fb15k-237-random.safetensors
#                                   `proofc init-weights --seed 0`: fb15k-237 has no
#                                   trained policy, so the large workload runs
#                                   with random weights
#   .gpudata/bench-manifest.json    what was prepared (read by bench/bench.py)
# and packs .deps and .gpudata into .carry/ (scripts/pack-carry.sh), failing
# when they and the tree reach the 64 MiB a call can carry: the call
# carries [".carry"].
# Usage: bench/prepare.sh
# Environment: PROOFC_BUILD_DIR (default build/; needs bin/proofc),
# PROOFC_SHARED_DIR (default ../shared), BENCH_BATCHES (default "256 1024 4096 8192 12288 14336"),
# BENCH_LARGE (default fb15k-237).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${PROOFC_SHARED_DIR:-$root/../shared}
build=${PROOFC_BUILD_DIR:-$root/build}
proofc=$build/bin/proofc
dest=$root/.gpudata
batches=(${BENCH_BATCHES:-256 1024 4096 8192 12288 14336})
large=${BENCH_LARGE:-fb15k-237}
program=$root/examples/v10.mlir

[ -x "$proofc" ] || { echo "prepare: $proofc not found (build it, or set PROOFC_BUILD_DIR)" >&2; exit 1; }
# kinship data + weights, .deps, and bundles/v10.pcb (the agreement scripts' bundle).
PROOFC_BUILD_DIR=$build PROOFC_SHARED_DIR=$shared PROOFC_PACK_CARRY=0 \
  "$root/scripts/prepare-gpu-run.sh" kinship > /dev/null

# One bundle per B: the program sets B once and --slots overrides it.
bundles=()
for B in "${batches[@]}"; do
  [[ "$B" =~ ^[1-9][0-9]*$ ]] || { echo "prepare: BENCH_BATCHES: '$B' is not a positive integer" >&2; exit 1; }
  "$proofc" compile "$program" --slots "$B" -o "$dest/bundles/v10-b$B.pcb"
  bundles+=("\"$B\": \"bundles/v10-b$B.pcb\"")
done

# The large workload: data and seed-0 random weights. Its data is packed
# straight from the shared folder (fb15k-237's 27 MB of TSV: 3.9 MB), since
# the tree, .deps and the data no longer fit a call's 64 MiB unpacked;
# run.sh unpacks it. Kinship as the large workload is there already,
# unpacked: V10 reads it.
rm -f "$dest/data/"*.tar.gz # an earlier run's, which run.sh would unpack
if [ "$large" != kinship ]; then
  rm -rf "$dest/data/$large"
  tar -czf "$dest/data/$large.tar.gz" --mode=u+w -C "$shared/data" "$large"
fi
"$proofc" init-weights "$program" --data "$shared/data/$large" --seed 0 \
  -o "$dest/weights/$large-random.safetensors" > /dev/null
if [ -f "$shared/weights/$large.safetensors" ]; then
  echo "prepare: note: $shared/weights/$large.safetensors exists; the bench still uses random weights" >&2
fi

joined=$(IFS=,; echo "${bundles[*]}")
# The commit the bundles and the carried tree come from (the GPU machine's
# copy may not carry this repository's history); "+dirty" for local changes.
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$root" status --porcelain 2>/dev/null)" ] || commit="$commit+dirty"
cat > "$dest/bench-manifest.json" <<EOF
{
  "schema": "proofc-bench-manifest", "version": 1,
  "v10": {"dataset": "kinship", "data": "data/kinship", "weights": "weights/kinship.safetensors",
          "weights_kind": "trained", "bundles": {$joined}},
  "large": {"dataset": "$large", "data": "data/$large", "weights": "weights/$large-random.safetensors",
            "weights_kind": "random (proofc init-weights --seed 0; no trained policy exists)"},
  "prepared_by": "bench/prepare.sh", "proofc": "$proofc", "git": "$commit"
}
EOF

# What a call carries: the tree and the two folders, packed.
"$root/scripts/pack-carry.sh" .deps .gpudata
