#!/usr/bin/env bash
# Call I: row 46, the fold's step as mma.sync.m16n8k16 (sm_90; four m8n8k4
# steps on sm_80-89), which call H found to sum in ascending order like
# m8n8k4. The fold alone: the tree's against row 45's (.gpudata/fal/r45:
# 6ae81cd's prologue.cu) and 0dc09bd's (.gpudata/oldtree), two rounds,
# table hashes compared; the GPU tests (scripts/gpu-check.sh, with the
# premise test for both steps); the session bench at B = 8192 and 256
# against 0dc09bd's runtime (built beside the tests), each call's MRR
# compared (bench/proto/session_compare.py).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
O=.gpudata/oldtree
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-r46 > /tmp/nvcc-r46.log 2>&1 &
nvcc -O3 -arch=sm_90 -I .gpudata/fal/r45 bench/proto/fold_atom_layer.cu -o /tmp/fal-r45 > /tmp/nvcc-r45.log 2>&1 &
nvcc -O3 -arch=sm_90 -I $O/runtime/src/cuda/kernels $O/bench/proto/fold_atom_layer.cu -o /tmp/fal-old > /tmp/nvcc-old.log 2>&1 &
wait
for round in 1 2; do for v in r46 r45 old; do echo "r$round $v $(/tmp/fal-$v)"; done; done
ln -sfn $PWD/.deps $O/.deps
mkdir -p $OUT/old
(cd $O && JOBS=6 OUT=$OUT/old call_build build-gpu-device proofc-session-bench) > /tmp/old-build.out 2>&1 &
OUT=/tmp/gc JOBS=10 bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "GpuDevicePrologue|GpuSession" /tmp/gc/tests.log | grep -E "^\[ +(OK|FAILED|SKIPPED)" | head -24
wait; cat /tmp/old-build.out
call_build build-gpu-device proofc-session-bench
for b in 8192 256; do for v in new old; do
  [ $v = old ] && sb=$O/build-gpu-device/bin/proofc-session-bench || sb=build-gpu-device/bin/proofc-session-bench
  call_session_median $sb .gpudata/r43/v10-b$b.pcb "$v B$b r1"
done; done
python3 bench/proto/session_compare.py $OUT B8192-r1 B256-r1
echo "all $(( $(date +%s) - t0 )) s"
