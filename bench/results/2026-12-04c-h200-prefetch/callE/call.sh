#!/usr/bin/env bash
# Call E: the start of a streamed run, three runtimes built on the CPU
# machine (cmake --preset gpu-machine -DPROOFC_MPI=OFF, carried untracked
# in .gpuexp/): base = 2c25a74 (row 54), fp = the dataset's fingerprint
# streamed and in the background, new = that and the candidates' buffers on
# transparent huge pages (support/HugePages.h). fb15k-237's first 300
# queries, two workers, a warm kernel cache, four rounds interleaved; each
# run's wall time, its fingerprint, MRR and outcomes' SHA-256.
set -uo pipefail
source bench/proto/call_lib.sh
call_env
nvidia-smi -L | tee "$OUT/gpu.txt"
t0=$(date +%s)
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; uname -r
[ -d .fbdata/data ] || tar -xzf .fbdata/fb.tar.gz -C .fbdata
q300() {
  local label=$1 bin=$2
  local s=$(date +%s%N)
  PROOFC_CACHE_DIR=/tmp/pc-q300 $bin \
    .fbdata/bundles/v10-b16384-new.pcb --data .fbdata/data/fb15k-237 \
    --weights .fbdata/weights/fb15k-237-random.safetensors --corruptions 0 \
    --queries 300 --block 1048576 --device cuda --quiet \
    --outcomes /tmp/$label.tsv --report /tmp/$label.json > /tmp/$label.log 2>&1
  local rc=$?
  echo "$label rc=$rc $(( ($(date +%s%N) - s) / 1000000 )) ms $(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['provenance']['dataset_fingerprint'][:20], j['metrics']['both']['mrr'])" /tmp/$label.json 2>/dev/null) $(sha256sum < /tmp/$label.tsv | cut -c1-16) $(grep -h AnonHugePages /proc/meminfo)"
}
q300 warm .gpuexp/proofc-run-base
for i in 1 2 3 4; do
  q300 base$i .gpuexp/proofc-run-base
  q300 fp$i .gpuexp/proofc-run-fp
  q300 new$i .gpuexp/proofc-run-new
done
echo "all $(( $(date +%s) - t0 )) s"
