#!/usr/bin/env bash
# Call C: the fold_atom_layer kernel alone (bench/proto/fold_atom_layer.cu,
# kinship's shape, random tables), each variant's prologue.cu copied under
# .gpudata/fal/: a = 6ab008d's; b = call B's (inputs widened once, two
# outputs a thread); c = b with the fill's loads all issued first; d = c at
# 256 threads and 4 rows a thread; e = c with one output and 16 rows a
# thread. Two rounds interleaved, the table's hash compared; Nsight
# Compute's speed of light and warp states on c.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L | tee $OUT/gpu.txt
for v in a b c d e; do nvcc -O3 -arch=sm_90 -Xptxas -v -I .gpudata/fal/$v bench/proto/fold_atom_layer.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 || { echo "nvcc $v failed"; tail -5 /tmp/nvcc-$v.log; }; echo "$v: $(grep -A2 "fold_atom_layer' for" /tmp/nvcc-$v.log | tail -1)"; done
for round in 1 2; do for v in a b c d e; do echo "r$round $v $(/tmp/fal-$v)"; done; done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in a c; do
  [ -n "$NCU" ] && $NCU --section SpeedOfLight --section WarpStateStats --section Occupancy --section ComputeWorkloadAnalysis -k proofc_prologue_fold_atom_layer -c 1 /tmp/fal-$v > $OUT/ncu-$v.txt 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Stall|Issue Slots Busy|Warp Cycles Per Issued|Block Limit" $OUT/ncu-$v.txt | head -30
done
