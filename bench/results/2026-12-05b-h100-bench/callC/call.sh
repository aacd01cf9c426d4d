#!/usr/bin/env bash
# Call C (one H100): the step schedule's knobs around V10's fastest B on
# the card (every sweep since row 49 ran on H200s): B = 10240,
# 12288 (the bundle of bench/prepare.sh), 14336; at 12288 the tail
# hand-off at 512 and 1024 (auto 264), memo waits 1 and 3 (auto 2), the
# policy's blocks an SM 18 and 21 (auto 20). Bundles compiled here from
# examples/v10.mlir (`proofc compile --slots B [knob]`, .gpudata/exp/, not
# kept); outcomes against B = 12288's, then the session bench's medians
# (15 calls; run = the proof loop, call = the Session call with its
# setup), three rounds interleaved.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run proofc-session-bench || exit 1
call_reference .gpudata/bundles/v10-b12288.pcb
variants="b10240 b14336 b12288-h512 b12288-h1024 b12288-w1 b12288-w3 b12288-m18 b12288-m21"
for v in $variants; do call_outcomes $v .gpudata/exp/$v.pcb; done
S=$N/bin/proofc-session-bench
for round in 1 2 3; do
  call_session_median $S .gpudata/bundles/v10-b12288.pcb "b12288 r$round"
  for v in $variants; do call_session_median $S .gpudata/exp/$v.pcb "$v r$round"; done
done
mkdir -p /tmp/keep; mv $OUT/sb-*.json /tmp/keep/ 2>/dev/null; tar -czf $OUT/sb.tar.gz -C /tmp/keep . 2>/dev/null
echo "all $(( $(date +%s) - t0 )) s"
