#!/usr/bin/env bash
# Call F: row 41 as committed (858acca's compiler; its bundles are call E's
# pairs byte for byte at B = 1024-8192, and at 16384 differ only in the
# order of three independent address instructions). The GPU tests on this
# tree's bundles (scripts/gpu-check.sh); V10 by the session bench, row 40's
# bundles (.gpudata/sw, 5374410) against row 41's (.gpudata/r41), outcomes
# compared, three rounds; then bench/run.sh with the cond-free torch port.
set -uo pipefail
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
OUT=/tmp/gc bash scripts/gpu-check.sh > /tmp/gc.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
grep -E "PASSED|FAILED|SKIPPED \]" /tmp/gc.out | sort | uniq -c | head -20; cp /tmp/gc/failures.log /tmp/gc/tests.log $OUT/ 2>/dev/null
export PROOFC_CACHE_DIR=/tmp/pc
N=build-gpu-device
JOBS=16 scripts/gpu-build.sh $OUT/build-bench.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build-bench.log; exit 1; }
echo "bench built at $(( $(date +%s) - t0 )) s"
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
Q="--queries 100 --corruptions 100 --device cuda --quiet"
for b in 4096 8192 16384; do
  for v in sw r41; do
    $N/bin/proofc-run $d/$v/v10-b$b.pcb $W $Q --outcomes /tmp/o-$v-$b.tsv > /tmp/run.err 2>&1 || { echo "run $v $b failed"; tail -2 /tmp/run.err; }
  done
  cmp -s /tmp/o-sw-$b.tsv /tmp/o-r41-$b.tsv && echo "B=$b row 41 outcomes byte-identical to row 40's" || echo "B=$b row 41 outcomes DIFFER"
done
sb() { timeout 60 $N/bin/proofc-session-bench $d/$1/v10-b$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $1 B=$2" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for b in 4096 8192 16384; do sb sw $b r$round; sb r41 $b r$round; done; done
echo "session bench done at $(( $(date +%s) - t0 )) s"
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5
echo "all $(( $(date +%s) - t0 )) s"
