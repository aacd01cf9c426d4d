#!/usr/bin/env bash
# Call D: fb15k-237's whole test split with every filtered corruption on one
# GPU (bench/scale-out/run.sh one: V10 at B = 16384, shared lists, seed-0
# random weights; prepared by bench/scale-out/prepare.sh, its data carried
# as .fbdata/fb.tar.gz), first with the default bundle (3xF16 since row
# 48: both linears unfolded on the tensor cores, the table over the
# fold's budget; 18 policy blocks an SM, 96 registers, as before), then
# with --policy-matmul tf32x3, in the same call; metrics compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
call_build build-gpu-device proofc-run || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
OUT=$OUT/f16 bash bench/scale-out/run.sh one
echo "f16 at $(( $(date +%s) - t0 )) s"
mv .fbdata/bundles/v10-b16384.pcb .fbdata/bundles/v10-b16384-f16.pcb
mv .fbdata/bundles/v10-b16384-tf32.pcb .fbdata/bundles/v10-b16384.pcb
OUT=$OUT/tf32 bash bench/scale-out/run.sh one
echo "tf32 at $(( $(date +%s) - t0 )) s"
python3 - $OUT/f16/scale-out/one.json $OUT/tf32/scale-out/one.json <<'PY'
import json, sys
f16, tf32 = (json.load(open(p)) for p in sys.argv[1:3])
for name, j in (("f16", f16), ("tf32", tf32)):
    print(name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
r1, r2 = f16.get("results"), tf32.get("results")
print("results (metrics, rank metrics, pykeen) equal between the forms:", r1 is not None and r1 == r2)
if r1 != r2 and r1 and r2:
    for k in r1:
        if r1.get(k) != r2.get(k):
            print(" differs:", k, json.dumps(r1.get(k))[:300], "|", json.dumps(r2.get(k))[:300])
PY
echo "all $(( $(date +%s) - t0 )) s"
