#!/usr/bin/env bash
# Call G: row 36 as committed (the grid resized from B = 4096 only, node
# records) against 0a5292f: V10 outcomes and session bench at B=4096 and
# 1024; fb15k-237 (random weights, B=16384) 60-query outcomes and q700.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L
t0=$(date +%s)
mkdir -p /tmp/old && tar -xzf .gpudata/old.tar.gz -C /tmp/old && ln -s $PWD/.deps /tmp/old/.deps
(JOBS=8 scripts/gpu-build.sh $OUT/build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 $OUT/build.log; echo NEW BUILD FAILED; }) &
(cd /tmp/old && JOBS=8 scripts/gpu-build.sh /tmp/old-build.log proofc-session-bench proofc-run > /dev/null 2>&1 || { tail -30 /tmp/old-build.log; echo OLD BUILD FAILED; }) &
wait
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
d=.gpudata; N=build-gpu-device; O=/tmp/old/build-gpu-device
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for B in 4096 1024; do
  $N/bin/proofc-run $d/sw/v10-b$B.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/n$B.tsv > /dev/null 2>&1 || echo "new $B failed"
  $O/bin/proofc-run $d/sw/v10-b$B-old.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/o$B.tsv > /dev/null 2>&1 || echo "old $B failed"
  cmp -s /tmp/n$B.tsv /tmp/o$B.tsv && echo "B=$B outcomes byte-identical to 0a5292f's" || echo "B=$B outcomes DIFFER"
done
sb() { timeout 60 $1/bin/proofc-session-bench $d/sw/$2.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$3 $2" || tail -2 /tmp/sb.err; }
for round in 1 2; do for B in 4096 1024; do sb $N v10-b$B "r$round new"; sb $O v10-b$B-old "r$round old"; done; done
echo "v10 $(( $(date +%s) - t0 )) s"
r=build-gpu-device/bin/proofc-run; ro=/tmp/old/build-gpu-device/bin/proofc-run
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
$r $f/bundles/v10-b16384.pcb $F --queries 60 --outcomes /tmp/f.tsv > /dev/null 2>&1 || echo "fb new failed"
$ro $f/bundles/v10-b16384-old.pcb $F --queries 60 --outcomes /tmp/f-old.tsv > /dev/null 2>&1 || echo "fb old failed"
cmp -s /tmp/f.tsv /tmp/f-old.tsv && echo "fb15k-237 60 queries: outcomes identical ($(wc -l < /tmp/f.tsv) lines)" || echo "fb15k-237: OUTCOMES DIFFER"
for round in 1; do
  for v in new old; do
    if [ $v = new ]; then x=$r; bb=v10-b16384; else x=$ro; bb=v10-b16384-old; fi
    $x $f/bundles/$bb.pcb $F --queries 700 --report /tmp/q700-$v-$round.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700-$v-$round.json "r$round fb15k-237 q700 $v"
  done
done
echo "fb15k $(( $(date +%s) - t0 )) s"
echo "all $(( $(date +%s) - t0 )) s"
