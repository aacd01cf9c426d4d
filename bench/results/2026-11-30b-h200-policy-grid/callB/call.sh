#!/usr/bin/env bash
# Call B: the V10 B=4096 and B=256 runs' kernel timelines at the run's own
# clock (bench/proto/kernel_timeline.cpp, CUPTI concurrent-kernel records).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
echo "cupti at $CU"; H=$CU/include/cupti_activity.h
[ -f $H ] || H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
K=$(newest CUpti_ActivityKernel); MS=$(newest CUpti_ActivityMemset); MC=$(newest CUpti_ActivityMemcpy)
echo "records $K $MS $MC"
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$K -DMEMSET_RECORD=$MS -DMEMCPY_RECORD=$MC || exit 1
export PROOFC_CACHE_DIR=/tmp/pc
b=build-gpu-device/bin/proofc-session-bench
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for B in 4096 256; do
  $b $d/sw/v10-b$B.pcb $W --calls 15 > /tmp/sb.json 2>/dev/null; python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('B=$B run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$B.csv $b $d/sw/v10-b$B.pcb $W --calls 6 > /tmp/sbt.json 2>/tmp/sbt.err || tail -3 /tmp/sbt.err
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('traced B=$B run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sbt.json
done
python3 bench/proto/timeline_gaps.py $OUT/tl-4096.csv $OUT/tl-256.csv
echo "done $(( $(date +%s) - t0 )) s"
