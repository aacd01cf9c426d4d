#!/usr/bin/env bash
# Call A (2026-11-30c): the GPU tests with fmt's compiled part built once and
# the step bundle at B = 4096 among the test bundles (scripts/gpu-check.sh),
# then fb15k-237 (random weights, B = 16384) as committed against 0a5292f:
# 60-query outcomes byte for byte and q700 twice each.
# Carry: .gpudata (scripts/prepare-gpu-run.sh), .deps, .fbdata/fb.tar.gz
# (fb15k-237's data), .fbdata/bundles (v10-b16384.pcb from this tree's
# compiler, v10-b16384-old.pcb from 0a5292f's), .fbdata/weights,
# .fbdata/old.tar.gz (git archive 0a5292f).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
t0=$(date +%s)
tar -xzf .fbdata/fb.tar.gz -C .fbdata
mkdir -p /tmp/old && tar -xzf .fbdata/old.tar.gz -C /tmp/old && ln -s $PWD/.deps /tmp/old/.deps
(cd /tmp/old && JOBS=6 scripts/gpu-build.sh /tmp/old-build.log proofc-run > /dev/null 2>&1 || { tail -30 /tmp/old-build.log; echo OLD BUILD FAILED; }) &
bash scripts/gpu-check.sh > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $(( $(date +%s) - t0 )) s"
tail -4 $OUT/gpu-check.out
grep -E "^\[  (PASSED|FAILED|SKIPPED) \]" $OUT/tests.log | sort | uniq -c | head -20
grep -E "\[ ptx      \]" $OUT/tests.log
wait
JOBS=16 scripts/gpu-build.sh $OUT/run-build.log proofc-run > /dev/null 2>&1 || echo "NEW proofc-run BUILD FAILED"
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run; ro=/tmp/old/build-gpu-device/bin/proofc-run
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
$r $f/bundles/v10-b16384.pcb $F --queries 60 --outcomes /tmp/f.tsv > /dev/null 2>&1 || echo "fb new failed"
$ro $f/bundles/v10-b16384-old.pcb $F --queries 60 --outcomes /tmp/f-old.tsv > /dev/null 2>&1 || echo "fb old failed"
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical ($(wc -l < /tmp/f.tsv) lines)" || echo "fb15k-237: OUTCOMES DIFFER"
for round in 1 2; do
  for v in new old; do
    if [ $v = new ]; then x=$r; bb=v10-b16384; else x=$ro; bb=v10-b16384-old; fi
    $x $f/bundles/$bb.pcb $F --queries 700 --report /tmp/q700-$v-$round.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700-$v-$round.json "r$round fb15k-237 q700 $v"
  done
done
echo "all $(( $(date +%s) - t0 )) s"
