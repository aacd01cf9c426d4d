#!/usr/bin/env bash
# Call D (one H100): scripts/gpu-check.sh on the walk cap as built: the GPU
# suites, the compiled bundles of test/compiled-bundles.txt (bench/prepare.sh
# compiled them with this tree) against the host, CUPTI's graph calls.
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_check
