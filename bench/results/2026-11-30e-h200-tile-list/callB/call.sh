#!/usr/bin/env bash
# Call B: where the row 38 grid pays (choosePolicyGridResize's range).
# V10 at B = 2048 resized ("v10-b2048", the rule B >= 1024) against not
# ("-nors", the old rule B >= 4096), at B = 1024 again ("-rs" against the
# tree's then default, no resize), three rounds each, outcomes checked
# against each other; fb15k-237 (random weights) q700 at B = 16384, the
# tree's default (no resize) against "-rs", four rounds interleaved (call
# A's two were bimodal: 6.5 or 8.0 s).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
tar -xzf .fbdata/fb.tar.gz -C .fbdata
JOBS=16 scripts/gpu-build.sh $OUT/build.log proofc-run proofc-session-bench > /dev/null 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - t0 )) s"
export PROOFC_CACHE_DIR=/tmp/pc
r=build-gpu-device/bin/proofc-run
d=.gpudata
W="--data $d/data/kinship --weights $d/weights/kinship.safetensors"
for v in b2048 b2048-nors b1024 b1024-rs; do
  $r $d/sw/v10-$v.pcb $W --queries 100 --corruptions 100 --device cuda --quiet --outcomes /tmp/out-$v.tsv > /tmp/run.log 2>&1 || { echo "run $v failed"; tail -5 /tmp/run.log; }
done
cmp -s /tmp/out-b2048.tsv /tmp/out-b2048-nors.tsv && echo "b2048 outcomes byte-identical resized or not" || echo "b2048 outcomes DIFFER"
cmp -s /tmp/out-b1024.tsv /tmp/out-b1024-rs.tsv && echo "b1024 outcomes byte-identical resized or not" || echo "b1024 outcomes DIFFER"
sb() { timeout 60 build-gpu-device/bin/proofc-session-bench $d/sw/$1.pcb $W --calls 15 > /tmp/sb.json 2>/tmp/sb.err && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], 'run %.3f call %.3f ms' % (j['median_run_ms'], j['median_call_ms']))" /tmp/sb.json "$2 $1" || tail -2 /tmp/sb.err; }
for round in 1 2 3; do for v in b2048 b2048-nors b1024 b1024-rs; do sb v10-$v "r$round"; done; done
echo "bench $(( $(date +%s) - t0 )) s"
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for round in 1 2 3 4; do
  for v in "" -rs; do
    $r $f/bundles/v10-b16384$v.pcb $F --queries 700 --report /tmp/q700.json > /dev/null 2>&1
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
  done
done
echo "done $(( $(date +%s) - t0 )) s"
