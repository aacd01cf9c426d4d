#!/usr/bin/env bash
# Call A: bench/run.sh on 391e113 on one H100 (the card; every
# V10 ratio since 2026-11-29 was measured on H200s): B = 256, 4096, 8192
# and 12288, the cond-free torch port at its fastest B (4096) in the same
# call.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192,12288 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -30
echo "all $(( $(date +%s) - t0 )) s"
