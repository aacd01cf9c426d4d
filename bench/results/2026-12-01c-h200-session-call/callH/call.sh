#!/usr/bin/env bash
# Call H: do sm_90's longer FP64 tensor-core steps sum as the host does?
# bench/proto/dmma_order.cu (m8n8k4 as in call B, then m16n8k4, k8 and k16
# against the ascending FMA chain over all their products); and the fold
# with them (.gpudata/fal/q8, q16: row 45's kernel with an m16n8k8 or
# m16n8k16 step, a warp's 16 rows one A tile) against row 45's, alone,
# two rounds, table hashes compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
nvcc -O3 -arch=sm_90 bench/proto/dmma_order.cu -o /tmp/dmma > /tmp/nvcc-dmma.log 2>&1 &
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-r45 > /tmp/nvcc-r45.log 2>&1 &
for v in q8 q16; do nvcc -O3 -arch=sm_90 -I .gpudata/fal/$v bench/proto/fold_atom_layer.cu -o /tmp/fal-$v > /tmp/nvcc-$v.log 2>&1 & done
wait
/tmp/dmma
for round in 1 2; do for v in r45 q8 q16; do echo "r$round $v $(/tmp/fal-$v)"; done; done
echo "all $(( $(date +%s) - t0 )) s"
