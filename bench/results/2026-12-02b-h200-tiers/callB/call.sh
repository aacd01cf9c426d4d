#!/usr/bin/env bash
# Call B: the cold start after the two-tier modules and the device
# prologue's compile moved beside the modules' (setup starts both before
# the knowledge base and the buffers). "old" is 6a99a7d (the landed tree,
# .gpudata/oldtree: `git archive` of it without bench/results, its
# runtime built here). 1. V10 at B = 8192 cold (empty kernel cache and
# compute cache), three rounds of: new auto, new off, old; the reports'
# setup, modules and module seconds, the process wall; outcomes compared.
# 2. The session bench cold, 300 calls: new auto, new off, old. 3. The GPU
# suites (scripts/gpu-check.sh) on the new tree.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
N=build-gpu-device
O=.gpudata/oldtree/build-gpu-device
call_build_pair build-gpu-device proofc-run proofc-session-bench || exit 1
call_build build-gpu-device proofc-unittests || exit 1
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
      f"run {t['run_seconds']*1e3:.2f} ms, mrr {j['metrics']['both']['mrr']:.6f}, {m}")
PY
}
echo "== 1. cold proofc-run"
for r in 1 2 3; do
  cold new-auto-$r $N/bin/proofc-run auto
  cold new-off-$r $N/bin/proofc-run off
  cold old-$r $O/bin/proofc-run auto
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-old-1.bin || echo "$f DIFFERS from old-1"; done; echo "outcomes compared"
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
      f"{last} later calls above 5 ms of run ({t:.0f} ms of calls), the swap call {c[last]['setup_ms'] if last < len(c) else 0:.1f} ms of setup; "
      f"runs after {after[len(after)//2]:.3f} ms (median); calls {j['median_call_ms']:.3f} ms (median)")
PY
}
for r in 1 2; do
  sb new-auto-$r $N/bin/proofc-session-bench auto
  sb new-off-$r $N/bin/proofc-session-bench off
  sb old-$r $O/bin/proofc-session-bench auto
done
echo "at $(( $(date +%s) - t0 )) s"

echo "== 3. GPU suites"
OUT=/tmp/gc timeout $(( 570 - ($(date +%s) - t0) )) scripts/gpu-check.sh > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -6 /tmp/gc.txt
grep -E '^\[ tiers' /tmp/gc/tests.log
cp /tmp/gc/failures.log $OUT/ 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
