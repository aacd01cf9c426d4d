#!/usr/bin/env bash
# Call F: the review's mend (prologue.cu's two fragment kernels share one
# grid-stride loop, fragmentsLoop): the device prologue's tests (its
# f16_fragments and tf32_fragments against the host's, bit for bit) and the
# compiled bundles' GPU tests, on the final tree.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc JOBS=16 bash scripts/gpu-check.sh '*DevicePrologue*:*Compiled*:*Nvrtc*' > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -3 /tmp/gc.out
grep -cE "^\[ +OK" /tmp/gc/tests.log
grep -E "^\[ +(OK|FAILED)" /tmp/gc/tests.log | grep -E "DevicePrologue|FAILED" | head -20
echo "all $(( $(date +%s) - t0 )) s"
