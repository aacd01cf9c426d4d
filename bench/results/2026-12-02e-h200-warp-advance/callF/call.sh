#!/usr/bin/env bash
# Call F: wn18rr's whole test split with every filtered corruption on one
# GPU (WORKLOAD=wn18rr bench/scale-out/run.sh one: V10 at B = 16384, shared
# lists, the shipped trained policy; bench/scale-out/prepare.sh wn18rr,
# .gpudata carried): 2d87b3d's bundle (old), then d58ee13's (new: the
# advance by a warp), both cold (each bundle's first process compiles its
# kernels); results compared. (As run, its first lines wrote out
# call_lib.sh's call_start: call_env, gpu.txt, t0 and the build into
# build-gpu-device, "built at ... s"; the same now by name.)
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
B=.gpudata/bundles
mv $B/v10-b16384.pcb $B/v10-b16384-new.pcb
for v in old new; do
  cp $B/v10-b16384-$v.pcb $B/v10-b16384.pcb
  OUT=$OUT/$v WORKLOAD=wn18rr timeout 150 bash bench/scale-out/run.sh one > /tmp/wn-$v.log 2>&1 || { echo "wn18rr $v failed"; tail -5 /tmp/wn-$v.log; }
  echo "wn18rr $v at $(( $(date +%s) - t0 )) s"
done
python3 - $OUT/old/scale-out-wn18rr/one.json $OUT/new/scale-out-wn18rr/one.json <<'PY'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
for name, j in (("old", old), ("new", new)):
    print(name, "wall", j["wall_seconds"], "rss GiB", j["max_rss_gib"], "timings", json.dumps(j.get("timings")))
r1, r2 = old.get("results"), new.get("results")
print("results (metrics, rank metrics, pykeen) equal:", r1 is not None and r1 == r2)
PY
rm -rf $OUT/*/scale-out-wn18rr/*.tsv 2>/dev/null
tar -czf $OUT/wn.tar.gz -C $OUT old new 2>/dev/null; rm -rf $OUT/old $OUT/new
echo "all $(( $(date +%s) - t0 )) s"
