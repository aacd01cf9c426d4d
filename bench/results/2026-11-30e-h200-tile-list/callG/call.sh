#!/usr/bin/env bash
# Call G: the cold compile of row 38's bundles against 4fba8af's, in one
# call (calls C and E measured 0.87-1.05 s where the previous stop's
# machine measured 0.64-0.68 s). V10 at B = 256 and 4096, four rounds
# alternating, each run with an empty kernel cache and an empty driver JIT
# cache (as bench.py's cold run): the report's modules_seconds and each
# module's seconds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
nproc
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 10 --corruptions 10 --device cuda --quiet"
for round in 1 2 3 4; do
  for v in b256 b256-old b4096 b4096-old; do
    rm -rf /tmp/pc /tmp/jit; mkdir -p /tmp/pc /tmp/jit
    PROOFC_CACHE_DIR=/tmp/pc CUDA_CACHE_PATH=/tmp/jit build-gpu-device/bin/proofc-run $d/cc/$v.pcb $W --report /tmp/r.json > /dev/null 2>&1 || { echo "$v failed"; continue; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); b=j.get('backend_details',{}); print(sys.argv[2], 'modules %.3f s' % b['modules_seconds'], ' '.join('%s %.3f' % kv for kv in sorted(b.get('module_compile_seconds',{}).items())))" /tmp/r.json "r$round $v"
  done
done
echo "done $(( $(date +%s) - t0 )) s"
