#!/usr/bin/env bash
# The Session benchmark (issue 15), ON the GPU machine after bench/prepare.sh
# here (carry .deps and .gpudata): builds proofc-run and proofc-session-bench
# runtime-only, then for the V10 workload (kinship, the first 100 test
# queries, 100 corruptions, v10-b256.pcb) runs
#   1. proofc-run once, as today (the bare run time of a one-shot run),
#   2. proofc-session-bench: one Session, 20 evaluate calls with new weights
#      each, weights on the GPU (as torch CUDA tensors) and then on the host;
#   3. bench/session/python_bench.py: the same from Python, proofc.Evaluator
#      with CUDA torch tensors (when the Python package builds there).
# Writes $OUT/session-bench.json (the results) and prints a summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-$root/.out}
work=${BENCH_WORK:-/tmp/proofc-session-bench}
mkdir -p "$out" "$work"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
scripts/gpu-build.sh "$work/build.log" proofc-run proofc-session-bench
python_built=0
scripts/gpu-build.sh "$work/build-python.log" proofc_python && python_built=1
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
"$build/bin/proofc-session-bench" "$bundle" --data "$data" \
  --weights "$weights" --queries 100 --corruptions 100 --calls "$calls" \
  --weights-on device --cancel-token > "$work/session-device-cancel.json"
if [ $python_built = 1 ]; then
  PYTHONPATH="$build/python" PROOFC_BIN_DIR="$build/bin" python3 \
    bench/session/python_bench.py "$bundle" "$data" "$weights" \
    --calls "$calls" > "$work/session-python.json" ||
    rm -f "$work/session-python.json"
fi
python3 - "$work" "$out/session-bench.json" <<'PY'
import json, os, sys
work, dest = sys.argv[1], sys.argv[2]
one = json.load(open(f"{work}/one-shot.json"))
result = {"one_shot": {"run_ms": one["timings"]["run_seconds"] * 1e3,
                       "total_ms": one["timings"]["total_seconds"] * 1e3,
                       "device": one["device"],
                       "mrr": one["metrics"]["both"]["mrr"]}}
for where in ("device", "device-cancel", "host", "python"):
    if os.path.exists(f"{work}/session-{where}.json"):
        result[f"session_{where}"] = json.load(open(f"{work}/session-{where}.json"))
json.dump(result, open(dest, "w"), indent=2)
o = result["one_shot"]
print(f"one-shot proofc-run: run {o['run_ms']:.2f} ms, end to end {o['total_ms']:.1f} ms ({o['device']})")
for where in ("device", "device-cancel", "host", "python"):
    if f"session_{where}" not in result:
        print(f"session, {where}: not run")
        continue
    s = result[f"session_{where}"]
    print(f"session, {where} weights: {len(s['calls'])} calls, median call "
          f"{s['median_call_ms']:.2f} ms vs run {s['median_run_ms']:.2f} ms: "
          f"x{s['median_call_over_run']:.3f} (max x{s['max_call_over_run']:.3f}); "
          f"first call {s['first_call_ms']:.1f} ms, open {s['open_s']*1e3:.0f} ms")
    if "session_ms" in s["calls"][0]:
        c = s["calls"][len(s["calls"]) // 2]
        print(f"  a call: session {c['session_ms']:.2f} ms (setup {c['setup_ms']:.2f}, "
              f"run {c['run_ms']:.2f}, readback {c['readback_ms']:.2f}), the "
              f"rest in the binding {c['call_ms'] - c['session_ms']:.2f}")
    elif "readback_ms" in s["calls"][0]:
        c = s["calls"][len(s["calls"]) // 2]
        print(f"  a call: setup {c['setup_ms']:.2f} ms, run {c['run_ms']:.2f}, "
              f"readback {c['readback_ms']:.2f}, metrics and report "
              f"{c['report_ms']:.2f}, rest {c['call_ms'] - c['setup_ms'] - c['run_ms'] - c['readback_ms'] - c['report_ms']:.2f}")
PY
