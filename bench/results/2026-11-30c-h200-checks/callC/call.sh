#!/usr/bin/env bash
# Call C (2026-11-30c): the bench with the torch port at each B of
# --torch-batches (256, 4096, the new default) and the headline ratio with
# each side at its fastest B. Carry .gpudata (bench/prepare.sh with
# BENCH_BATCHES="256 4096" BENCH_LARGE=kinship) and .deps.
bash bench/run.sh --no-large --no-memo-off --batches 256,4096 --torch-variants nocond --repeats 5
