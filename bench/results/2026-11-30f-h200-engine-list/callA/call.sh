#!/usr/bin/env bash
# Call A: where a tail step's advance-engine time goes as B grows. CUPTI
# timelines (bench/proto/kernel_timeline.cpp) of V10 at B = 4096, 8192 and
# 16384 with 4c850d3's kernels (the session bench's last call), and the
# session bench at each B: does a tail step's advance-engine launch grow
# with the blocks it launches (B, most of them without a slot)?
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for b in 4096 8192 16384; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-b$b.csv $N/bin/proofc-session-bench $d/sw/v10-b$b.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $b failed"
  echo "== B=$b"; python3 bench/proto/timeline_gaps.py $OUT/tl-b$b.csv
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do for b in 4096 8192 16384; do sb v10-b$b "r$round"; done; done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
