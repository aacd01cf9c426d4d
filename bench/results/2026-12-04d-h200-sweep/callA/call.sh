#!/usr/bin/env bash
# Call A: (1) V10's B past 12288 with 12288's heuristics (memo waits 2,
# the tail hand-off at 264, no register cap on the advance-engine), which
# GpuHeuristics turns off from 16384 for fb15k-237: bundles compiled on
# the CPU machine into .gpudata/exp2 (bNNN: the defaults; -s: all three
# of 12288's; -wh, -wr, -hr: two of them), each bundle's outcomes against
# b12288's, then the session bench's medians, three rounds interleaved.
# (2) gpu-check's CUPTI step against a runtime without
# CudaDriver::instantiateGraph's serialization (this tree less
# serialize.patch, built by call_base_tree), to see whether kinship's two
# blocks reproduce the deadlock that fb15k-237's 300 queries did
# (2026-12-04c call A); then against this tree's runtime.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
d=bench/results/2026-12-04d-h200-sweep/callA
x=.gpudata/exp2
call_reference $x/b12288.pcb || exit 1
for b in b16384 b16384-s b16384-wh b16384-wr b16384-hr b20480 b20480-s; do
  call_outcomes $b $x/$b.pcb
done
echo "outcomes at $(($(date +%s) - t0)) s"
for r in 1 2 3; do
  for b in b12288 b16384 b16384-s b16384-wh b16384-wr b16384-hr b20480 b20480-s; do
    call_session_median $N/bin/proofc-session-bench $x/$b.pcb "$b r$r"
  done
done
echo "session bench at $(($(date +%s) - t0)) s"

call_timeline_lib /tmp/kt.so || exit 1
call_base_tree $d/serialize.patch proofc-run || exit 1
cupti_runs() {
  local label=$1 bin=$2 i s rc
  for i in 1 2 3 4; do
    rm -rf /tmp/pc-cupti
    s=$(date +%s%N)
    CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl-$label.csv \
      PROOFC_CACHE_DIR=/tmp/pc-cupti timeout 40 $bin/bin/proofc-run \
      .gpudata/bundles/v10-step-b8192.pcb --data .gpudata/data/kinship \
      --weights .gpudata/weights/kinship.safetensors --queries 600 \
      --corruptions 100 --block 65536 --workers-per-device 2 --device cuda \
      --quiet > /tmp/cupti-$label-$i.log 2>&1
    rc=$?
    echo "cupti $label run $i exit $rc $(( ($(date +%s%N) - s) / 1000000 )) ms"
  done
}
cupti_runs base /tmp/base/build-gpu-device
cupti_runs new $N
echo "all $(( $(date +%s) - t0 )) s"
