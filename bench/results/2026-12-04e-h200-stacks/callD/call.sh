#!/usr/bin/env bash
# Call D: scripts/cupti-graph-calls.sh (the check gpu-check.sh now runs:
# the child from the shell under the injection, three runs) on this tree
# three times (nine runs), GpuGraphInstantiation.* without the injection,
# then the script once on the tree less the upload's and launch's
# serialization (callC/upload-launch.patch reversed): it must fail there.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-unittests || exit 1
call_timeline_lib /tmp/kt.so > /dev/null || exit 1
for i in 1 2 3; do
  scripts/cupti-graph-calls.sh $N/bin/proofc-unittests /tmp/kt.so $OUT/new.log
  echo "new $i: exit $?"
done
grep "ended in" $OUT/new.log | tr '\n' ' '; echo
$N/bin/proofc-unittests --gtest_filter='GpuGraphInstantiation.*' 2>&1 | grep -E "OK \]|FAILED"
echo "at $(($(date +%s) - t0)) s"
call_base_tree bench/results/2026-12-04e-h200-stacks/callC/upload-launch.patch proofc-unittests || exit 1
scripts/cupti-graph-calls.sh $BASE/build-gpu-device/bin/proofc-unittests /tmp/kt.so $OUT/base.log
echo "base: exit $?"
echo "all $(($(date +%s) - t0)) s"
