#!/usr/bin/env bash
# Call C (one H100, after call A): CUPTI timelines of V10 at B = 12288,
# bench/prepare.sh's bundle ("base") and the advance in the policy's
# (.exp/inpolicy-b12288.pcb), three session calls each: each step's
# launches and their sums (timeline_runs.py --launches).
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-session-bench || exit 1
S=$N/bin/proofc-session-bench
call_timeline_lib /tmp/kt.so
call_trace $S .gpudata/bundles/v10-b12288.pcb base 3 45
call_trace $S .exp/inpolicy-b12288.pcb inpolicy 3 45
gzip $OUT/*.csv
echo all $(($(date +%s) - t0)) s
