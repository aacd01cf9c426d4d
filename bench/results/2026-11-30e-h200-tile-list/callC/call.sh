#!/usr/bin/env bash
# Call C: row 38 as committed (the resize from B = 1024): the GPU tests
# (scripts/gpu-check.sh, .gpudata from scripts/prepare-gpu-run.sh without
# wn18rr, then bench/prepare.sh with BENCH_BATCHES="256 4096"
# BENCH_LARGE=kinship); --cond emulated and --cond host byte-identical to
# the graph at B = 4096; the clock counters (bench/proto/clock_step.py) and
# a CUPTI timeline (bench/proto/kernel_timeline.cpp) of V10 at B = 4096
# against 4fba8af's kernels; B = 8192 beside 4096 (session bench); then
# the bench with the torch port at B = 256 and 4096 in the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
r=$N/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
$r $d/sw/v10-b4096.pcb $W $Q --outcomes /tmp/g.tsv > /dev/null 2>&1 || echo "graph run failed"
for c in emulated host; do
  $r $d/sw/v10-b4096.pcb $W $Q --cond $c --outcomes /tmp/$c.tsv > /dev/null 2>&1 || echo "$c run failed"
  cmp -s /tmp/$c.tsv /tmp/g.tsv && echo "B=4096 --cond $c byte-identical" || echo "B=4096 --cond $c DIFFERS"
done
$r $d/sw/v10-b4096-clock.pcb $W $Q --outcomes /tmp/clock.tsv > $OUT/clock.txt 2>&1 || echo "clock run failed"
cmp -s /tmp/clock.tsv /tmp/g.tsv && echo "outcomes with the counters byte-identical" || echo "outcomes with the counters DIFFER"
grep -c ^STEP $OUT/clock.txt
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for v in b4096 b4096-old; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$v.csv $N/bin/proofc-session-bench $d/sw/v10-$v.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $v failed"
done
python3 bench/proto/timeline_gaps.py $OUT/tl-b4096.csv $OUT/tl-b4096-old.csv
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2; do for v in b4096 b4096-old b8192; do sb v10-$v "r$round"; done; done
echo "extras $(( $(date +%s) - t0 )) s"
bash bench/run.sh --no-large --no-memo-off --batches 256,4096 --torch-variants nocond --repeats 5
echo "all $(( $(date +%s) - t0 )) s"
