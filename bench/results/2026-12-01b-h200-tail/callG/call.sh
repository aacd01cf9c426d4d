#!/usr/bin/env bash
# Call G: row 43 (proofc_init a thread a slot: ceil(B / 256) blocks instead
# of one) on the GPU. The GPU tests (scripts/gpu-check.sh; .gpudata from
# scripts/prepare-gpu-run.sh, the test bundle's init now 3 blocks of 4
# threads); V10 outcomes of row 43's bundles (.gpudata/r43) against row
# 41's (.gpudata/r41, the landed kernels) at B = 256, 4096, 8192 and 16384,
# and against the CPU host at 8192; CUPTI timelines at 8192 (the init
# kernel); the session bench, three rounds interleaved; bench/run.sh.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -12 /tmp/gc.out; cp /tmp/gc/failures.log $OUT/ 2>/dev/null
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 256 4096 8192 16384; do
  for v in r43 r41; do $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }; done
  cmp -s /tmp/o-r43-$b.tsv /tmp/o-r41-$b.tsv && echo "B=$b outcomes byte-identical to row 41's" || echo "B=$b outcomes DIFFER"
done
for b in 256 4096 16384; do cmp -s /tmp/o-r43-$b.tsv /tmp/o-r43-8192.tsv && echo "B=$b byte-identical to B=8192" || echo "B=$b differs from B=8192"; done
$N/bin/proofc-run $d/bundles/v10.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
python3 - /tmp/cpu.tsv /tmp/o-r43-8192.tsv <<'PY'
import sys
def rows(p):
    L = open(p).read().split('\n'); h = L[0].split('\t')
    i, j = h.index('status'), h.index('depth')
    return [(r.split('\t')[i], r.split('\t')[j]) for r in L[1:] if r]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f"status and depth equal to the CPU host's: {sum(x == y for x, y in zip(a, b))} of {len(a)} ({len(b)} GPU rows)")
PY
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for v in r43 r41; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-$v.csv $N/bin/proofc-session-bench $d/$v/v10-b8192.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $v failed"
  echo "== $v"; python3 bench/proto/timeline_gaps.py $OUT/tl-$v.csv | grep -E "proofc_init|proofc_engine |span"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 8192 16384 256; do sb r43 $b r$round; sb r41 $b r$round; done; done
echo "session bench at $(( $(date +%s) - t0 )) s"
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
