#!/usr/bin/env bash
# Call D: bench/run.sh with f16x3 the default (bench/prepare.sh's bundles),
# against the cond-free torch port at its fastest B, in one call; then the
# session bench's medians, 3xTF32 (.gpudata/f16/*-tf32.pcb, the same
# compiler with --policy-matmul tf32x3) against 3xF16 at B = 8192, 4096
# and 256, three rounds; cold compiles (an empty kernel cache each).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5 2>&1 | tail -40
echo "bench at $(( $(date +%s) - t0 )) s"
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
for r in 1 2 3; do for b in 8192 4096 256; do
  call_session_median $N/bin/proofc-session-bench .gpudata/f16/v10-b$b-tf32.pcb "tf32 b$b r$r"
  call_session_median $N/bin/proofc-session-bench .gpudata/bundles/v10-b$b.pcb "f16 b$b r$r"
done; done
rm -f $OUT/sb-*.json
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for r in 1 2; do for v in f16/v10-b8192-tf32 bundles/v10-b8192; do
  PROOFC_CACHE_DIR=$(mktemp -d) $N/bin/proofc-run .gpudata/$v.pcb $W --device cuda 2>&1 | grep -E "^time" | sed "s|^|cold $v r$r: |"
done; done
echo "all $(( $(date +%s) - t0 )) s"
