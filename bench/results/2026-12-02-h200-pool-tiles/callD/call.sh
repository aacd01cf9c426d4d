#!/usr/bin/env bash
# Call D: call C found every repeat after a fresh machine's first one 10x
# faster (NVRTC 0.03-0.14 s a module against 0.9-1.3 s), also in new
# processes: a compile cache outside the process. Where it is, and the
# compiles with the driver's compute cache disabled (CUDA_CACHE_DISABLE=1)
# and pointed at an empty folder (CUDA_CACHE_PATH), three repeats each.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
ls -la ~/.nv 2>&1 | head; du -sh ~/.nv/* 2>/dev/null
find / -xdev -newer $0 -type f \( -path '*ComputeCache*' -o -path '*nvrtc*' -o -path '*.cache*' \) 2>/dev/null | grep -v '^/proc' | head -20
b=v10-b8192
echo "== $b parallel, CUDA_CACHE_DISABLE=1"
CUDA_CACHE_DISABLE=1 python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 2>&1 | tail -3
echo "== $b serial, CUDA_CACHE_DISABLE=1"
CUDA_CACHE_DISABLE=1 python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 --serial 2>&1 | tail -3
echo "== $b processes, CUDA_CACHE_DISABLE=1"
CUDA_CACHE_DISABLE=1 python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 3 --processes 2>&1 | tail -3
echo "== $b parallel, empty CUDA_CACHE_PATH"
CUDA_CACHE_PATH=/tmp/emptycache python3 bench/proto/cold_compile.py .gpudata/bundles/$b.pcb --repeats 2 2>&1 | tail -2
ls -la /tmp/emptycache 2>&1 | head -5
