#!/usr/bin/env bash
# Call C: scripts/gpu-check.sh on this tree (the mends: CompileTarget::
# ofOrdinal, the prefetch's cached answer kept; the new
# GpuGraphInstantiation tests, run under CUPTI's injection), then the
# new test's power: the same tree less CudaDriver::instantiateGraph's
# serialization (callA/serialize.patch reverse-applied in place, the
# unit tests rebuilt), the test once and its child twice more under the
# injection (timeout 30 s each: 124 is a hang).
set -uo pipefail
t0=$(date +%s)
OUT=$OUT/check PROOFC_GPU_BUILD_DIR=$PWD/build-gpu-device scripts/gpu-check.sh
echo "gpu-check exit $? at $(($(date +%s) - t0)) s"
patch -R -p1 -s < bench/results/2026-12-04d-h200-sweep/callA/serialize.patch || exit 1
PROOFC_GPU_BUILD_DIR=$PWD/build-gpu-device scripts/gpu-build.sh $OUT/base-build.log proofc-unittests > /dev/null 2>&1 ||
  { echo "base build failed"; tail -20 $OUT/base-build.log; exit 1; }
echo "base built at $(($(date +%s) - t0)) s"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
scripts/build-timeline-lib.sh /tmp/kt.so > /dev/null 2>&1 || { echo "no timeline lib"; exit 1; }
s=$(date +%s)
PROOFC_TEST_CUPTI_INJECTION=/tmp/kt.so build-gpu-device/bin/proofc-unittests \
  --gtest_filter='GpuGraphInstantiation.*' > $OUT/base-test.log 2>&1
echo "base: the test exit $? in $(($(date +%s) - s)) s"
grep -E '^\[ +(gpu|OK|FAILED|SKIPPED) ' $OUT/base-test.log
for i in 1 2; do
  [ $(($(date +%s) - t0)) -gt 540 ] && break
  s=$(date +%s)
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv timeout 30 \
    build-gpu-device/bin/proofc-unittests \
    --gtest_filter=GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce \
    --gtest_also_run_disabled_tests > $OUT/base-child-$i.log 2>&1
  echo "base: the child alone, run $i, exit $? in $(($(date +%s) - s)) s"
done
echo "all $(( $(date +%s) - t0 )) s"
