#!/usr/bin/env bash
# Call B: the GPU suites (scripts/gpu-check.sh) on the tree with the
# predicated padding reads (Embedding.cpp) and the kernels prefetched as a
# Session opens (ModuleBuilds::prefetch, shared by a device's workers;
# GpuCompileTiers.PrefetchCompilesOnceForEveryWorkerOfTheDevice), .gpudata
# from scripts/prepare-gpu-run.sh with this tree's compiler (its exp/
# bundles and .deps/openmpi.tar.gz left here: the call carries 64 MiB).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
OUT=$OUT/check JOBS=16 timeout 540 scripts/gpu-check.sh > "$OUT/gpu-check.txt" 2>&1
echo "gpu-check rc=$? at $(( $(date +%s) - t0 )) s"
tail -12 "$OUT/gpu-check.txt"
