#!/usr/bin/env bash
# Call C: the step memo's lookup in two reads (the key's words, then the
# value's of the entry whose key matched: memo.cu's kKeyWords), which
# takes the fused advance-engine from 120 registers to 98 (ptxas sm_90) and
# to 96 with a 24-byte stack at --engine-max-registers 96 (80 bytes of
# stack with the one-read lookup): "m2", with the advance-engine's caps
# auto (none), 96 and 80, against call B's "new" (row 50 alone),
# V10 at B = 8192 and 4096: outcomes against new B = 8192's (byte-identical
# to f03f8a6's in call B), session bench medians (two rounds; the machine's time allowed no more). Then
# scripts/gpu-check.sh on this tree (row 50 and the two-read lookup; the
# bundles of scripts/prepare-gpu-run.sh), its logs packed as
# check.tar.gz.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/exp2/new-b8192.pcb
# Every bundle once first: its optimized kernels then come from the kernel
# cache in the session benches (a bundle's first process runs its first
# calls on the quick tier).
for v in b8192 b8192-r96 b8192-r80 b4096-r96; do call_outcomes m2-$v .gpudata/exp2/m2-$v.pcb; done
call_outcomes new-b4096 .gpudata/exp2/new-b4096.pcb
S=$N/bin/proofc-session-bench
for round in 1 2; do
  call_session_median $S .gpudata/exp2/new-b8192.pcb "new b8192 r$round"
  for v in b8192 b8192-r96 b8192-r80; do
    call_session_median $S .gpudata/exp2/m2-$v.pcb "m2 $v r$round"
  done
  call_session_median $S .gpudata/exp2/new-b4096.pcb "new b4096 r$round"
  call_session_median $S .gpudata/exp2/m2-b4096-r96.pcb "m2 b4096-r96 r$round"
done
echo "measured at $(( $(date +%s) - t0 )) s"
mkdir -p /tmp/gc
OUT=/tmp/gc timeout $(( 530 - ($(date +%s) - t0) )) scripts/gpu-check.sh 2>&1 | tail -30
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
tar -czf $OUT/check.tar.gz -C /tmp/gc . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
