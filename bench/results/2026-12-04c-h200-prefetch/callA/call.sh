#!/usr/bin/env bash
# Call A: the prefetch's hang under CUPTI (2026-12-04b calls D-E), its
# stacks. fb15k-237's first 300 queries, two workers, under the injection,
# with the prefetching runtime in four modes of a temporary switch
# (PROOFC_PREFETCH_DEBUG: both = the patch, share = the workers share one
# ModuleBuilds but nothing is prefetched, own = each worker prefetches its
# own, none = as e9ec923). A run alive after 20 s gets its stacks taken
# (bench/proto/thread_stacks.cpp; cuda-gdb too for the first) and killed.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
call_timeline_lib /tmp/kt.so || exit 1
g++ -O2 -shared -fPIC bench/proto/thread_stacks.cpp -o /tmp/stacks.so || exit 1
[ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
which cuda-gdb addr2line
fb() {
  local label=$1 mode=$2 workers=$3; shift 3
  local s=$(date +%s%N)
  env "$@" PROOFC_PREFETCH_DEBUG=$mode PROOFC_CACHE_DIR=/tmp/pc-$label \
    LD_PRELOAD=/tmp/stacks.so PROOFC_STACKS_OUT=$OUT/stacks-$label.txt \
    $N/bin/proofc-run \
    .fbdata/bundles/v10-b16384-new.pcb --data .fbdata/data/fb15k-237 \
    --weights .fbdata/weights/fb15k-237-random.safetensors --corruptions 0 \
    --queries 300 --block 1048576 --workers-per-device $workers --device cuda \
    --quiet --report /tmp/$label.json > /tmp/$label.log 2>&1 &
  local pid=$! i
  for i in $(seq 40); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    echo "$label alive after 20 s: stacks"
    for t in /proc/$pid/task/*; do
      echo "$(basename $t) $(cat $t/comm) $(cat $t/wchan 2>/dev/null) $(cut -d' ' -f1 $t/syscall 2>/dev/null)"
    done > $OUT/tasks-$label.txt
    kill -USR2 $pid; sleep 3
    if [ "$label" = both ]; then
      timeout 90 cuda-gdb -p $pid -batch -ex 'info threads' -ex 'thread apply all bt 30' \
        > $OUT/gdb-$label.txt 2>&1; echo "cuda-gdb rc=$?"
    fi
    kill -9 $pid; wait $pid 2>/dev/null
    python3 bench/proto/symbolize_stacks.py $OUT/stacks-$label.txt > $OUT/named-$label.txt 2>&1
    wc -l $OUT/named-$label.txt
  else
    wait $pid; echo "$label rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; tail -2 /tmp/$label.log
    rm -f $OUT/stacks-$label.txt
  fi
}
T="CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/t.csv PROOFC_TIMELINE_MARKS=1"
fb both both 2 $T
fb share share 2 $T
fb own own 2 $T
fb none none 2 $T
fb plain both 2
echo "all $(( $(date +%s) - t0 )) s"
