#!/usr/bin/env bash
# The rollout benchmark (issue 27, deliverable 4): proofc's sampled
# rollouts against the PyTorch port's (bench/torch's engine with
# proofc.torch.Policy, as examples/train_loop.py ran them before issue 27)
# on kinship with the trained weights, the same batches (64 train triples +
# 64 corruptions, 4 episodes each: 512 episodes a call), one process, one
# table (bench/rollouts/rollouts_bench.py says how each number is taken).
# Writes $OUT/rollouts-bench.json and $OUT/rollouts-bench.md.
#
#   bench/rollouts/run.sh               ON the GPU machine after
#                                       bench/prepare.sh here (carry .deps
#                                       and .gpudata; BENCH_BATCHES=256 is
#                                       enough): builds the Python package
#                                       runtime-only with scripts/gpu-build.sh,
#                                       bundle and data from .gpudata
#   bench/rollouts/run.sh --device cpu  here, without a GPU: proofc on the
#                                       host backend and the port on the CPU,
#                                       from the build tree (PROOFC_BUILD_DIR,
#                                       default build/, proofc_python built)
#
# Environment: ROLLOUT_BENCH_CALLS (10), ROLLOUT_BENCH_TRIPLES (64),
# BENCH_WORK (scratch, default /tmp/proofc-rollouts-bench), OUT, PYTHON.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. bench/common.sh
bench_device "bench/rollouts/run.sh [--device cpu|cuda]" "$@"
bench_dirs rollouts
calls=${ROLLOUT_BENCH_CALLS:-10}
triples=${ROLLOUT_BENCH_TRIPLES:-64}
python=${PYTHON:-python3}
bench_python_package "$work/build-python.log"
if [ "$device" = cuda ]; then
  program=.gpudata/bundles/v10-b256.pcb
  data=.gpudata/data/kinship
  weights=.gpudata/weights/kinship.safetensors
  torch_device=cuda
else
  shared=${PROOFC_SHARED_DIR:-$root/../shared}
  program=examples/v10.mlir
  data=$shared/data/kinship
  weights=$shared/weights/kinship.safetensors
  torch_device=cpu
fi
PYTHONPATH="$build/python" PROOFC_BIN_DIR="$build/bin" "$python" \
  bench/rollouts/rollouts_bench.py "$program" "$data" "$weights" \
  --device "$device" --torch-device "$torch_device" --calls "$calls" \
  --triples "$triples" --json "$out/rollouts-bench.json" |
  tee "$out/rollouts-bench.md"
