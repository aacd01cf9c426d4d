#!/usr/bin/env bash
# Call D: row 40 as committed (5374410). The bench with the cond-free torch
# port in the same call (proofc at B = 256, 4096, 8192; the port at 4096,
# its fastest B), then fb15k-237's first 700 test queries at B = 16384
# (every filtered corruption, seed-0 random weights), the landed
# compiler's bundle ("old", 9be70d2) against row 40's, two rounds, outcomes
# compared; then the whole split on one GPU (bench/scale-out/run.sh one).
set -uo pipefail
t0=$(date +%s)
nvidia-smi -L | tee $OUT/gpu.txt
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5
echo "bench at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
N=build-gpu-device
f=.fbdata
F="--data $f/data/fb15k-237 --weights $f/weights/fb15k-237-random.safetensors --split test --corruptions 0 --device cuda --quiet"
for round in 1 2; do for v in -old ""; do
  PROOFC_CACHE_DIR=/tmp/pc $N/bin/proofc-run $f/bundles/v10-b16384$v.pcb $F --queries 700 --report /tmp/q700.json --outcomes /tmp/fb$v.tsv > /tmp/fb.err 2>&1 || { echo "fb $v failed"; tail -2 /tmp/fb.err; }
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['timings']; print(sys.argv[2], 'run %.3f setup %.3f total %.3f' % (t['run_seconds'], t['setup_seconds'], t['total_seconds']))" /tmp/q700.json "r$round fb15k-237 q700 ${v:-new}"
  rm -f /tmp/q700.json
done; cmp -s /tmp/fb.tsv /tmp/fb-old.tsv && echo "fb15k-237 q700 outcomes byte-identical" || echo "fb15k-237 q700 outcomes DIFFER"; done
echo "q700 at $(( $(date +%s) - t0 )) s"
bash bench/scale-out/run.sh one
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({k: j[k] for k in j if not isinstance(j[k], (list, dict))}, indent=1))" $OUT/scale-out/one.json 2>/dev/null || ls -R $OUT/scale-out
echo "all $(( $(date +%s) - t0 )) s"
