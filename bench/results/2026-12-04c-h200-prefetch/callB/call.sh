#!/usr/bin/env bash
# Call B: graph instantiation serialized (CudaDriver::instantiateGraph)
# with the prefetch of 2026-12-04b. (1) fb15k-237's first 300 queries, two
# workers under CUPTI's injection, three times with the prefetch (mode
# both) and three without (mode none): each must end (call A: both and
# none hung). (2) fb15k-237's whole split cold with the driver's JIT cache
# off: HEAD's runtime (base: this tree less new-runtime.patch) against
# this one (new), then new traced.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
d=bench/results/2026-12-04c-h200-prefetch/callB
rm -rf /tmp/base && mkdir /tmp/base &&
  tar --exclude=./build-gpu-device -cf - . | tar -xf - -C /tmp/base &&
  (cd /tmp/base && patch -R -p1 -s < $d/new-runtime.patch) || exit 1
(cd /tmp/base && call_build build-gpu-device proofc-run) || exit 1
echo "base built at $(($(date +%s) - t0)) s"
call_timeline_lib /tmp/kt.so || exit 1
[ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
fb() {
  local label=$1 mode=$2; shift 2
  local s=$(date +%s%N)
  env "$@" PROOFC_PREFETCH_DEBUG=$mode PROOFC_CACHE_DIR=/tmp/pc-$label timeout 40 $N/bin/proofc-run \
    .fbdata/bundles/v10-b16384-new.pcb --data .fbdata/data/fb15k-237 \
    --weights .fbdata/weights/fb15k-237-random.safetensors --corruptions 0 \
    --queries 300 --block 1048576 --workers-per-device 2 --device cuda \
    --quiet --report /tmp/$label.json > /tmp/$label.log 2>&1
  echo "$label rc=$? $(( ($(date +%s%N) - s) / 1000000 )) ms"; tail -2 /tmp/$label.log | head -1
}
T="CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/t.csv PROOFC_TIMELINE_MARKS=1"
for i in 1 2 3; do fb both$i both $T; fb none$i none $T; done
echo "300q at $(($(date +%s) - t0)) s"
export CUDA_CACHE_DISABLE=1
# base: HEAD's runtime.
B="PROOFC_GPU_BUILD_DIR=/tmp/base/build-gpu-device"
call_whole_split base1 .fbdata/bundles/v10-b16384-new.pcb $B
call_whole_split new1 .fbdata/bundles/v10-b16384-new.pcb
call_whole_split traced .fbdata/bundles/v10-b16384-new.pcb $T
python3 bench/proto/block_timeline.py /tmp/t.csv > $OUT/layout-traced.txt 2>&1
if [ $(($(date +%s) - t0)) -lt 400 ]; then
  call_whole_split base2 .fbdata/bundles/v10-b16384-new.pcb $B
  call_whole_split new2 .fbdata/bundles/v10-b16384-new.pcb
fi
call_same_results base1 new1 traced base2 new2
for l in base1 new1 traced base2 new2; do
  [ -f $OUT/$l/scale-out/one.json ] || continue
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); r=j.get('report') or {}; print(sys.argv[2], {k: v for k, v in (j.get('timings') or {}).items()})" $OUT/$l/scale-out/one.json $l
done
call_pack_whole_splits fb base1 new1 traced base2 new2
echo "all $(( $(date +%s) - t0 )) s"
