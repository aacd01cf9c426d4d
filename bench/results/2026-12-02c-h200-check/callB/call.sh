#!/usr/bin/env bash
# Call B: the optimized tier's background build started once the quick
# modules are built (ModuleBuilds' release) against the landed c608483,
# where it started beside them (.gpudata/oldtree: `git archive c608483`
# without bench/results, built in the call). 1. V10 at B = 8192 cold, five
# rounds of: new auto, old auto, new off. 2. The session bench cold, 300
# calls, two rounds of: new auto, old auto. 3. The tiers' GPU tests on the
# new tree (GpuCompileTiers, GpuDevicePrologue).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
lscpu | grep -E '^(CPU\(s\)|Thread|Core|Socket|Model name)' 
t0=$(date +%s)
N=build-gpu-device
O=.gpudata/oldtree/build-gpu-device
call_build_pair build-gpu-device proofc-run proofc-session-bench proofc-unittests || exit 1
echo "built at $(( $(date +%s) - t0 )) s"
P=.gpudata/bundles/v10-b8192.pcb
K="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"

cold() { # label binary tiers
  rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
  local s e
  s=$(date +%s.%N)
  PROOFC_COMPILE_TIERS=$3 PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
    timeout 120 $2 $P $K --queries 100 --corruptions 100 --device cuda --quiet \
    --report /tmp/r.json --outcomes /tmp/o-$1.bin 2> /tmp/e || { echo "$1 failed"; tail -3 /tmp/e; return; }
  e=$(date +%s.%N)
  python3 - /tmp/r.json $1 $s $e <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j["backend_details"]; t = j["timings"]
m = {k: round(v, 3) for k, v in d["module_compile_seconds"].items()}
print(f"{sys.argv[2]:10} process {float(sys.argv[4]) - float(sys.argv[3]):.3f} s, total {t['total_seconds']:.3f}, "
      f"setup {t['setup_seconds']:.3f}, modules {d['modules_seconds']:.3f} ({d.get('kernels_tier', 'optimized')}), "
      f"optimized after {d.get('optimized_modules_seconds') or -1:.3f}, run {t['run_seconds']*1e3:.2f} ms, {m}")
PY
}
echo "== 1. cold proofc-run"
for r in 1 2 3 4 5; do
  cold new-auto-$r $N/bin/proofc-run auto
  cold old-auto-$r $O/bin/proofc-run auto
  cold new-off-$r $N/bin/proofc-run off
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-new-off-1.bin || echo "$f DIFFERS from new-off-1"; done; echo "outcomes compared"
echo "at $(( $(date +%s) - t0 )) s"

echo "== 2. session bench cold, 300 calls"
sb() { # label binary tiers
  rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
  PROOFC_COMPILE_TIERS=$3 PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
    timeout 120 $2 $P $K --calls 300 > /tmp/sb.json 2> /tmp/e || { echo "$1 failed"; tail -3 /tmp/e; return; }
  python3 - /tmp/sb.json $1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); c = j["calls"]
quick = [i for i, x in enumerate(c) if x["run_ms"] > 5]
last = quick[-1] + 1 if quick else 0
after = sorted(x["run_ms"] for x in c[last:])
t = sum(x["call_ms"] for x in c[:last])
print(f"{sys.argv[2]:10} open {j['open_s']:.3f} s, first call {j['first_call_ms']:.1f} ms (run {j['first_run_ms']:.2f} ms); "
      f"{last} calls above 5 ms of run ({t:.0f} ms of calls); runs after {after[len(after)//2]:.3f} ms (median); "
      f"all 300 calls {sum(x['call_ms'] for x in c):.0f} ms")
PY
}
for r in 1 2; do
  sb new-auto-$r $N/bin/proofc-session-bench auto
  sb old-auto-$r $O/bin/proofc-session-bench auto
done
echo "at $(( $(date +%s) - t0 )) s"

echo "== 3. the tiers' GPU tests"
OUT=/tmp/gc timeout $(( 560 - ($(date +%s) - t0) )) scripts/gpu-check.sh 'GpuCompileTiers*:GpuDevicePrologue*' > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -4 /tmp/gc.txt
grep -E '^\[ tiers|FAILED' /tmp/gc/tests.log | head -20
echo "all $(( $(date +%s) - t0 )) s"
