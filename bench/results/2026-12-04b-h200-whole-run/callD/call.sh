#!/usr/bin/env bash
# Call D: why call C's traced whole split did not end within 150 s (CUPTI
# injection with CUDA_CACHE_DISABLE=1, the kernels prefetched at open).
# V10 (kinship 100 x 100, two workers) under the injection with and
# without the driver's JIT cache, each with a 60 s limit; then fb15k-237's
# whole split traced with marks, the driver's cache on (this machine's
# first run of the bundle, so cold), 120 s limit; its layout.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
call_timeline_lib /tmp/kt.so || exit 1
v10() {
  local label=$1; shift
  local s=$(date +%s%N)
  env "$@" CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/$label.csv \
    PROOFC_TIMELINE_MARKS=1 PROOFC_CACHE_DIR=/tmp/pc-$label timeout 60 \
    $N/bin/proofc-run .gpudata/exp/new-b12288.pcb --data .gpudata/data/kinship \
    --weights .gpudata/weights/kinship.safetensors --queries 100 --corruptions 100 \
    --device cuda --quiet --report /tmp/$label.json > /tmp/$label.log 2>&1
  echo "$label rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; tail -3 /tmp/$label.log
  python3 bench/proto/block_timeline.py /tmp/$label.csv $label | head -4
}
v10 v10-nocache CUDA_CACHE_DISABLE=1
v10 v10-cache CUDA_CACHE_DISABLE=0
CALL_WHOLE_SPLIT_TIMEOUT=120 call_whole_split traced .fbdata/bundles/v10-b16384-new.pcb \
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv PROOFC_TIMELINE_MARKS=1
tail -5 /tmp/fb-traced.log
python3 bench/proto/block_timeline.py /tmp/tl.csv traced --top 12 | head -6
gzip -c /tmp/tl.csv > $OUT/timeline.csv.gz
call_pack_whole_splits fb traced
echo "all $(( $(date +%s) - t0 )) s"
