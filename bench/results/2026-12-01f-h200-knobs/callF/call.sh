#!/usr/bin/env bash
# Call F: every GPU test on row 49's tree (scripts/gpu-check.sh: the
# compiled bundles of test/compiled-bundles.txt, whose 3xF16 step bundles
# from B = 4096 now ask for 20 blocks an SM), and a probe of the register
# caps between 20 blocks' 96 and 24 blocks' 80: V10's B = 8192 step bundle
# (.gpudata/bundles/v10-step-b8192.pcb, `mb20`) with its policy PTX's
# `.minnctapersm 20` replaced by `.maxnreg 88` or `.maxnreg 104` (the JSON
# edited by hand; ptxas -v on the CPU machine: 88 registers and 76 bytes
# of spill stores, 104 and 40); session bench medians, three rounds, and
# the outcome files against mb20's.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc JOBS=16 bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -6 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "^\[ +(FAILED)" /tmp/gc/tests.log | head -20
grep -cE "^\[ +OK" /tmp/gc/tests.log
N=build-gpu-device
call_build $N proofc-run proofc-session-bench || exit 1
W="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100"
for v in mb20 maxnreg88 maxnreg104; do
  $N/bin/proofc-run .gpudata/knob/$v.pcb $W --device cuda --quiet --outcomes /tmp/$v.tsv > /tmp/run.err 2>&1 || { echo "$v failed"; tail -3 /tmp/run.err; }
  cmp -s /tmp/$v.tsv /tmp/mb20.tsv && echo "$v outcomes byte-identical to mb20" || echo "$v outcomes DIFFER"
done
for r in 1 2 3; do
  for v in mb20 maxnreg88 maxnreg104; do
    call_session_median $N/bin/proofc-session-bench .gpudata/knob/$v.pcb "$v r$r"
  done
done
rm -f $OUT/sb-*.json
echo "all $(( $(date +%s) - t0 )) s"
