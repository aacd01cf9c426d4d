#!/usr/bin/env bash
# Call A: bench/proto/policy_step.cu's `parent` designs (the parents'
# encodings made by tiles of their own ahead of the children's) against
# today's folded grid, one full step: V10's k (64-76) at B = 4096, 8192
# and 12288, and k drawn from 2-64 (fb15k-237-like) at 12288 and 16384.
set -uo pipefail
nvidia-smi -L
nvcc -O3 -arch=sm_90 -std=c++17 bench/proto/policy_step.cu -o /tmp/ps || exit 1
for args in "4096" "8192" "12288" "12288 fb" "16384 fb"; do
  echo "== parent $args"
  /tmp/ps parent $args
done
