#!/usr/bin/env bash
# Call B: where row 39's extra setup time goes (fb15k-237 q700 at B=16384:
# setup 1.44-1.49 s against 4c850d3's 0.81-0.88 s in 2026-11-30f's call D;
# V10 one-shot 0.128 against 0.108 s at 8192 in its call E). Both runtimes
# (4c850d3's built from .gpudata/oldtree), each run once untraced (the
# kernel cache warm), then under the CUPTI injection library with driver
# API records (bench/proto/kernel_timeline.cpp, PROOFC_TIMELINE_API=1),
# summed per call by bench/proto/api_time.py.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
O=.gpudata/oldtree
ln -sfn $PWD/.deps $O/.deps
(cd $O && JOBS=16 scripts/gpu-build.sh $OUT/build-old.log proofc-run > /dev/null 2>&1) || { tail -30 $OUT/build-old.log; exit 1; }
echo "built at $(( $(date +%s) - t0 )) s"
CU=$(dirname $(find /usr/local/cuda/ -name cupti.h | head -1))/..
H=$(find /usr/local/cuda/ -name cupti_activity.h | head -1)
newest() { grep -o "} $1[0-9]*;" $H | tr -d '};' | sort -V | tail -1 | tr -d ' '; }
LIB=$(dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1))
g++ -O2 -shared -fPIC bench/proto/kernel_timeline.cpp -o /tmp/kt.so -I$CU/include -I/usr/local/cuda/include -L$LIB -lcupti -Wl,-rpath,$LIB -DKERNEL_RECORD=$(newest CUpti_ActivityKernel) -DMEMSET_RECORD=$(newest CUpti_ActivityMemset) -DMEMCPY_RECORD=$(newest CUpti_ActivityMemcpy) || echo "no timeline library"
bin() { [ "${1:-}" = -old ] && echo $O/$N/bin || echo $N/bin; }
times() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'setup %.3f run %.3f total %.3f' % (t['setup_seconds'], t['run_seconds'], t['total_seconds']))" "$@"; }
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 8192 16384; do for v in "" -old; do
  for r in 1 2; do $(bin $v)/proofc-run $d/sw/v10-b$b$v.pcb $W $Q --report /tmp/r.json > /dev/null 2>&1 && times /tmp/r.json "r$r v10 B=$b ${v:-new}"; done
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_API=1 PROOFC_TIMELINE_OUT=$OUT/api-v10-b$b${v:-new}.csv $(bin $v)/proofc-run $d/sw/v10-b$b$v.pcb $W $Q --report /tmp/r.json > /dev/null 2>&1 && times /tmp/r.json "traced v10 B=$b ${v:-new}"
  python3 bench/proto/api_time.py $OUT/api-v10-b$b${v:-new}.csv --top 12
done; done
tar -xzf .fbdata/fb.tar.gz -C .fbdata
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet --queries 700"
for v in "" -old; do
  $(bin $v)/proofc-run $f/bundles/v10-b16384$v.pcb $F --report /tmp/r.json > /dev/null 2>&1 && times /tmp/r.json "fb q700 ${v:-new}"
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_API=1 PROOFC_TIMELINE_OUT=/tmp/api-fb$v.csv $(bin $v)/proofc-run $f/bundles/v10-b16384$v.pcb $F --report /tmp/r.json > /dev/null 2>&1 && times /tmp/r.json "traced fb q700 ${v:-new}"
  python3 bench/proto/api_time.py /tmp/api-fb$v.csv --top 15
done
echo "all $(( $(date +%s) - t0 )) s"
