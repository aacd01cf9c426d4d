#!/usr/bin/env bash
# Call B: scripts/gpu-check.sh on the tree with CudaDriver's graph calls
# (instantiation, upload and launch serialized, after call A's stacks),
# GpuGraphInstantiation.ManyThreadsAtOnceUnderCupti among its tests (three
# runs of the child under the injection), then that test twice more (six
# more runs). Everything but out.txt goes into one archive.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L
t0=$(date +%s)
R=/tmp/callB; rm -rf $R; mkdir -p $R
OUT=$R/check scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
echo "gpu-check rc=$? at $(($(date +%s) - t0)) s"
grep -v "^\[ gpu      \] [a-z_0-9]* cond=" $R/gpu-check.txt | tail -30
grep "UnderCupti\|under CUPTI" $R/check/tests.log
scripts/build-timeline-lib.sh /tmp/kt.so > /dev/null 2>&1 || { echo "no timeline lib"; exit 1; }
PROOFC_TEST_CUPTI_INJECTION=/tmp/kt.so build-gpu-device/bin/proofc-unittests \
  --gtest_filter=GpuGraphInstantiation.ManyThreadsAtOnceUnderCupti --gtest_repeat=2 \
  > $R/repeat.log 2>&1
echo "repeat rc=$? at $(($(date +%s) - t0)) s"
grep -E "under CUPTI|OK \]|FAILED|did not end" $R/repeat.log
tar -czf $OUT/callB.tar.gz -C $R .
echo "all $(($(date +%s) - t0)) s"
