#!/usr/bin/env bash
# Call E: call D again with GpuGraphInstantiation reworked once more after
# call D showed no power either: the graph as the runtime builds it (a chain
# of kernels, then a WHILE node whose body has device-updatable kernels),
# uploaded and launched, 100 rounds, the timeline's marks on. The tests on this tree
# (twice), then on the tree less CudaDriver::instantiateGraph's
# serialization (callA/serialize.patch reverse-applied in place, rebuilt):
# the test once, its child three more times (timeout 30 s: 124 is a hang).
set -uo pipefail
t0=$(date +%s)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=$PWD/build-gpu-device
PROOFC_GPU_BUILD_DIR=$B scripts/gpu-build.sh $OUT/build.log proofc-unittests > /dev/null 2>&1 ||
  { echo "build failed"; tail -20 $OUT/build.log; exit 1; }
echo "built at $(($(date +%s) - t0)) s"
scripts/build-timeline-lib.sh /tmp/kt.so > /dev/null 2>&1 || { echo "no timeline lib"; exit 1; }
export PROOFC_TEST_CUPTI_INJECTION=/tmp/kt.so
for i in 1 2; do
  s=$(date +%s)
  $B/bin/proofc-unittests --gtest_filter='GpuGraphInstantiation.*' > $OUT/new-test-$i.log 2>&1
  echo "new: the test exit $? in $(($(date +%s) - s)) s"
  grep -E '^\[ +(gpu|OK|FAILED|SKIPPED) ' $OUT/new-test-$i.log
done
patch -R -p1 -s < bench/results/2026-12-04d-h200-sweep/callA/serialize.patch || exit 1
PROOFC_GPU_BUILD_DIR=$B scripts/gpu-build.sh $OUT/base-build.log proofc-unittests > /dev/null 2>&1 ||
  { echo "base build failed"; tail -20 $OUT/base-build.log; exit 1; }
grep -c CudaDriver.cpp $OUT/base-build.log
echo "base built at $(($(date +%s) - t0)) s"
s=$(date +%s)
$B/bin/proofc-unittests --gtest_filter='GpuGraphInstantiation.*' > $OUT/base-test.log 2>&1
echo "base: the test exit $? in $(($(date +%s) - s)) s"
grep -E '^\[ +(gpu|OK|FAILED|SKIPPED) |hung' $OUT/base-test.log
for i in 1 2 3; do
  [ $(($(date +%s) - t0)) -gt 500 ] && break
  s=$(date +%s)
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv PROOFC_TIMELINE_MARKS=1 timeout 30 \
    $B/bin/proofc-unittests \
    --gtest_filter=GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce \
    --gtest_also_run_disabled_tests > $OUT/base-child-$i.log 2>&1
  echo "base: the child alone, run $i, exit $? in $(($(date +%s) - s)) s"
done
echo "all $(( $(date +%s) - t0 )) s"
