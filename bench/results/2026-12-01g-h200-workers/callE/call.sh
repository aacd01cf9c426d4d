#!/usr/bin/env bash
# Call E: the unit suites' unity build (test/unit/CMakeLists.txt) with the
# GPU machine's compiler (g++ 13; this machine's is 12, CI's sanitized build
# clang): built, then the suites the unity change touched (their helpers now
# in namespaces named after their files) and the GPU session suites run.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
t0=$(date +%s)
N=build-gpu-device
g++ --version | head -1
call_build $N proofc-unittests || exit 1
echo "built at $(( $(date +%s) - t0 )) s; warnings: $(grep -c 'warning:' $OUT/build-$N.log)"
PROOFC_SHARED_DIR=$PWD/.gpudata timeout 200 $N/bin/proofc-unittests \
  --gtest_filter='RankMetrics*:Metrics*:Dataset*:BadInput*:RowCounts*:HostBackendControl*:KernelCache*:Streaming*:Rollouts*:GpuSession*:GpuStreaming*:-*Stress*:Datasets/*' \
  2>&1 | grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" | head -20
echo "all $(( $(date +%s) - t0 )) s"
