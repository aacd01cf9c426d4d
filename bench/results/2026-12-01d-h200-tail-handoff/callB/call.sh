#!/usr/bin/env bash
# Call B: the tail hand-off's prototype (bench/results/2026-12-01d-h200-tail-handoff/tail_handoff_bundle.py:
# the step bundle at B = 8192 plus the persistent kernel of the same B,
# launched once after the loop on the slots still listed; the advance
# module with -DPROOFC_TAIL_HANDOFF=T). This tree's runtime (the plan's
# "tail"). Outcomes against the step bundle without the hand-off (native,
# and emulated and host conds at one T); session bench medians, two
# rounds; one CUPTI timeline at each T.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
run() { $N/bin/proofc-run $1 $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes $2 "${@:3}" > /tmp/run.err 2>&1 || { echo "run $1 $3 failed"; tail -3 /tmp/run.err; }; }
run .gpudata/th/step-8192.pcb /tmp/o-step.tsv
for T in 128 264 528 1024; do
  run .gpudata/th/tail-8192-t$T.pcb /tmp/o-t$T.tsv
  cmp -s /tmp/o-t$T.tsv /tmp/o-step.tsv && echo "T=$T outcomes byte-identical to the step bundle's" || echo "T=$T outcomes DIFFER"
done
for c in emulated host; do
  run .gpudata/th/tail-8192-t264.pcb /tmp/o-t264-$c.tsv --cond $c
  cmp -s /tmp/o-t264-$c.tsv /tmp/o-step.tsv && echo "T=264 --cond $c outcomes byte-identical" || echo "T=264 --cond $c outcomes DIFFER"
done
for r in 1 2; do
  call_session_median $N/bin/proofc-session-bench .gpudata/th/step-8192.pcb "step r$r"
  for T in 128 264 528 1024; do
    call_session_median $N/bin/proofc-session-bench .gpudata/th/tail-8192-t$T.pcb "T$T r$r"
  done
done
call_timeline_lib /tmp/kt.so
for v in step-8192 tail-8192-t264 tail-8192-t1024; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$v.csv $N/bin/proofc-session-bench .gpudata/th/$v.pcb $W --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
done
gzip $OUT/*.csv
rm -f $OUT/sb-*-r1.json
echo "all $(( $(date +%s) - t0 )) s"
