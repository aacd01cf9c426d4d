#!/usr/bin/env bash
# Rows 34-35 on the throughput-bound workload: fb15k-237 (random weights, the
# kernel's unfolded path: its table is over the budget) at B=16384, against
# the compiler of f88664a (-old): outcomes of the first 60 queries, then the
# first 700 queries end to end, two interleaved rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for v in "" -old; do $r $f/bundles/v10-b16384$v.pcb $F --queries 60 --outcomes /tmp/f$v.tsv > /dev/null 2>&1 || echo "fb $v failed"; done
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical ($(wc -l < /tmp/f.tsv) lines)" || echo "fb15k-237: OUTCOMES DIFFER"
for round in 1 2; do
  for v in "" -old; do
    $r $f/bundles/v10-b16384$v.pcb $F --queries 700 --report $OUT/q700$v-$round.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" $OUT/q700$v-$round.json "r$round fb15k-237 q700 b16384$v"
  done
done
echo "done $(( $(date +%s) - t0 )) s"
