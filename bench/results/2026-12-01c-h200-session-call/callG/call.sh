#!/usr/bin/env bash
# Call G: fb15k-237's whole test split with every filtered corruption on one
# GPU (bench/scale-out/run.sh one: V10 at B = 16384, shared lists, seed-0
# random weights; prepared by bench/scale-out/prepare.sh, data carried as
# .fbdata/fb.tar.gz), the runtime of rows 44-45 and then 0dc09bd's
# (.gpudata/oldtree) on the same bundle: the ~80 blocks of the split each
# reset their state (row 44's reset graph); its table is over the fold's
# budget, so row 45 does not run. Metrics compared between the runtimes.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee $OUT/gpu.txt
t0=$(date +%s)
call_build_pair build-gpu-device proofc-run || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
tar -xzf .fbdata/fb.tar.gz -C .fbdata
bash bench/scale-out/run.sh one
echo "new at $(( $(date +%s) - t0 )) s"
PROOFC_GPU_BUILD_DIR=$PWD/.gpudata/oldtree/build-gpu-device OUT=$OUT/old bash bench/scale-out/run.sh one
echo "old at $(( $(date +%s) - t0 )) s"
python3 - $OUT/scale-out/one.json $OUT/old/scale-out/one.json <<'PY'
import json, sys
new, old = (json.load(open(p)) for p in sys.argv[1:3])
for name, j in (("new", new), ("old", old)):
    print(name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
print("results (metrics, rank metrics, pykeen) equal between the runtimes:",
      new.get("results") is not None and new.get("results") == old.get("results"))
PY
echo "all $(( $(date +%s) - t0 )) s"
