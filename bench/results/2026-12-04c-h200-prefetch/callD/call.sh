#!/usr/bin/env bash
# Call D: the dataset's fingerprint streamed into SHA-256 and computed in
# the background (SessionState's `fingerprint`), against 2c25a74's runtime
# (base: this tree less fingerprint.patch). fb15k-237's first 300 queries,
# two workers, a warm kernel cache (so that the start is host work), five
# rounds interleaved, each run's wall time; then the whole split once each.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
d=bench/results/2026-12-04c-h200-prefetch/callD
rm -rf /tmp/base && mkdir /tmp/base &&
  tar --exclude=./build-gpu-device -cf - . | tar -xf - -C /tmp/base &&
  (cd /tmp/base && patch -R -p1 -s < $d/fingerprint.patch) || exit 1
(cd /tmp/base && call_build build-gpu-device proofc-run) || exit 1
echo "base built at $(($(date +%s) - t0)) s"
[ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
q300() {
  local label=$1 bin=$2
  local s=$(date +%s%N)
  PROOFC_CACHE_DIR=/tmp/pc-q300 $bin/bin/proofc-run \
    .fbdata/bundles/v10-b16384-new.pcb --data .fbdata/data/fb15k-237 \
    --weights .fbdata/weights/fb15k-237-random.safetensors --corruptions 0 \
    --queries 300 --block 1048576 --device cuda --quiet \
    --report /tmp/$label.json > /tmp/$label.log 2>&1
  local rc=$?
  echo "$label rc=$rc $(( ($(date +%s%N) - s) / 1000000 )) ms $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['provenance']['dataset_fingerprint'][:20], json.dumps(j['metrics']['both']['mrr'] if 'both' in j.get('metrics',{}) else ''))" /tmp/$label.json 2>/dev/null)"
}
q300 warm $N   # fills the kernel cache
for i in 1 2 3 4 5; do q300 base$i /tmp/base/build-gpu-device; q300 new$i $N; done
echo "q300 at $(($(date +%s) - t0)) s"
if [ $(($(date +%s) - t0)) -lt 250 ]; then
  call_whole_split wbase .fbdata/bundles/v10-b16384-new.pcb PROOFC_GPU_BUILD_DIR=/tmp/base/build-gpu-device
  call_whole_split wnew .fbdata/bundles/v10-b16384-new.pcb
  call_same_results wbase wnew
  for l in wbase wnew; do
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], j['report']['provenance']['dataset_fingerprint'] if 'report' in j else '')" $OUT/$l/scale-out/one.json $l 2>/dev/null
  done
  call_pack_whole_splits fb wbase wnew
fi
echo "all $(( $(date +%s) - t0 )) s"
