#!/usr/bin/env bash
# Call C (one H100): the headline on the walk cap as built (advance.cu's
# PROOFC_MEMO_WALK_HITS 8 where slots may wait; bench/prepare.sh's bundles
# compiled by this tree), both sides bracketed as in 2026-12-05b's call E:
# proofc at 4096, 8192, 12288 and 14336, the cond-free torch port at 1024,
# 2048 and 4096.
set -uo pipefail
source bench/proto/call_lib.sh
call_headline --no-large --no-memo-off --batches 4096,8192,12288,14336 \
  --torch-batches 1024,2048,4096 --torch-variants nocond --repeats 5
