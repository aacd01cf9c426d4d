#!/usr/bin/env bash
# Call C: what one policy tile waits on. Call B's prefetches (table rows a
# pass ahead, the second linear's fragments before the embedding) left a
# tail step's single tile at ~11.5 us: so its chain is not those L2 round
# trips. Nsight Compute --set full, the densest warp sampling
# (--warp-sampling-interval 0: every 32 cycles), caches as the run left them, on
# V10 at B=8192 (the landed kernels, --cond host so that each launch is its
# own): the policy launch of step 25 (one busy tile, the rest of the plan's
# grid idle blocks) and of step 5 (a full step); the SASS source page per
# stretch of machine code (ncu_chunks.py) and per instruction.
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
run="$r $d/sw/v10-b8192.pcb $W --queries 100 --corruptions 100 --device cuda --cond host --quiet"
for skip in 24 4; do
  name=policy-s$((skip + 1))
  timeout 240 $N --set full --warp-sampling-interval 0 --cache-control none --import-source no -k regex:'^proofc_policy$' --launch-skip $skip --launch-count 1 -o $OUT/$name $run > $OUT/$name.log 2>&1 || { echo "$name failed"; tail -5 $OUT/$name.log; }
  $N --import $OUT/$name.ncu-rep --print-summary none > $OUT/$name.txt 2>&1
  $N --import $OUT/$name.ncu-rep --page source --csv --print-source sass > $OUT/sass-$name.csv 2>/dev/null
  echo "== $name"
  python3 bench/proto/ncu_chunks.py $OUT/sass-$name.csv --kernel proofc_policy --chunk 40 > $OUT/chunks-$name.txt 2>&1
  head -70 $OUT/chunks-$name.txt
  grep -E 'Duration|Registers Per|Achieved Occupancy|L2 Hit Rate|L1/TEX Hit Rate|Elapsed Cycles|SM Frequency|Grid Size' $OUT/$name.txt | head -12
  gzip -f $OUT/sass-$name.csv
  rm -f $OUT/$name.ncu-rep
  echo "at $(( $(date +%s) - t0 )) s"
done
echo "done $(( $(date +%s) - t0 )) s"
