#!/usr/bin/env bash
# Call C: the "last" flag in the rows' padding as committed (the tensor-core
# policy kernel's block 4,608 bytes of shared memory, not 4,612). The GPU
# tests on bundles from this tree's compiler (scripts/gpu-check.sh), then
# V10 by the session bench at B = 4096, 8192 and 16384: the old bundles
# (.gpudata/old: the landed compiler's, 4,612 bytes) against the new
# (.gpudata/sw), outcomes compared, three rounds interleaved.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -30 /tmp/gc.out; cp /tmp/gc/failures.log /tmp/gc/tests.log /tmp/gc/build.log $OUT/ 2>/dev/null
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build-bench.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build-bench.log; exit 1; }
echo "bench built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 4096 8192 16384; do
  for v in old sw; do
    $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }
  done
  cmp -s /tmp/o-old-$b.tsv /tmp/o-sw-$b.tsv && echo "B=$b new outcomes byte-identical to old" || echo "B=$b new outcomes DIFFER from old"
  cmp -s /tmp/o-sw-$b.tsv /tmp/o-sw-4096.tsv && echo "B=$b new outcomes byte-identical to B=4096's" || echo "B=$b DIFFER from 4096's"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 8192 16384; do sb old $b r$round; sb sw $b r$round; done; done
echo "all $(( $(date +%s) - t0 )) s"
