#!/usr/bin/env bash
# Call C: the GPU suites (scripts/gpu-check.sh, with its new run of two
# workers under CUPTI's injection) on the tree with the kernels prefetched
# at open and graph instantiation serialized (CudaDriver::instantiateGraph);
# .gpudata from scripts/prepare-gpu-run.sh with this tree's compiler (its
# exp/ bundles and .deps/openmpi.tar.gz left here: the call carries 64 MiB).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
OUT=$OUT/check JOBS=16 timeout 560 scripts/gpu-check.sh > "$OUT/gpu-check.txt" 2>&1
echo "gpu-check rc=$? at $(( $(date +%s) - t0 )) s"
tail -8 "$OUT/gpu-check.txt"
