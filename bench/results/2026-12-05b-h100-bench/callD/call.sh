#!/usr/bin/env bash
# Call D (one H100): call B found the cond-free torch port fastest at
# B = 2048 on this card (4096 on the H200s); is 1024 faster still? The
# port at 1024 and 2048 against proofc at 4096 and 12288 in the same run.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
BENCH_BUDGET_S=400 bash bench/run.sh --no-large --no-memo-off --batches 4096,12288 --torch-batches 1024,2048 --torch-variants nocond --repeats 5 2>&1 | tail -22
echo "all $(( $(date +%s) - t0 )) s"
