#!/usr/bin/env bash
# Call I: row 37 as landed: the GPU tests (scripts/gpu-check.sh, carrying
# .gpudata from scripts/prepare-gpu-run.sh without wn18rr, then
# bench/prepare.sh with BENCH_BATCHES="256 4096" BENCH_LARGE=kinship), then
# the bench with the torch port at B = 256 and 4096 in the same call.
set -uo pipefail
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
bash bench/run.sh --no-large --no-memo-off --batches 256,4096 --torch-variants nocond --repeats 5
echo "all $(( $(date +%s) - t0 )) s"
