#!/usr/bin/env bash
# Call B: the optimized tier's background build started once the quick
# modules are built (ModuleBuilds' release) against the landed c608483,
# where it started beside them (.gpudata/oldtree: `git archive c608483`
# without bench/results, built in the call). 1. V10 at B = 8192 cold, five
# rounds of: new auto, old auto, new off. 2. The session bench cold, 300
# calls, two rounds of: new auto, old auto. 3. The tiers' GPU tests on the
# new tree (GpuCompileTiers, GpuDevicePrologue).
# (As run, its two cold helpers were written out here; call_lib.sh's
# call_cold_run and call_cold_session are those helpers, the first with
# the run's MRR added. Not kept: the change it measured is not in the
# tree; calls.md says what it was.)
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

echo "== 1. cold proofc-run"
for r in 1 2 3 4 5; do
  call_cold_run new-auto-$r $N/bin/proofc-run auto
  call_cold_run old-auto-$r $O/bin/proofc-run auto
  call_cold_run new-off-$r $N/bin/proofc-run off
done
for f in /tmp/o-*.bin; do cmp -s $f /tmp/o-new-off-1.bin || echo "$f DIFFERS from new-off-1"; done; echo "outcomes compared"
echo "at $(( $(date +%s) - t0 )) s"

echo "== 2. session bench cold, 300 calls"
for r in 1 2; do
  call_cold_session new-auto-$r $N/bin/proofc-session-bench auto
  call_cold_session old-auto-$r $O/bin/proofc-session-bench auto
done
echo "at $(( $(date +%s) - t0 )) s"

echo "== 3. the tiers' GPU tests"
OUT=/tmp/gc timeout $(( 560 - ($(date +%s) - t0) )) scripts/gpu-check.sh 'GpuCompileTiers*:GpuDevicePrologue*' > /tmp/gc.txt 2>&1
echo "gpu-check exit $?"; tail -4 /tmp/gc.txt
grep -E '^\[ tiers|FAILED' /tmp/gc/tests.log | head -20
echo "all $(( $(date +%s) - t0 )) s"
