#!/usr/bin/env bash
# Call B (one H100, call A's machine): combinations of call A's hints.
# Call A: the derived states' loads L1::evict_first (df) took the run
# 2.455-2.460 -> 2.416-2.432 ms; the fragments' evict_last (wl) 2.440-2.454;
# the atom rows evict_first 2.480-2.495 and no_allocate 3.54 (the tiles
# reuse them through the L1). Here: dn the state and derived loads
# L1::no_allocate; al the atom rows L1::evict_last; df-wl, df-al,
# df-al-wl, dn-al-wl the combinations (hint.py). Outcomes against the
# bundle as compiled; session bench medians, three rounds interleaved;
# CUPTI timelines of each.
set -uo pipefail
source bench/proto/call_lib.sh
call_variant_rounds .gpudata/bundles/v10-b12288.pcb .exp df dn df-wl al df-al df-al-wl dn-al-wl
