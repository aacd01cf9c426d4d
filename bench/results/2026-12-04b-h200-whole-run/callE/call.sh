#!/usr/bin/env bash
# Call E: call D's hang, narrowed: fb15k-237's first 300 queries under the
# CUPTI injection, one worker and two (each 40 s limit, a fresh kernel
# cache each), and two workers without the injection.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
call_timeline_lib /tmp/kt.so || exit 1
[ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
fb() {
  local label=$1 workers=$2; shift 2
  local s=$(date +%s%N)
  env "$@" PROOFC_CACHE_DIR=/tmp/pc-$label timeout 40 $N/bin/proofc-run \
    .fbdata/bundles/v10-b16384-new.pcb --data .fbdata/data/fb15k-237 \
    --weights .fbdata/weights/fb15k-237-random.safetensors --corruptions 0 \
    --queries 300 --block 1048576 --workers-per-device $workers --device cuda \
    --quiet --report /tmp/$label.json > /tmp/$label.log 2>&1
  echo "$label rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; tail -2 /tmp/$label.log
}
T="CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/t.csv PROOFC_TIMELINE_MARKS=1"
fb plain-w2 2
fb traced-w1 1 $T
fb traced-w2 2 $T
echo "all $(( $(date +%s) - t0 )) s"
