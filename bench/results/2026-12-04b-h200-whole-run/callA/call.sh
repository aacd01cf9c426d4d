#!/usr/bin/env bash
# Call A: where fb15k-237's whole-split wall time goes outside the kernels,
# and the predicated padding reads (2026-12-04 call E's patch, "new")
# against e9ec923's bundle ("base") for two more rounds. First base, cold,
# traced by the CUPTI library with marks (kernel_timeline.cpp, streams and
# the load/exit marks), laid out by bench/proto/block_timeline.py; then
# base, new, base, new untraced, each cold; results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
call_timeline_lib /tmp/kt.so || exit 1
B=.fbdata/bundles
call_whole_split traced $B/v10-b16384-base.pcb CUDA_INJECTION64_PATH=/tmp/kt.so \
  PROOFC_TIMELINE_OUT=/tmp/tl.csv PROOFC_TIMELINE_MARKS=1
ls -la /tmp/tl.csv
python3 bench/proto/block_timeline.py /tmp/tl.csv traced --runs $OUT/traced-runs.tsv --top 12
gzip -c /tmp/tl.csv > $OUT/timeline.csv.gz
[ $(stat -c %s $OUT/timeline.csv.gz) -lt 25000000 ] || rm $OUT/timeline.csv.gz
for round in 1 2; do
  for v in base new; do call_whole_split $v-r$round $B/v10-b16384-$v.pcb; done
done
call_same_results base-r1 new-r1 base-r2 new-r2 traced
call_pack_whole_splits fb traced base-r1 new-r1 base-r2 new-r2
echo "all $(( $(date +%s) - t0 )) s"
