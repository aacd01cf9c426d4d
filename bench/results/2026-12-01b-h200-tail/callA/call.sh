#!/usr/bin/env bash
# Call A: what the tail would gain, measured with the compiler's own knobs
# before building anything. V10 at B = 8192: the landed bundle (engine
# threads 32, one-warp policy blocks) against --engine-threads 64 and 128
# (a slot's items in fewer chunks) and --groups 2 and 4 (more warps a
# policy block); outcomes compared, CUPTI timelines of each (the per-step
# split: a tail step's advance-engine and policy), the session bench,
# three rounds interleaved.
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
Q="--queries 100 --corruptions 100 --device cuda --quiet"
V="v10-b8192 v10-b8192-t64 v10-b8192-t128 v10-b8192-g2 v10-b8192-g4"
for v in $V; do
  $N/bin/proofc-run $d/exp/$v.pcb $W $Q --outcomes /tmp/o-$v.tsv > /tmp/run.err 2>&1 || { echo "run $v failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o-$v.tsv /tmp/o-v10-b8192.tsv && echo "$v outcomes byte-identical to the landed bundle's" || echo "$v outcomes DIFFER"
done
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for v in $V; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$v.csv $N/bin/proofc-session-bench $d/exp/$v.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $v failed"
  echo "== $v"; python3 bench/proto/timeline_gaps.py $OUT/tl-$v.csv | sed -n '/proof loop/,$p'
done
echo "timelines at $(( $(date +%s) - t0 )) s"
sb() { timeout 60 $N/bin/proofc-session-bench $d/exp/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for v in $V; do sb $v r$round; done; done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
