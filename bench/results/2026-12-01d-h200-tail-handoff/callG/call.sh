#!/usr/bin/env bash
# Call G: bench/run.sh with the tail hand-off (bench/prepare.sh's bundles,
# compiled here: B = 8192's with tail-handoff auto, 264), against the
# cond-free torch port at its fastest B, in one call.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -40
ls $OUT
echo "all $(( $(date +%s) - t0 )) s"
