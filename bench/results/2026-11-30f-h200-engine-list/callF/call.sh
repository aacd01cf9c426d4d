#!/usr/bin/env bash
# Call F: row 39 as committed (the engine node from B = 8192). The bench
# with the cond-free torch port in the same call (proofc at B = 256, 4096,
# 8192; the port at 4096, its fastest B in calls since 2026-11-30c), then
# fb15k-237's whole test split with every filtered corruption on one GPU
# (bench/scale-out/run.sh one: B = 16384, shared lists, random weights).
set -uo pipefail
t0=$(date +%s)
nvidia-smi -L | tee $OUT/gpu.txt
bash bench/run.sh --no-large --no-memo-off --batches 256,4096,8192 --torch-batches 4096 --torch-variants nocond --repeats 5
echo "bench at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
bash bench/scale-out/run.sh one
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({k: j[k] for k in j if not isinstance(j[k], (list, dict))}, indent=1))" $OUT/scale-out/one.json 2>/dev/null || ls -R $OUT/scale-out
echo "all $(( $(date +%s) - t0 )) s"
