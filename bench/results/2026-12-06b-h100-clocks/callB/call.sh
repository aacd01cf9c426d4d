#!/usr/bin/env bash
# Call B (one H100, call A's machine): scripts/gpu-check.sh, the whole of it,
# on this tree (0a26c09 with rolloutBundle moved into the bundle layer):
# the GPU suites, the compiled bundles of test/compiled-bundles.txt (the
# `-ap` ones among them) against the host, CUPTI's graph calls and the
# device workers. 2026-12-06's call B, which did not fit that session.
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_check
cp /tmp/chk/gpu-check.txt $OUT/ 2>/dev/null
gzip -f $OUT/gpu-check.txt
