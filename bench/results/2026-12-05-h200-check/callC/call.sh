#!/usr/bin/env bash
# Call C: scripts/gpu-check.sh again, unpacking .carry before it looks for
# the compiled bundles (call A skipped their 10 tests: gpu-check looked for
# .gpudata/bundles before gpu-build.sh unpacked it), on a fresh machine.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
R=/tmp/chk; rm -rf $R; mkdir -p $R
OUT=$R/check JOBS=16 timeout 400 scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
echo "gpu-check rc=$? at $(( $(date +%s) - t0 )) s"
grep -E "PASSED|SKIPPED|FAILED|gpu-check|cupti" $R/gpu-check.txt | head -30
tar -czf "$OUT/check.tar.gz" -C /tmp chk
