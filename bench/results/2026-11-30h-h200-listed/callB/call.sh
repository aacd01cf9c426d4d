#!/usr/bin/env bash
# Call B: software prefetch into L1 in the step policy kernel (an
# experiment, Embedding.cpp's PROOFC_EXP_PREFETCH at compile time; bundles
# in .gpudata/exp/v10-b{4096,8192}-e{0,1,2,3}.pcb): e0 the landed kernels
# (byte-identical bundle), e1 a folded row's table rows prefetched one pass
# ahead (state words two passes ahead), e2 the second linear's TF32
# fragments prefetched before the embedding, e3 both. Outcomes against
# e0's; the session bench, three rounds interleaved; CUPTI timelines of e0
# and e3 at B = 8192.
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
/usr/local/cuda/bin/cuobjdump --version > /dev/null 2>&1 && python3 - <<'PY'
import json
b = json.load(open('.gpudata/exp/v10-b8192-e3.pcb'))
open('/tmp/p3.ptx', 'w').write([m for m in b['modules'] if m['name'] == 'policy'][0]['source'])
PY
/usr/local/cuda/bin/ptxas -arch=sm_90 /tmp/p3.ptx -o /tmp/p3.cubin && /usr/local/cuda/bin/cuobjdump -sass /tmp/p3.cubin | grep -E "CCTL|PREF|prefetch" | head -5
for b in 4096 8192; do for e in 0 1 2 3; do
  $N/bin/proofc-run $d/exp/v10-b$b-e$e.pcb $W $Q --outcomes /tmp/o$b-$e.tsv > /tmp/run.err 2>&1 || { echo "run $b e$e failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/o$b-$e.tsv /tmp/o$b-0.tsv && echo "B=$b e$e outcomes byte-identical to e0's" || echo "B=$b e$e outcomes DIFFER"
done; done
sb() { timeout 60 $N/bin/proofc-session-bench $d/exp/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for dd in 2 3; do
  $N/bin/proofc-run $d/exp/v10-b8192-e3d$dd.pcb $W $Q --outcomes /tmp/od$dd.tsv > /tmp/run.err 2>&1 || { echo "run d$dd failed"; tail -2 /tmp/run.err; }
  cmp -s /tmp/od$dd.tsv /tmp/o8192-0.tsv && echo "B=8192 e3d$dd outcomes byte-identical to e0's" || echo "B=8192 e3d$dd outcomes DIFFER"
done
for round in 1 2 3; do for b in 8192 4096; do for e in 0 1 2 3; do sb v10-b$b-e$e "r$round"; done; done; sb v10-b8192-e3d2 "r$round"; sb v10-b8192-e3d3 "r$round"; done
echo "session bench at $(( $(date +%s) - t0 )) s"
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
for e in 0 3; do
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=$OUT/tl-b8192-e$e.csv $N/bin/proofc-session-bench $d/exp/v10-b8192-e$e.pcb $W --calls 6 > /dev/null 2>&1 || echo "timeline e$e failed"
  echo "== B=8192 e$e"; python3 bench/proto/timeline_gaps.py $OUT/tl-b8192-e$e.csv | tail -36
done
gzip $OUT/*.csv
echo "all $(( $(date +%s) - t0 )) s"
