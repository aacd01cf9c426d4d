#!/usr/bin/env bash
# Call A: where V10's B=4096 steps go, by step: bench/proto/clock_step.py's
# clock counters in the advance-engine (per step: slots holding, deriving,
# waiting; the policy tiles needed against the grid launched; the advance's,
# plan's and items' cycles, the slowest slot's), and Nsight Compute's
# stall samples by stretch of SASS on a tail step's policy and
# advance-engine launches (launch 30, --cond host) and a full step's
# advance-engine (launch 10).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
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
grep -c ^STEP $OUT/clock.txt
echo "clock $(( $(date +%s) - t0 )) s"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$r $d/prof/v10-b4096.pcb $W --cond host"
prof() { # kernel skip name
  timeout 150 $N --set full --import-source no -k regex:"^$1\$" --launch-skip $2 --launch-count 1 -o $OUT/$3 $run > $OUT/$3.log 2>&1 || { echo "$3 failed"; tail -5 $OUT/$3.log; }
  $N --import $OUT/$3.ncu-rep --print-summary none > $OUT/$3.txt 2>&1
  $N --import $OUT/$3.ncu-rep --page source --csv --print-source sass > /tmp/$3.csv 2>/dev/null
  python3 bench/proto/ncu_chunks.py /tmp/$3.csv --kernel $1 > $OUT/$3-chunks.txt 2>&1
  rm -f $OUT/$3.ncu-rep
  echo "$3 $(( $(date +%s) - t0 )) s"
}
prof proofc_policy 30 policy-tail
prof proofc_advance_engine 30 adv-tail
prof proofc_advance_engine 10 adv-full
echo "done $(( $(date +%s) - t0 )) s"
