#!/usr/bin/env bash
# Call B: fb15k-237's whole split (bench/scale-out/run.sh one, cold, B =
# 16384) on the default bundle (no memo waits, no tail hand-off from
# 16384: GpuHeuristics) against the bundle with 12288's two (-wh: memo
# waits 2, the hand-off at 264, the advance-engine's cap of 96 kept),
# which call A measured as V10's fastest (2.421-2.425 ms against
# 3.385-3.394). Pairs interleaved; results compared.
set -uo pipefail
source bench/proto/call_lib.sh
call_start proofc-run || exit 1
x=.gpudata/exp2
for r in 1 2 3; do
  if [ $r -eq 3 ] && [ $(($(date +%s) - t0)) -gt 330 ]; then break; fi
  call_whole_split base$r $x/b16384.pcb
  call_whole_split wh$r $x/b16384-wh.pcb
done
call_same_results base1 wh1 base2 wh2 base3 wh3
call_pack_whole_splits fb base1 wh1 base2 wh2 base3 wh3
echo "all $(( $(date +%s) - t0 )) s"
