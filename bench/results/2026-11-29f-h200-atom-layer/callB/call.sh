#!/usr/bin/env bash
# Tiled fold_atom_layer prologue: its GPU tests, then the Session call A/B (fold vs --no-atom-layer-table).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L > $OUT/gpu.txt
t0=$(date +%s)
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-unittests proofc-run proofc-session-bench > $OUT/gpu-build.txt 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_SHARED_DIR=$PWD/.gpudata PROOFC_CACHE_DIR=/tmp/pcache
export PROOFC_TEST_BUNDLE="$PWD/.gpudata/bundles/v10-step.pcb $PWD/.gpudata/bundles/v10-persistent.pcb"
build-gpu-device/bin/proofc-unittests --gtest_filter='GpuDevicePrologue*:*Compiled*:AtomLayer*:PrologueEmulation*:NvrtcTemplates*:GpuSession*' > $OUT/tests.log 2>&1; echo "tests rc=$?"
grep -E '^\[  (FAILED|PASSED|SKIPPED) ' $OUT/tests.log | sort | uniq -c | head
b=build-gpu-device/bin/proofc-session-bench
r=build-gpu-device/bin/proofc-run
d=.gpudata
for v in fold nofold; do
  bun=$d/bundles/v10-b4096.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b4096-nofold.pcb
  $r $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --queries 100 --corruptions 100 --device cuda --quiet --report $OUT/run-$v.json > /dev/null 2>&1
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j.get('timings',{}); print(sys.argv[2], 'timings', {k: round(v,4) for k,v in t.items() if isinstance(v,(int,float))})" $OUT/run-$v.json $v
done
for round in 1 2; do
  for B in 4096 256; do
    for v in fold nofold; do
      bun=$d/bundles/v10-b$B.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b$B-nofold.pcb
      $b $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --calls 30 > $OUT/sb-b$B-$v-r$round.json 2> $OUT/sb-b$B-$v-r$round.err
      python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'B', sys.argv[3], sys.argv[4], 'call %.3f run %.3f ms' % (j['median_call_ms'], j['median_run_ms']), 'mrr', j['calls'][0]['mrr'])" $OUT/sb-b$B-$v-r$round.json r$round $B $v
    done
  done
done
for v in fold nofold; do
  bun=$d/bundles/v10-b4096.pcb; [ $v = nofold ] && bun=$d/bundles/v10-b4096-nofold.pcb
  $b $bun --data $d/data/kinship --weights $d/weights/kinship.safetensors --calls 30 --weights-on host > $OUT/sb-host-$v.json 2> $OUT/sb-host-$v.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('host weights', sys.argv[2], 'B 4096 call %.3f run %.3f ms' % (j['median_call_ms'], j['median_run_ms']))" $OUT/sb-host-$v.json $v || tail -3 $OUT/sb-host-$v.err
done
mkdir -p $OUT/keep && cp $OUT/sb-b4096-fold-r1.json $OUT/run-fold.json $OUT/keep/ 2>/dev/null
echo "done $(( $(date +%s) - t0 )) s"
