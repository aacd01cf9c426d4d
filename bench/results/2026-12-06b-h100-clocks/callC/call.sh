#!/usr/bin/env bash
# Call C (one H100): scripts/gpu-check.sh, the whole of it, on f8b7bb9 (call
# B's tree with kernel_abi.h's kRolloutOption and kRolloutHook, which every
# kernel module embeds, so every bundle and cache key is new).
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_check
cp /tmp/chk/gpu-check.txt $OUT/ 2>/dev/null
gzip -f $OUT/gpu-check.txt
