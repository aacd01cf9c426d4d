#!/usr/bin/env bash
# Cold/warm one-shot runs fold vs nofold (separate fresh caches), then the bench (torch nocond, B=256,4096).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
r=build-gpu-device/bin/proofc-run
d=.gpudata
for B in 256 4096; do
  for v in fold nofold; do
    bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
    rm -rf /tmp/c-$B-$v
    for k in cold warm; do
      PROOFC_CACHE_DIR=/tmp/c-$B-$v $r $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet --report $OUT/one-$B-$v-$k.json > /dev/null 2>&1
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; b=j['backend_details']; print(sys.argv[2], 'compile %.3f setup %.3f run %.4f total %.3f' % (t['compile_seconds'], t['setup_seconds'], t['run_seconds'], t['total_seconds']), 'modules', {k: round(v,3) for k,v in b['module_compile_seconds'].items()}, 'MB', b['device_bytes']>>20)" $OUT/one-$B-$v-$k.json "B=$B $v $k"
    done
  done
done
BENCH_BUDGET_S=$(( 560 - ($(date +%s) - t0) )) bench/run.sh --no-large --no-memo-off --batches 256,4096 --torch-variants nocond 2>&1 | tail -25
echo "done $(( $(date +%s) - t0 )) s"
