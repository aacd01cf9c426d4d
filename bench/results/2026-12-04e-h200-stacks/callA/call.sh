#!/usr/bin/env bash
# Call A: scripts/gpu-check.sh on e63f968 (conditionalNodeParams, not yet
# run on a GPU), then the stacks of the hang that 2026-12-04d's call E met:
# GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce under the CUPTI
# injection on this tree (instantiation serialized), twice; a run alive
# after 25 s gets /proc's view of its threads and every thread's stack
# (bench/proto/thread_stacks.cpp, named by symbolize_stacks.py), then is
# killed. Everything but out.txt goes into one archive (8 files come back).
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L
t0=$(date +%s)
R=/tmp/callA; rm -rf $R; mkdir -p $R
OUT=$R/check scripts/gpu-check.sh > $R/gpu-check.txt 2>&1
echo "gpu-check rc=$? at $(($(date +%s) - t0)) s"
cat $R/gpu-check.txt
B=$PWD/build-gpu-device
call_timeline_lib /tmp/kt.so || exit 1
g++ -O2 -shared -fPIC bench/proto/thread_stacks.cpp -o /tmp/stacks.so || exit 1
for i in 1 2; do
  s=$(date +%s)
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv PROOFC_TIMELINE_MARKS=1 \
    LD_PRELOAD=/tmp/stacks.so PROOFC_STACKS_OUT=$R/stacks-$i.txt \
    $B/bin/proofc-unittests --gtest_filter=GpuGraphInstantiationChild.DISABLED_ManyThreadsAtOnce \
    --gtest_also_run_disabled_tests > $R/child-$i.log 2>&1 &
  pid=$!
  for k in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    echo "child $i alive after 25 s: stacks"
    for t in /proc/$pid/task/*; do
      echo "$(basename $t) $(cat $t/comm) $(cat $t/wchan 2>/dev/null) $(cut -d' ' -f1 $t/syscall 2>/dev/null)"
    done > $R/tasks-$i.txt
    kill -USR2 $pid; sleep 3; kill -9 $pid; wait $pid 2>/dev/null
    python3 bench/proto/symbolize_stacks.py $R/stacks-$i.txt > $R/named-$i.txt 2>&1
    wc -l $R/named-$i.txt
    grep -n "cu[A-Z][A-Za-z]*\|proofc::" $R/named-$i.txt | grep -v "^.*libcupti.*+0x" | head -60
  else
    wait $pid; echo "child $i rc=$? in $(($(date +%s) - s)) s"; tail -3 $R/child-$i.log
  fi
done
tar -czf $OUT/callA.tar.gz -C $R .
echo "all $(($(date +%s) - t0)) s"
