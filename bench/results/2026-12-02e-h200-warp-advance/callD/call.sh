#!/usr/bin/env bash
# Call D: 174407d (the advance by a warp) as landed. 1. bench/run.sh
# (bench/prepare.sh's bundles at B = 256, 8192 and 12288, the fastest B
# since the warp's advance, call C), the cond-free torch port at its
# fastest B (4096) in the same call. 2. The GPU suites
# (scripts/gpu-check.sh, the bundles of scripts/prepare-gpu-run.sh), their
# summary and failures.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
BENCH_BUDGET_S=200 bash bench/run.sh --no-large --no-memo-off --batches 256,8192,12288 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -22
echo "bench at $(( $(date +%s) - t0 )) s"
OUT=/tmp/gc timeout $(( 590 - ($(date +%s) - t0) )) scripts/gpu-check.sh > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -8 /tmp/gc.txt
grep -E 'FAILED' /tmp/gc/tests.log | head -20
cp /tmp/gc/failures.log $OUT/ 2>/dev/null
tar -czf $OUT/check.tar.gz -C /tmp/gc . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
