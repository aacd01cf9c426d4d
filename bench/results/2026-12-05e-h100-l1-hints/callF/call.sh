#!/usr/bin/env bash
# Call F (one H100): call_lib.sh's call_variant_rounds, the helper calls A
# and B were rewritten onto, run once as written, on row 57 itself: the
# base is the compiler without it (.exp/old-b12288.pcb), the variant
# bench/prepare.sh's B = 12288 bundle with it.
set -uo pipefail
source bench/proto/call_lib.sh
call_variant_rounds .exp/old-b12288.pcb .gpudata/bundles v10-b12288
