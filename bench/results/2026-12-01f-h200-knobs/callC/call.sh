#!/usr/bin/env bash
# Call C: --min-blocks-per-sm 20 against auto's 21 for both matmul forms
# (3xTF32 at 21: 80 registers and 44 bytes of spill stores; at 20: 96 and
# none), V10 at B = 8192 and 4096, session bench medians, three rounds
# interleaved; how many blocks an SM the driver fits of each policy kernel
# (occupancy.py); outcome files of the two caps byte-identical per form.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
python3 bench/results/2026-12-01f-h200-knobs/callC/occupancy.py .gpudata/knob/*.ptx
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for m in tf32x3 f16x3; do
  for v in $m-mb21 $m-mb20 $m-b4096-mb20; do
    $N/bin/proofc-run .gpudata/knob/$v.pcb $W --device cuda --quiet --outcomes /tmp/$v.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; }
    cmp -s /tmp/$v.tsv /tmp/$m-mb21.tsv && echo "$v outcomes byte-identical to $m-mb21" || echo "$v outcomes DIFFER from $m-mb21"
  done
done
for r in 1 2 3; do
  for v in tf32x3-mb21 tf32x3-mb20 f16x3-mb21 f16x3-mb20 tf32x3-b4096-mb21 tf32x3-b4096-mb20 f16x3-b4096-mb21 f16x3-b4096-mb20; do
    call_session_median $N/bin/proofc-session-bench .gpudata/knob/$v.pcb "$v r$r"
  done
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
