#!/usr/bin/env bash
# Host weights folded on the device at setup: the GPU tests, then one-shot setup and the Session call, fold vs nofold.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t0=$(date +%s)
OUT=$OUT/check JOBS=16 scripts/gpu-check.sh > $OUT/gpu-check.txt 2>&1; echo "gpu-check rc=$? $(( $(date +%s) - t0 )) s"
tail -6 $OUT/gpu-check.txt
JOBS=16 scripts/gpu-build.sh $OUT/build2.log proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build2.log; exit 1; }
r=build-gpu-device/bin/proofc-run
b=build-gpu-device/bin/proofc-session-bench
d=.gpudata
for B in 256 4096; do
  for v in fold nofold; do
    bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
    for k in cold warm; do
      [ $k = cold ] && rm -rf /tmp/c-$B-$v
      PROOFC_CACHE_DIR=/tmp/c-$B-$v $r $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet --report $OUT/one-$B-$v-$k.json --outcomes /tmp/o-$B-$v.tsv > /dev/null 2>&1
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; b=j['backend_details']; print(sys.argv[2], 'compile %.3f setup %.3f run %.4f total %.3f' % (t['compile_seconds'], t['setup_seconds'], t['run_seconds'], t['total_seconds']), 'modules', {k: round(v,3) for k,v in b['module_compile_seconds'].items()})" $OUT/one-$B-$v-$k.json "B=$B $v $k"
    done
  done
done
cmp /tmp/o-256-fold.tsv /tmp/o-4096-fold.tsv && echo "fold outcomes identical across B"
for B in 4096 256; do
  for v in fold nofold; do
    bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
    for w in device host; do
      PROOFC_CACHE_DIR=/tmp/c-$B-$v $b $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --calls 30 --weights-on $w > $OUT/sb.json 2> $OUT/sb.err
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'call %.3f run %.3f ms first call %.1f ms' % (j['median_call_ms'], j['median_run_ms'], j['first_call_ms']), 'mrr', j['calls'][0]['mrr'])" $OUT/sb.json "B=$B $v weights-on $w" || tail -3 $OUT/sb.err
    done
  done
done
echo "done $(( $(date +%s) - t0 )) s"
