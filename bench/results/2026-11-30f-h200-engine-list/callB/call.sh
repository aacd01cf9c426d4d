#!/usr/bin/env bash
# Call B: row 39 (the advance-engine lists its slots for its next launch,
# kernel_abi.h's EngineGridWord) on the GPU. The GPU tests
# (scripts/gpu-check.sh, .gpudata from scripts/prepare-gpu-run.sh without
# wn18rr); V10 outcomes against 4c850d3's kernels ("-old" bundles, compiled
# by 4c850d3's compiler) at B = 1024, 4096, 8192, 16384, and --cond
# emulated / host / --unroll 1 at 4096 (no node: every slot); the session
# bench, three rounds; CUPTI timelines of the new kernels at 4096 and 8192;
# fb15k-237 q700 at B = 16384 (two rounds).
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
for b in 1024 4096 8192 16384; do
  for v in "" -old; do $r $d/sw/v10-b$b$v.pcb $W $Q --outcomes /tmp/o$b$v.tsv > /dev/null 2>&1 || echo "run $b$v failed"; done
  cmp -s /tmp/o$b.tsv /tmp/o$b-old.tsv && echo "B=$b outcomes byte-identical to 4c850d3's" || echo "B=$b outcomes DIFFER"
done
for b in 1024 8192 16384; do cmp -s /tmp/o$b.tsv /tmp/o4096.tsv && echo "B=$b byte-identical to B=4096" || echo "B=$b differs from B=4096"; done
$r $d/bundles/v10.pcb $W --queries 100 --corruptions 100 --device cpu --quiet --outcomes /tmp/cpu.tsv > /dev/null 2>&1 || echo "cpu run failed"
python3 - /tmp/cpu.tsv /tmp/o4096.tsv <<'PY'
import sys
def rows(p):
    L = open(p).read().split('\n'); h = L[0].split('\t')
    i, j = h.index('status'), h.index('depth')
    return [(r.split('\t')[i], r.split('\t')[j]) for r in L[1:] if r]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f"status and depth equal to the CPU host's: {sum(x == y for x, y in zip(a, b))} of {len(a)} ({len(b)} GPU rows)")
PY
for c in "--cond emulated" "--cond host" "--unroll 1"; do
  $r $d/sw/v10-b4096.pcb $W $Q $c --outcomes /tmp/c.tsv > /dev/null 2>&1 || echo "$c run failed"
  cmp -s /tmp/c.tsv /tmp/o4096.tsv && echo "B=4096 $c byte-identical" || echo "B=4096 $c DIFFERS"
done
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for b in 4096 8192; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-b$b.csv $N/bin/proofc-session-bench $d/sw/v10-b$b.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline $b failed"
  echo "== B=$b (row 39)"; python3 bench/proto/timeline_gaps.py $OUT/tl-b$b.csv | sed -n '/proof loop/,$p'
done
echo "timelines at $(( $(date +%s) - t0 )) s"
sb() { timeout 60 $N/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 1024 4096 8192 16384; do for v in "" -old; do sb v10-b$b$v "r$round"; done; done; done
echo "session bench at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for round in 1 2; do for v in "" -old; do
  $r $f/bundles/v10-b16384$v.pcb $F --queries 700 --report /tmp/q700.json --outcomes /tmp/fb$v.tsv > /dev/null 2>&1 || echo "fb $v failed"
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
done; cmp -s /tmp/fb.tsv /tmp/fb-old.tsv && echo "fb15k-237 q700 outcomes byte-identical" || echo "fb15k-237 q700 outcomes DIFFER"; done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
