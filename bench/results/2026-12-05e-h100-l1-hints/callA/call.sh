#!/usr/bin/env bash
# Call A (one H100): L1 eviction priorities in the step policy's loads.
# 2026-12-05d found the tiles 7 % slower with the L1 at ~28 KB instead of
# ~124: the L1 holds what they reuse (the linears' 32 KB of fragments,
# read by every tile) beside what they stream (the atom layer's rows,
# 24 KB a tile). The bundles (.exp, hint.py): wl the fragments, bias and
# norm loads L1::evict_last; af the atom rows L1::evict_first; an the atom
# rows L1::no_allocate; wl-af both of wl and af; df the state and derived
# loads L1::evict_first. Outcomes against the bundle as compiled; session
# bench medians, three rounds interleaved; CUPTI timelines of each.
set -uo pipefail
source bench/proto/call_lib.sh
call_variant_rounds .gpudata/bundles/v10-b12288.pcb .exp wl af an wl-af df
