#!/usr/bin/env bash
# Call B (2026-11-30c): the cond-free PyTorch port (bench/torch, the fastest
# variant) at B = 256, 1024 and 4096 beside proofc's V10 rows, one call:
# which B is the port's fastest. Carry .gpudata (bench/prepare.sh with
# BENCH_BATCHES="256 4096" BENCH_LARGE=kinship) and .deps.
set -uo pipefail
t0=$(date +%s)
for TB in 256 1024 4096; do
  BENCH_WORK=/tmp/bench-$TB OUT=$OUT/tb$TB BENCH_BUDGET_S=170 bash bench/run.sh --no-large --no-memo-off \
    --batches 256,4096 --torch-variants nocond --torch-batch $TB --torch-min-s 60 --repeats 5 > $OUT/tb$TB.log 2>&1
  echo "torch B=$TB: exit $? at $(( $(date +%s) - t0 )) s"
  python3 - $OUT/tb$TB/bench-results.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["rows"]:
    print(f"  {row['impl']:14} B={row['B']:5} wall {row['wall_s']} runs {row.get('wall_runs_s')} status {row['status']}")
for a in r["agreement"]:
    print("  agreement", a.get("name", a))
PY
done
