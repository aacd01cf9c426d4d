#!/usr/bin/env bash
# Call H: the review mends (2a5189e) on the GPU machine: the runtime and
# proofc-run build there (support/Timing.h); bench/proto/clock_step.py's
# STEP lines now print the entries the advance-engine listed beside the
# tiles counted with policyParts (row 38: equal at every step); outcomes
# with the counters byte-identical to the plain bundle's.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet"
$r $d/prof/v10-b4096-clock.pcb $W --outcomes /tmp/out-clock.tsv > $OUT/clock.txt 2>&1 || { echo "clock run failed"; tail -5 $OUT/clock.txt; }
$r $d/prof/v10-b4096.pcb $W --outcomes /tmp/out.tsv > /dev/null 2>&1 || echo "plain run failed"
cmp -s /tmp/out.tsv /tmp/out-clock.tsv && echo "outcomes with the counters byte-identical" || echo "outcomes with the counters DIFFER"
echo "STEP lines: $(grep -c ^STEP $OUT/clock.txt)"
awk '/^STEP/ { if ($10 != $12 && !($10 == 0 && $12 == 0)) bad++ } END { print "steps whose listed entries differ from the tiles:", bad + 0 }' $OUT/clock.txt
grep ^STEP $OUT/clock.txt | head -3
echo "done $(( $(date +%s) - t0 )) s"
