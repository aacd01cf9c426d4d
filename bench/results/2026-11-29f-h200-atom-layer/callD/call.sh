#!/usr/bin/env bash
# fb15k-237 (no table: over the budget, AN = 0): the fold-compiled kernel vs --no-atom-layer-table, 700 queries, B=16384; outcomes on 60.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.fbdata
for v in fold nofold; do
  bun=$d/bundles/v10-b16384.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b16384-nofold.pcb
  $r $bun --data $d/data/fb15k-237 --weights $d/weights/fb15k-237-random.safetensors --split test --queries 60 --corruptions 0 --device cuda --quiet --outcomes /tmp/o-$v.tsv > /dev/null 2>&1
done
cmp /tmp/o-fold.tsv /tmp/o-nofold.tsv && echo "outcomes 60 queries identical ($(wc -l < /tmp/o-fold.tsv) lines)"
for round in 1 2; do
  for v in fold nofold; do
    bun=$d/bundles/v10-b16384.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b16384-nofold.pcb
    $r $bun --data $d/data/fb15k-237 --weights $d/weights/fb15k-237-random.safetensors --split test --queries 700 --corruptions 0 --device cuda --quiet --report $OUT/q700-$v-$round.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" $OUT/q700-$v-$round.json "r$round $v"
  done
done
d=.fbdata/k
for w in 1 2; do
  PROOFC_CACHE_DIR=/tmp/pc $r .fbdata/k/v10-b256.pcb --data .fbdata/k/kinship --weights .fbdata/k/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet --workers-per-device $w --report $OUT/k-$w.json > /dev/null 2>&1
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print('kinship fold workers', sys.argv[2], 'setup %.3f compile %.3f total %.3f' % (t['setup_seconds'], t['compile_seconds'], t['total_seconds']))" $OUT/k-$w.json $w
done
echo "done $(( $(date +%s) - t0 )) s"
