#!/usr/bin/env bash
# The Session benchmark (issues 15 and 28): what the in-loop call costs over
# the run it wraps, as one table. For the V10 workload (kinship, the first
# 100 test queries, 100 corruptions) it runs
#   1. proofc-run once, as today (the bare run time of a one-shot run),
#   2. proofc-session-bench: one Session, 20 evaluate calls with new weights
#      each, weights on the GPU (as torch CUDA tensors) and then on the host
#      (and on the GPU again with a cancel token, as the Python package
#      passes one),
#   3. bench/session/python_bench.py: the same from Python, proofc.Evaluator
#      with CUDA torch tensors and with CPU torch tensors (when the Python
#      package builds there),
# then prints the table: per row the median call, the median bare run (the
# proof loop alone), the per-call overhead (call - run) and their ratio
# against issue 28's target (device weights <= 1.1x from C++, <= 1.2x from
# Python with CUDA tensors, host weights <= 1.2x), and per row one call's
# breakdown, with what the call leaves to be made on request (the rank
# metrics and the report's text from C++, the whole report as a dict from
# Python), timed after it. Writes $OUT/session-bench.json (every number) and
# $OUT/session-bench.md (the table).
#
#   bench/session/run.sh               ON the GPU machine after
#                                      bench/prepare.sh here (carry .deps and
#                                      .gpudata): builds runtime-only with
#                                      scripts/gpu-build.sh, bundle and data
#                                      from .gpudata
#   bench/session/run.sh --device cpu  here, without a GPU: the host-weight
#                                      rows on the host backend, from the
#                                      build tree (PROOFC_BUILD_DIR, default
#                                      build/; proofc, proofc-run,
#                                      proofc-session-bench and proofc_python
#                                      built), the bundle compiled from
#                                      examples/v10.mlir, data from ../shared
#
# Environment: SESSION_BENCH_CALLS (20), SESSION_BENCH_QUERIES (100),
# SESSION_BENCH_CORRUPTIONS (100), BENCH_WORK (scratch, default
# /tmp/proofc-session-bench), OUT.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. bench/common.sh
bench_device "bench/session/run.sh [--device cpu|cuda]" "$@"
bench_dirs session
rm -f "$work"/session-*.json "$work/one-shot.json"
calls=${SESSION_BENCH_CALLS:-20}
queries=${SESSION_BENCH_QUERIES:-100}
corruptions=${SESSION_BENCH_CORRUPTIONS:-100}
python=${PYTHON:-python3}
python_built=0
if [ "$device" = cuda ]; then
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
  scripts/gpu-build.sh "$work/build.log" proofc-run proofc-session-bench
  scripts/gpu-build.sh "$work/build-python.log" proofc_python && python_built=1
  bundle=.gpudata/bundles/v10-b256.pcb
  data=.gpudata/data/kinship
  weights=.gpudata/weights/kinship.safetensors
  wheres=(device device-cancel host)
  pywheres=(device host)
else
  build=${PROOFC_BUILD_DIR:-$root/build}
  shared=${PROOFC_SHARED_DIR:-$root/../shared}
  for t in proofc proofc-run proofc-session-bench; do
    [ -x "$build/bin/$t" ] ||
      { echo "run.sh: $build/bin/$t missing (cmake --build $build --target $t)" >&2; exit 1; }
  done
  ls "$build"/python/proofc/_core*.so > /dev/null 2>&1 && python_built=1
  bundle=$work/v10.pcb
  "$build/bin/proofc" compile examples/v10.mlir -o "$bundle"
  data=$shared/data/kinship
  weights=$shared/weights/kinship.safetensors
  wheres=(host)
  pywheres=(host)
fi
"$build/bin/proofc-run" "$bundle" --data "$data" --weights "$weights" \
  --queries "$queries" --corruptions "$corruptions" --device "$device" \
  --quiet --report "$work/one-shot.json" > "$work/one-shot.log"
for where in "${wheres[@]}"; do
  flags=(--weights-on "${where%-cancel}")
  [ "$where" = device-cancel ] && flags+=(--cancel-token)
  "$build/bin/proofc-session-bench" "$bundle" --data "$data" \
    --weights "$weights" --queries "$queries" --corruptions "$corruptions" \
    --calls "$calls" --device "$device" "${flags[@]}" \
    > "$work/session-$where.json"
