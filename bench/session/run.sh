#!/usr/bin/env bash
# The Session benchmark (issue 15), ON the GPU machine after bench/prepare.sh
# here (carry .deps and .gpudata): builds proofc-run and proofc-session-bench
# runtime-only, then for the V10 workload (kinship, the first 100 test
# queries, 100 corruptions, v10-b256.pcb) runs
#   1. proofc-run once, as today (the bare run time of a one-shot run),
#   2. proofc-session-bench: one Session, 20 evaluate calls with new weights
#      each, weights on the GPU (as torch CUDA tensors) and then on the host.
# Writes $OUT/session-bench.json (the three results) and prints a summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/.out}
work=${BENCH_WORK:-/tmp/proofc-session-bench}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
scripts/gpu-build.sh "$work/build.log" proofc-run proofc-session-bench
bundle=.gpudata/bundles/v10-b256.pcb
data=.gpudata/data/kinship
weights=.gpudata/weights/kinship.safetensors
calls=${SESSION_BENCH_CALLS:-20}
"$build/bin/proofc-run" "$bundle" --data "$data" --weights "$weights" \
  --queries 100 --corruptions 100 --device cuda --quiet \
  --report "$work/one-shot.json" > "$work/one-shot.log"
for where in device host; do
  "$build/bin/proofc-session-bench" "$bundle" --data "$data" \
    --weights "$weights" --queries 100 --corruptions 100 --calls "$calls" \
    --weights-on "$where" > "$work/session-$where.json"
done
python3 - "$work" "$out/session-bench.json" <<'PY'
import json, sys
work, dest = sys.argv[1], sys.argv[2]
one = json.load(open(f"{work}/one-shot.json"))
result = {"one_shot": {"run_ms": one["timings"]["run_seconds"] * 1e3,
                       "total_ms": one["timings"]["total_seconds"] * 1e3,
                       "device": one["device"],
                       "mrr": one["metrics"]["both"]["mrr"]}}
for where in ("device", "host"):
    result[f"session_{where}"] = json.load(open(f"{work}/session-{where}.json"))
json.dump(result, open(dest, "w"), indent=2)
o = result["one_shot"]
print(f"one-shot proofc-run: run {o['run_ms']:.2f} ms, end to end {o['total_ms']:.1f} ms ({o['device']})")
for where in ("device", "host"):
    s = result[f"session_{where}"]
    print(f"session, weights on {where}: {len(s['calls'])} calls, median call "
          f"{s['median_call_ms']:.2f} ms vs run {s['median_run_ms']:.2f} ms: "
          f"x{s['median_call_over_run']:.3f} (max x{s['max_call_over_run']:.3f}); "
          f"first call {s['first_call_ms']:.1f} ms, open {s['open_s']*1e3:.0f} ms")
PY
