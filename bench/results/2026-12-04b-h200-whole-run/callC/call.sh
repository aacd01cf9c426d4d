#!/usr/bin/env bash
# Call C: the tree of call B ("new": predicated padding reads, kernels
# prefetched as a Session opens). V10's outcomes of this tree's bundles
# (.gpudata/exp/new-*) against e9ec923's (base-*) at B = 12288 (also
# --cond host), 256 and unfolded; the session bench of V10's default
# (folded) form at 12288, base and new bundles, three rounds. Then
# fb15k-237's whole split, every run cold in both caches (its own kernel
# cache, CUDA_CACHE_DISABLE=1: the driver's JIT cache off, as on a fresh
# machine): the new bundle traced with marks (block_timeline.py: where
# the first kernels start now that the compile begins at open), then the
# base and new bundles, two rounds; results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_timeline_lib /tmp/kt.so || exit 1
e=.gpudata/exp
call_reference $e/base-b12288.pcb
for v in new-b12288 new-b256; do call_outcomes $v $e/$v.pcb; done
call_outcomes new-b12288-host $e/new-b12288.pcb --cond host
call_reference $e/base-nf-b12288.pcb
call_outcomes new-nf-b12288 $e/new-nf-b12288.pcb
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  for v in base new; do call_session_median $S $e/$v-b12288.pcb "$v b12288 r$round"; done
done
echo "v10 at $(( $(date +%s) - t0 )) s"
B=.fbdata/bundles
call_whole_split traced $B/v10-b16384-new.pcb CUDA_CACHE_DISABLE=1 \
  CUDA_INJECTION64_PATH=/tmp/kt.so PROOFC_TIMELINE_OUT=/tmp/tl.csv PROOFC_TIMELINE_MARKS=1
python3 bench/proto/block_timeline.py /tmp/tl.csv traced --runs $OUT/traced-runs.tsv --top 12 | head -12
gzip -c /tmp/tl.csv > $OUT/timeline.csv.gz
for round in 1 2; do
  for v in base new; do call_whole_split $v-r$round $B/v10-b16384-$v.pcb CUDA_CACHE_DISABLE=1; done
done
call_same_results base-r1 new-r1 base-r2 new-r2 traced
call_pack_whole_splits fb traced base-r1 new-r1 base-r2 new-r2
mkdir -p /tmp/keep; mv "$OUT"/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf "$OUT/sb.tar.gz" -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
