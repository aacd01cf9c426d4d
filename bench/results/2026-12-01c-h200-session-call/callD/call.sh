#!/usr/bin/env bash
# Call D: fold_atom_layer alone (bench/proto/fold_atom_layer.cu), the FP64
# tensor-core kernel's fill: "mma" = the tree's (call C: 312 us, 15 %
# occupancy, its fill a loop of dependent loads); m1 = mma with the fill
# a feature a thread, rows unrolled by 8 (loads in flight); m2 = m1 with
# W's tile as floats in shared memory (widened at each fragment read:
# 26.9 KB a block, 8 blocks an SM); m3 = m2 with 4 warps a block
# (.gpudata/fal/<v>/); "old" = 0dc09bd's FMA kernel. Two rounds, table
# hashes compared; Nsight Compute on m1 and m2.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
O=.gpudata/oldtree
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-mma > /tmp/nvcc-mma.log 2>&1 &
nvcc -O3 -arch=sm_90 -I $O/runtime/src/cuda/kernels $O/bench/proto/fold_atom_layer.cu -o /tmp/fal-old > /tmp/nvcc-old.log 2>&1 &
for v in m1 m2 m3; do nvcc -O3 -arch=sm_90 -I .gpudata/fal/$v bench/proto/fold_atom_layer.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 & done
wait
for round in 1 2; do for v in old mma m1 m2 m3; do echo "r$round $v $(/tmp/fal-$v)"; done; done
for v in m1 m2; do
  ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats -k proofc_prologue_fold_atom_layer -c 1 /tmp/fal-$v > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "Duration|Compute \(SM\)|Achieved Occupancy|highest-utilized|Stall|Warp Cycles Per Issued" $OUT/ncu-$v.txt | head -10
done
echo "all $(( $(date +%s) - t0 )) s"
