#!/usr/bin/env bash
# Call E: the bench with B = 8192 added, on row 38 as committed (the
# fastest B of calls C-D), the torch port at the same three B: each side at
# its fastest B in one call. .gpudata from scripts/prepare-gpu-run.sh
# (without wn18rr) and bench/prepare.sh with BENCH_BATCHES="256 4096 8192"
# BENCH_LARGE=kinship.
set -uo pipefail
t0=$(date +%s)
nvidia-smi -L | tee $OUT/gpu.txt
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 256,4096,8192 --torch-variants nocond --repeats 5
echo "all $(( $(date +%s) - t0 )) s"
