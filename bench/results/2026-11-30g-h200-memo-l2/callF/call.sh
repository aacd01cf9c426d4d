#!/usr/bin/env bash
# Call F: what a memo hit waits on. Nsight Compute --set full on one full
# step's advance-engine launch (the 5th, step 5 of 29) of V10 at B=8192
# (the landed kernels, --cond host so that each launch is its own), caches
# left as the run left them (--cache-control none), with the SASS source
# page: the stall samples per stretch of machine code (ncu_chunks.py) and
# per instruction (sass-advance.csv.gz).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
N=$(ls /usr/local/cuda/bin/ncu 2>/dev/null || command -v ncu)
run="$r $d/sw/v10-b8192-base.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet"
timeout 300 $N --set full --cache-control none --import-source no -k regex:'^proofc_advance_engine$' --launch-skip 4 --launch-count 1 -o $OUT/full-advance $run > $OUT/full.log 2>&1 || { echo "full failed"; tail -5 $OUT/full.log; }
$N --import $OUT/full-advance.ncu-rep --print-summary none > $OUT/full-advance.txt 2>&1
$N --import $OUT/full-advance.ncu-rep --page source --csv --print-source sass > $OUT/sass-advance.csv 2>/dev/null
python3 bench/proto/ncu_chunks.py $OUT/sass-advance.csv --kernel proofc_advance_engine --chunk 40 > $OUT/chunks-advance.txt 2>&1
cat $OUT/chunks-advance.txt | head -80
grep -E 'Duration|Registers|Achieved Occupancy|L2 Hit Rate|L1/TEX Hit Rate|Memory Throughput|DRAM Throughput|Elapsed Cycles|SM Frequency' $OUT/full-advance.txt | head -20
gzip -f $OUT/sass-advance.csv
rm -f $OUT/full-advance.ncu-rep
echo "done $(( $(date +%s) - t0 )) s"
