#!/usr/bin/env bash
# Call B: on call A's better policy cap (--min-blocks-per-sm 20, V10 at
# B = 8192, 3xF16), the advance-engine's knobs once more: its register cap
# (none by default below B = 16384; 128, 96, 80, 64), 64 threads instead
# of 32, and the memo's waits (2 by default; 1, 4). Session bench medians,
# three rounds interleaved; outcome files against mb20's.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
V="mb20 mb20-er128 mb20-er96 mb20-er80 mb20-er64 mb20-et64 mb20-w1 mb20-w4"
for v in $V; do
  $N/bin/proofc-run .gpudata/knob/$v.pcb $W --device cuda --quiet --outcomes /tmp/$v.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; }
  cmp -s /tmp/$v.tsv /tmp/mb20.tsv && echo "$v outcomes byte-identical to mb20" || echo "$v outcomes DIFFER"
done
for r in 1 2 3; do
  for v in $V; do
    call_session_median $N/bin/proofc-session-bench .gpudata/knob/$v.pcb "$v r$r"
  done
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
