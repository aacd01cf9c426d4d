#!/usr/bin/env bash
# Call E (one H100): the headline with both sides bracketed in one run:
# proofc at 4096, 8192, 12288 and 14336 (bench/prepare.sh now makes
# 14336's bundle), the cond-free torch port at 1024, 2048 and 4096 (calls
# B and D: fastest at 2048 on this card); the bench's new note says when a
# side's fastest B is at the edge of those it ran.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
bash bench/run.sh --no-large --no-memo-off --batches 4096,8192,12288,14336 --torch-batches 1024,2048,4096 --torch-variants nocond --repeats 5 2>&1 | tail -26
echo "all $(( $(date +%s) - t0 )) s"
