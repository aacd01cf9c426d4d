#!/usr/bin/env bash
# Call T (2026-11-30c): the bench on the landed tree (338479a; bench/prepare.sh
# with BENCH_BATCHES="256 4096" BENCH_LARGE=kinship): proofc at B=256 and
# 4096 against the cond-free PyTorch port (the fastest variant) in one call.
bash bench/run.sh --no-large --batches 256,4096 --torch-variants nocond --repeats 5
