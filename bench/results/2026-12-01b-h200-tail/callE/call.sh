#!/usr/bin/env bash
# Call E: fold_atom_layer alone (bench/proto/fold_atom_layer.cu): a, b, h as
# in call D; i = b with a whole tile's pair loop unrolled by 4 (int
# indices); j = i at 4 outputs x 4 rows. Two rounds interleaved, hashes
# compared; Nsight Compute on i and j.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee $OUT/gpu.txt
for v in a b h i j; do nvcc -O3 -arch=sm_90 -Xptxas -v -I .gpudata/fal/$v bench/proto/fold_atom_layer.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 || { echo "nvcc $v failed"; tail -5 /tmp/nvcc-$v.log; }; done
for round in 1 2; do for v in a b h i j; do echo "r$round $v $(/tmp/fal-$v)"; done; done
for v in i j; do
  ncu --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --metrics smsp__inst_executed_pipe_fp64.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum -k proofc_prologue_fold_atom_layer -c 1 /tmp/fal-$v > $OUT/ncu-$v.txt 2>&1
  echo "== $v"; grep -E "Duration|Compute \(SM\)|L1/TEX Cache|Achieved Occupancy|highest-utilized|fp64|wavefronts|inst_executed.sum" $OUT/ncu-$v.txt | head -12
done
