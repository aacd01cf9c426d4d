#!/usr/bin/env bash
# Call B: call A's designs again with MODE 11 beside them (the parents'
# encodings' words as their own ready flags: no flag, no fence in a
# children's tile) and today's tile over the list of tiles (listed-folded24:
# the generated kernel's listed steps, an entry's load before the rows'),
# the same five settings.
set -uo pipefail
nvidia-smi -L
nvcc -O3 -arch=sm_90 -std=c++17 bench/proto/policy_step.cu -o /tmp/ps || exit 1
for args in "4096" "8192" "12288" "12288 fb" "16384 fb"; do
  echo "== parent $args"
  /tmp/ps parent $args
done
