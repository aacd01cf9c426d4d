#!/usr/bin/env bash
# Call A: the two-tier cold start (runtime/src/cuda/CompileTiers.h) on the
# GPU. 1. GpuCompileTiers (the test bundle on nations, every compiled
# bundle on kinship: quick == optimized bit for bit, both the host's).
# 2. V10 at B = 8192 cold (empty kernel cache and driver compute cache),
# three processes each with PROOFC_COMPILE_TIERS=auto and =off: the
# report's modules_seconds, kernels_tier, optimized_modules_seconds,
# run_seconds, the process wall, and the outcomes compared. 3. The session
# bench cold, 300 calls, auto and off: first call, the call that swapped,
# the runs before and after. 4. The GPU suites (scripts/gpu-check.sh).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-unittests proofc-run proofc-session-bench || exit 1
export PROOFC_SHARED_DIR=$PWD/.gpudata
B=""
while read -r name flags; do
  [ -f .gpudata/bundles/$name ] && B="$B .gpudata/bundles/$name"
done < <(grep -v '^#' test/compiled-bundles.txt)
echo "== 1. GpuCompileTiers"
PROOFC_TEST_BUNDLE="$B" timeout 300 $N/bin/proofc-unittests \
  --gtest_filter='GpuCompileTiers*:CompileTiers*:KernelCache*' > $OUT/tiers-tests.log 2>&1
echo "exit $?"
grep -E '^\[ tiers|^\[  (FAILED|PASSED|SKIPPED) |Failure' -A3 $OUT/tiers-tests.log | head -60
echo "built+tested at $(( $(date +%s) - t0 )) s"

echo "== 2. proofc-run cold, V10 B=8192"
P=.gpudata/bundles/v10-b8192.pcb
for r in 1 2 3; do
  for tiers in auto off; do
    rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
    s=$(date +%s.%N)
    PROOFC_COMPILE_TIERS=$tiers PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
      timeout 120 $N/bin/proofc-run $P --data .gpudata/data/kinship \
      --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 \
      --device cuda --quiet --report $OUT/cold-$tiers-$r.json --outcomes /tmp/o-$tiers-$r.bin \
      2> /tmp/e || { echo "run failed"; tail -3 /tmp/e; }
    e=$(date +%s.%N)
    python3 - $OUT/cold-$tiers-$r.json $tiers $r $s $e <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); d = j["backend_details"]
print(f"{sys.argv[2]:4} r{sys.argv[3]}: modules {d['modules_seconds']:.3f} s, tier {d['kernels_tier']}, "
      f"optimized {d.get('optimized_modules_seconds', '-')}, compile {j['timings']['compile_seconds']:.3f} s, "
      f"run {j['timings']['run_seconds']*1e3:.2f} ms, process {float(sys.argv[5]) - float(sys.argv[4]):.3f} s, "
      f"mrr {j['metrics']['both']['mrr']:.6f}, modules {d['module_compile_seconds']}")
PY
    # warm, the process after
    PROOFC_COMPILE_TIERS=$tiers PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
      timeout 120 $N/bin/proofc-run $P --data .gpudata/data/kinship \
      --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 \
      --device cuda --quiet --report $OUT/warm-$tiers-$r.json 2> /tmp/e || { echo "warm failed"; tail -3 /tmp/e; }
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); d=j['backend_details']; print('     warm: modules %.3f s, tier %s, misses %d, run %.2f ms' % (d['modules_seconds'], d['kernels_tier'], d['kernel_cache']['misses'], j['timings']['run_seconds']*1e3))" $OUT/warm-$tiers-$r.json
  done
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-off-1.bin && echo "$f same as off-1" || echo "$f DIFFERS from off-1"; done
echo "at $(( $(date +%s) - t0 )) s"

echo "== 3. session bench cold, 300 calls"
for tiers in auto off; do
  rm -rf /tmp/kc /tmp/jc; mkdir -p /tmp/kc /tmp/jc
  PROOFC_COMPILE_TIERS=$tiers PROOFC_CACHE_DIR=/tmp/kc CUDA_CACHE_PATH=/tmp/jc \
    timeout 120 $N/bin/proofc-session-bench $P --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --calls 300 > $OUT/sb-cold-$tiers.json 2> /tmp/e || { echo "sb failed"; tail -3 /tmp/e; }
  python3 - $OUT/sb-cold-$tiers.json $tiers <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); c = j["calls"]
big = max(range(len(c)), key=lambda i: c[i]["setup_ms"])
runs = [x["run_ms"] for x in c]
print(f"{sys.argv[2]}: open {j['open_s']:.3f} s, first call {j['first_call_ms']:.1f} ms (run {j['first_run_ms']:.2f}), "
      f"largest setup at call {big+1}: {c[big]['setup_ms']:.1f} ms; runs before it {sorted(runs[:big])[len(runs[:big])//2] if big else 0:.3f} ms (median), "
      f"after {sorted(runs[big+1:])[len(runs[big+1:])//2]:.3f} ms; median call {j['median_call_ms']:.3f}; "
      f"mrr first {c[0]['mrr']:.6f} last {c[-1]['mrr']:.6f}")
PY
done
echo "at $(( $(date +%s) - t0 )) s"

echo "== 4. GPU suites"
timeout $(( 560 - ($(date +%s) - t0) )) scripts/gpu-check.sh > $OUT/gpu-check.txt 2>&1
echo "gpu-check exit $?"; tail -25 $OUT/gpu-check.txt
echo "all $(( $(date +%s) - t0 )) s"
