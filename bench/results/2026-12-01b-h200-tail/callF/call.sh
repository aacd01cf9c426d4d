#!/usr/bin/env bash
# Call F: row 42 as committed (the device fold of the atom layer: its
# inputs widened to double once, 4 outputs x 4 rows a thread, a whole
# tile's loop unrolled) against 6ab008d's (.gpudata/oldtree, its runtime
# built here too). The GPU tests (scripts/gpu-check.sh: the
# device prologue's bit-identity tests among them); V10 outcomes of both
# runtimes on one bundle; the session bench (a call with new weights each
# time: the fold, then the run), B = 8192 and 256, three rounds
# interleaved; CUPTI timelines of one session-bench run each (the fold
# kernel's time).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
grep -E "GpuDevicePrologue" /tmp/gc/tests.log | grep -E "OK|FAILED|SKIPPED" | head -12
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
(cd $O && JOBS=16 scripts/gpu-build.sh $OUT/build-old.log proofc-run proofc-session-bench > /dev/null 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
bin() { [ "$1" = old ] && echo $O/$N/bin || echo $N/bin; }
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 8192 256; do
  for v in new old; do $(bin $v)/proofc-run $d/exp/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o-new-$b.tsv /tmp/o-old-$b.tsv && echo "B=$b outcomes byte-identical to 6ab008d's runtime" || echo "B=$b outcomes DIFFER"
done
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for v in new old; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$v.csv $(bin $v)/proofc-session-bench $d/exp/v10-b8192.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $v failed"
  echo "== $v"; python3 bench/proto/timeline_gaps.py $OUT/tl-$v.csv | grep -E "fold_atom_layer|fold_columns|tf32_fragments|span"
done
sb() { timeout 60 $(bin $1)/proofc-session-bench $d/exp/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'call %.3f run %.3f overhead %.3f ms mrr %.6f' % (j['median_call_ms'], j['median_run_ms'], j['median_overhead_ms'], j['calls'][-1]['mrr']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 8192 256; do sb new $b r$round; sb old $b r$round; done; done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
# The kernel alone, the tree's prologue.cu against 6ab008d's.
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-new && nvcc -O3 -arch=sm_90 -I $O/runtime/src/cuda/kernels bench/proto/fold_atom_layer.cu -o /tmp/fal-old
for round in 1 2; do for v in new old; do echo "r$round $v $(/tmp/fal-$v)"; done; done
