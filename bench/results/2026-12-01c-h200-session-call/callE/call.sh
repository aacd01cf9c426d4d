#!/usr/bin/env bash
# Call E: fold_atom_layer alone, call D's m2 (the FP64 tensor core, W's
# tile as floats, 2 warps a block: 182 us) against: m3 (4 warps a block,
# as call D), m5 = m3 capped at 96 registers (__launch_bounds__(128, 5):
# 5 blocks, 20 warps an SM), m10 and m11 = m2 with the grid capped at 1056
# and 2112 blocks instead of 8192 (fewer blocks each loading and widening
# W's tile). "mma" = the tree's kernel. Two rounds, table hashes compared;
# Nsight Compute on m5.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
O=.gpudata/oldtree
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-mma > /tmp/nvcc-mma.log 2>&1 &
nvcc -O3 -arch=sm_90 -I $O/runtime/src/cuda/kernels $O/bench/proto/fold_atom_layer.cu -o /tmp/fal-old > /tmp/nvcc-old.log 2>&1 &
for v in m2 m3 m5 m10 m11; do nvcc -O3 -arch=sm_90 -I .gpudata/fal/$v bench/proto/fold_atom_layer.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 & done
wait
for round in 1 2; do for v in mma m2 m3 m5 m10 m11; do echo "r$round $v $(/tmp/fal-$v)"; done; done
for v in m5; do
  ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats -k proofc_prologue_fold_atom_layer -c 1 /tmp/fal-$v > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "Duration|Compute \(SM\)|Achieved Occupancy|highest-utilized|Stall|Warp Cycles Per Issued" $OUT/ncu-$v.txt | head -10
done
echo "all $(( $(date +%s) - t0 )) s"
