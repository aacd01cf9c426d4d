#!/usr/bin/env bash
# Call A: the first GPU run of the last stop's review mends (9fc6895,
# 20d1cc2, 8a89576: the background prologue's fallback, one quick attempt,
# one NVRTC key and compile, the prologue's compile started after the
# knowledge base). 1. V10 at B = 8192 cold, three rounds of: tiers auto,
# off (the new order's cold times). 2. The GPU suites (scripts/gpu-check.sh),
# GpuCompileTiers and GpuDevicePrologue's quick test among them.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-unittests || exit 1
P=.gpudata/bundles/v10-b8192.pcb
K="--data .gpudata/data/kinship --weights .gpudata/weights/kinship.safetensors"

cold() { # label tiers
  rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
  local s e
  s=$(date +%s.%N)
  PROOFC_COMPILE_TIERS=$2 PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
    timeout 120 $N/bin/proofc-run $P $K --queries 100 --corruptions 100 --device cuda --quiet \
    --report /tmp/r.json --outcomes /tmp/o-$1.bin 2> /tmp/e || { echo "$1 failed"; tail -3 /tmp/e; return; }
  e=$(date +%s.%N)
  python3 - /tmp/r.json $1 $s $e <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j["backend_details"]; t = j["timings"]
m = {k: round(v, 3) for k, v in d["module_compile_seconds"].items()}
print(f"{sys.argv[2]:8} process {float(sys.argv[4]) - float(sys.argv[3]):.3f} s, total {t['total_seconds']:.3f}, "
      f"setup {t['setup_seconds']:.3f}, modules {d['modules_seconds']:.3f} ({d.get('kernels_tier', 'optimized')}), "
      f"run {t['run_seconds']*1e3:.2f} ms, mrr {j['metrics']['both']['mrr']:.6f}, {m}")
PY
}
echo "== 1. cold proofc-run"
for r in 1 2 3; do
  cold auto-$r auto
  cold off-$r off
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-off-1.bin || echo "$f DIFFERS from off-1"; done; echo "outcomes compared"
echo "at $(( $(date +%s) - t0 )) s"

echo "== 2. GPU suites"
OUT=/tmp/gc timeout $(( 570 - ($(date +%s) - t0) )) scripts/gpu-check.sh > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -6 /tmp/gc.txt
grep -E '^\[ tiers|FAILED' /tmp/gc/tests.log | head -20
cp /tmp/gc/failures.log $OUT/ 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
