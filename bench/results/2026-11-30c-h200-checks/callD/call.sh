#!/usr/bin/env bash
# Call D (2026-11-30c): the GPU tests after the review mends (f2af02b: the
# policy kernel's guard block made one, GraphBuilder's binding decided once),
# carrying .gpudata (scripts/prepare-gpu-run.sh without wn18rr) and .deps.
bash scripts/gpu-check.sh
