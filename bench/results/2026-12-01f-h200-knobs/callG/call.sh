#!/usr/bin/env bash
# Call G: bench/run.sh on row 49's tree (bench/prepare.sh's bundles), the
# cond-free torch port at its fastest B (4096) in the same call, as call D
# of bench/results/2026-12-01e-h200-f16x3 ran it for row 48.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -40
echo "all $(( $(date +%s) - t0 )) s"