done
if [ $python_built = 1 ]; then
  for where in "${pywheres[@]}"; do
    PYTHONPATH="$build/python" PROOFC_BIN_DIR="$build/bin" "$python" \
      bench/session/python_bench.py "$bundle" "$data" "$weights" \
      --calls "$calls" --queries "$queries" --corruptions "$corruptions" \
      --device "$device" --weights-on "$where" \
      > "$work/session-python-$where.json" ||
      rm -f "$work/session-python-$where.json"
  done
fi
"$python" - "$work" "$out" <<'PY'
import json, os, sys
work, out = sys.argv[1], sys.argv[2]
one = json.load(open(f"{work}/one-shot.json"))
result = {"one_shot": {"run_ms": one["timings"]["run_seconds"] * 1e3,
                       "total_ms": one["timings"]["total_seconds"] * 1e3,
                       "device": one["device"],
                       "mrr": one["metrics"]["both"]["mrr"]}}
# (file, row label, issue 28's target ratio)
rows = [("device", "C++, weights on the GPU", 1.1),
        ("device-cancel", "C++, weights on the GPU, cancel token", 1.1),
        ("host", "C++, host weights", 1.2),
        ("python-device", "Python, CUDA torch tensors", 1.2),
        ("python-host", "Python, CPU torch tensors", 1.2)]
for where, _, _ in rows:
    if os.path.exists(f"{work}/session-{where}.json"):
        result[f"session_{where}"] = json.load(
            open(f"{work}/session-{where}.json"))
o = result["one_shot"]
lines = [f"one-shot proofc-run: run {o['run_ms']:.2f} ms, end to end "
         f"{o['total_ms']:.1f} ms ({o['device']})", "",
         "| evaluate | calls | median call ms | median run ms | overhead ms "
         "| call / run | target | met |",
         "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
for where, label, target in rows:
    s = result.get(f"session_{where}")
    if s is None:
        continue
    overhead = s.get("median_overhead_ms",
                     s["median_call_ms"] - s["median_run_ms"])
    ratio = s["median_call_over_run"]
    lines.append(f"| {label} | {len(s['calls'])} | {s['median_call_ms']:.2f} "
                 f"| {s['median_run_ms']:.2f} | {overhead:.2f} | x{ratio:.3f} "
                 f"(max x{s['max_call_over_run']:.3f}) | x{target} "
                 f"| {'yes' if ratio <= target else 'NO'} |")
missing = [label for where, label, _ in rows
           if f"session_{where}" not in result]
if missing:
    lines += ["", "not run: " + "; ".join(missing)]
for where, label, _ in rows:
    s = result.get(f"session_{where}")
    if s is None:
        continue
    c = s["calls"][len(s["calls"]) // 2]
    if "session_ms" in c:
        line = (f"{label}, a call: session {c['session_ms']:.2f} ms "
                f"(setup {c['setup_ms']:.2f}, run {c['run_ms']:.2f}, "
                f"readback {c['readback_ms']:.2f}), the rest in the "
                f"binding {c['call_ms'] - c['session_ms']:.2f}")
        if "report_dict_on_request_ms" in c:
            line += (f"; on request, after the call: the whole report as a "
                     f"dict {c['report_dict_on_request_ms']:.2f} ms")
        lines.append(line)
    else:
        line = (f"{label}, a call: setup {c['setup_ms']:.2f} ms, run "
                f"{c['run_ms']:.2f}, readback {c['readback_ms']:.2f}, "
                f"metrics and report inputs {c['report_ms']:.2f}, rest "
                f"{c['call_ms'] - c['setup_ms'] - c['run_ms'] - c['readback_ms'] - c['report_ms']:.2f}")
        if "rank_metrics_on_request_ms" in c:
            line += (f"; on request, after the call: rank metrics "
                     f"{c['rank_metrics_on_request_ms']:.2f} ms, the "
                     f"report's text {c['report_text_on_request_ms']:.2f}")
        lines.append(line)
json.dump(result, open(f"{out}/session-bench.json", "w"), indent=2)
open(f"{out}/session-bench.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
