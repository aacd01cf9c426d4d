#!/usr/bin/env bash
# Call A0 (2026-11-30c): the GPU tests on the tree of 447ad97 (fmt built
# once, the test trims; before 1d6bd21 mended the test), carrying .gpudata
# (scripts/prepare-gpu-run.sh without wn18rr) and .deps: CompiledPolicyKernel
# failed on all three datasets (failures.log).
bash scripts/gpu-check.sh
