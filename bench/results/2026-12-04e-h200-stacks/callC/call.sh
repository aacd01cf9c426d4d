#!/usr/bin/env bash
# Call C: what killed call B's children (SIGSEGV, 3 of 9 runs under the
# injection). GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce under
# the injection with bench/proto/thread_stacks.cpp preloaded (now also
# dumping the faulting thread on a crash): on this tree from the shell
# (four runs) and through ManyThreadsAtOnceUnderCupti (once: three
# children), then on the tree less the upload's and launch's serialization
# (upload-launch.patch reversed: call A's runtime) from the shell, four
# runs. A run alive after 25 s gets its stacks taken and is killed.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-unittests || exit 1
call_timeline_lib /tmp/kt.so > /dev/null || exit 1
g++ -O2 -shared -fPIC bench/proto/thread_stacks.cpp -o /tmp/stacks.so || exit 1
R=/tmp/callC; rm -rf $R; mkdir -p $R
child() {
  local label=$1 bin=$2 s=$(date +%s%N)
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv \
    LD_PRELOAD=/tmp/stacks.so PROOFC_STACKS_OUT=$R/stacks-$label.txt \
    $bin --gtest_filter=GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce \
    --gtest_also_run_disabled_tests > $R/child-$label.log 2>&1 &
  local pid=$! k
  for k in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    echo "$label: alive after 25 s (hung): stacks"
    kill -USR2 $pid; sleep 3; kill -9 $pid; wait $pid 2>/dev/null
  else
    wait $pid; local rc=$?
    echo "$label: exit $rc in $(( ($(date +%s%N) - s) / 1000000 )) ms"
    [ $rc -eq 0 ] && { rm -f $R/stacks-$label.txt; return; }
  fi
  python3 bench/proto/symbolize_stacks.py $R/stacks-$label.txt > $R/named-$label.txt 2>&1
  if grep -q "fatal signal" $R/named-$label.txt; then
    sed -n '/fatal signal/,/--- maps/p' $R/named-$label.txt | cut -c1-200 | head -40
  fi
}
for i in 1 2 3 4; do child new-$i $N/bin/proofc-unittests; done
LD_PRELOAD=/tmp/stacks.so PROOFC_STACKS_OUT=$R/stacks-test.txt PROOFC_TEST_CUPTI_INJECTION=/tmp/kt.so \
  $N/bin/proofc-unittests --gtest_filter=GpuGraphInstantiation.ManyThreadsAtOnceUnderCupti > $R/test.log 2>&1
echo "the test: exit $?"; grep -E "under CUPTI|status|did not end" $R/test.log
python3 bench/proto/symbolize_stacks.py $R/stacks-test.txt > $R/named-test.txt 2>&1
grep -q "fatal signal" $R/named-test.txt && sed -n '/fatal signal/,/--- maps/p' $R/named-test.txt | cut -c1-200 | head -40
echo "at $(($(date +%s) - t0)) s"
call_base_tree bench/results/2026-12-04e-h200-stacks/callC/upload-launch.patch proofc-unittests || exit 1
for i in 1 2 3 4; do
  [ $(($(date +%s) - t0)) -gt 520 ] && break
  child base-$i $BASE/build-gpu-device/bin/proofc-unittests
done
tar -czf $OUT/callC.tar.gz -C $R .
echo "all $(($(date +%s) - t0)) s"
