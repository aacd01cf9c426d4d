#!/usr/bin/env bash
# Call C (one H100): row 57 as built. The compiler's loadWords reads the
# step policy's state rows with ld.global.L1::evict_first (calls A-B's df,
# patched into the PTX, now generated). New bundles: bench/prepare.sh's
# (.gpudata) and bench/scale-out/prepare.sh's fb15k-237 bundle (.fbdata,
# also .exp/new-b16384.pcb); old: the same compiler without the change
# (.exp/old-b<B>.pcb). V10 outcomes of every bundle against old 12288's;
# session bench medians, old and new interleaved, three rounds; fb15k-237's
# whole split (every filtered corruption, random seed-0 weights, B = 16384)
# with each, results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
e=.exp
call_reference $e/old-b12288.pcb
for B in 256 1024 4096 8192 12288 16384; do
  call_outcomes old-b$B $e/old-b$B.pcb
  n=.gpudata/bundles/v10-b$B.pcb; [ $B = 16384 ] && n=$e/new-b16384.pcb
  call_outcomes new-b$B $n
done
echo "checked at $(( $(date +%s) - t0 )) s"
S=$N/bin/proofc-session-bench
tags=()
for round in 1 2 3; do
  for B in 12288 8192 4096 1024 256 16384; do
    n=.gpudata/bundles/v10-b$B.pcb; [ $B = 16384 ] && n=$e/new-b16384.pcb
    call_session_median $S $e/old-b$B.pcb "old B$B r$round"
    call_session_median $S $n "new B$B r$round"
    tags+=("B$B-r$round")
  done
done
echo "measured at $(( $(date +%s) - t0 )) s"
python3 bench/proto/session_compare.py $OUT "${tags[@]}" | grep -v "^B.* \(new\|old\): " || echo "session_compare: a difference"
call_whole_split fb-old $e/old-b16384.pcb
call_whole_split fb-new $e/new-b16384.pcb
call_same_results fb-old fb-new
mkdir -p /tmp/keep; rm -f /tmp/keep/*; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
