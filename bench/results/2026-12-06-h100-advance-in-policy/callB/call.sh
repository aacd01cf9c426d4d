#!/usr/bin/env bash
# Call B (one H100): scripts/gpu-check.sh, the GPU tests on
# test/compiled-bundles.txt's bundles, the advance in the policy's -ap
# bundles (B = 8192 with the tail hand-off, 4096 without) among them.
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_check
