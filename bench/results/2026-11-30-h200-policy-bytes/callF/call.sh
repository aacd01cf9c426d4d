#!/usr/bin/env bash
# Rows 34-35 (a folded row's atoms shared by its threads; the arrivals' release adds):
# the GPU tests, then the bench's V10 rows against the cond-free torch port in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$OUT/r; mkdir -p $R
nvidia-smi -L | tee $R/gpu.txt
t0=$(date +%s)
OUT=$R/check JOBS=16 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1; echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s"
tail -4 $R/gpu-check.txt
OUT=$R BENCH_BUDGET_S=$(( 560 - ($(date +%s) - t0) )) bench/run.sh --no-large --no-memo-off --batches 256,4096 --torch-variants nocond 2>&1 | tail -25
tar czf $OUT/r.tgz -C $OUT r
echo "done $(( $(date +%s) - t0 )) s"
