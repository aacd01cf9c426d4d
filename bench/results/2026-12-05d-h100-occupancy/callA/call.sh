#!/usr/bin/env bash
# Call A (one H100): what the step's two launches cost at fewer blocks an
# SM, the premise of a fused step kernel (docs/performance.md, "A fused
# step kernel, projected"). A fused kernel would run each slot's advance
# and derive in the policy's own blocks, at the policy's 20 warps an SM
# rather than the advance-engine's 32. The bundles (.exp, make_variants.py)
# raise one launch's dynamic shared memory, which its kernel does not read:
# the advance-engine at 32 (a control: the same blocks, a smaller L1), 24,
# 20 and 16 blocks an SM; the step policy at 20 (a control), 16 and 12.
# Outcomes against the bundle as compiled; session bench medians, three
# rounds interleaved; CUPTI timelines of each.
set -uo pipefail
source bench/proto/call_lib.sh
call_variant_rounds .gpudata/bundles/v10-b12288.pcb .exp adv-d200 adv-d3100 adv-d5000 adv-d7800 \
  pol-d5600 pol-d8200 pol-d13000
