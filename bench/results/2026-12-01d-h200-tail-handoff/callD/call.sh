#!/usr/bin/env bash
# Call D: the prototype with the hand-off step's no-op launches at one
# block (step.cu: the engine node and the policy grid at 1 when the loop
# ends at the hand-off), T = 264 and 400, and the persistent kernel at 2
# blocks an SM (its auto) or 3 (--min-blocks-per-sm 3: "m3"). Outcomes
# against the step bundle, session bench medians (three rounds), one
# timeline each.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"
run() { $N/bin/proofc-run $1 $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes $2 "${@:3}" > /tmp/run.err 2>&1 || { echo "run $1 $3 failed"; tail -3 /tmp/run.err; }; }
run .gpudata/th/step-8192.pcb /tmp/o-step.tsv
V="tail-8192-t264 tail-8192-t400 tail-8192-m3-t264 tail-8192-m3-t400"
for v in $V; do
  run .gpudata/th/$v.pcb /tmp/o-$v.tsv
  cmp -s /tmp/o-$v.tsv /tmp/o-step.tsv && echo "$v outcomes byte-identical to the step bundle's" || echo "$v outcomes DIFFER"
done
cmp -s /tmp/o-step.tsv /tmp/o-step.tsv
for r in 1 2 3; do for v in step-8192 $V; do
  call_session_median $N/bin/proofc-session-bench .gpudata/th/$v.pcb "$v r$r"
done; done
call_timeline_lib /tmp/kt.so
mkdir -p $OUT/tl
for v in $V; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl/$v.csv $N/bin/proofc-session-bench .gpudata/th/$v.pcb $W --calls 3 > /dev/null 2>&1 || echo "traced $v failed"
  python3 bench/results/2026-12-01d-h200-tail-handoff/callC/steps.py $OUT/tl/$v.csv | tail -5
done
tar -czf $OUT/tl.tar.gz -C $OUT tl && rm -rf $OUT/tl
mkdir -p $OUT/sb && mv $OUT/sb-*r3.json $OUT/sb/ ; rm -f $OUT/sb-*.json; tar -czf $OUT/sb.tar.gz -C $OUT sb && rm -rf $OUT/sb
