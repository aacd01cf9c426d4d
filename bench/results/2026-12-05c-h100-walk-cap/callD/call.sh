#!/usr/bin/env bash
# Call D (one H100): scripts/gpu-check.sh on the walk cap as built: the GPU
# suites, the compiled bundles of test/compiled-bundles.txt (bench/prepare.sh
# compiled them with this tree) against the host, CUPTI's graph calls.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
R=/tmp/chk; rm -rf $R; mkdir -p $R
OUT=$R/check JOBS=16 timeout 540 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
echo "gpu-check rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "PASSED|SKIPPED|FAILED|gpu-check|cupti" $R/gpu-check.txt | head -30
