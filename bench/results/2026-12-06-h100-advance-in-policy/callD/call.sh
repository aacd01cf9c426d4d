#!/usr/bin/env bash
# Call D (one H100): the GPU tests that read compiled bundles (*Compiled*)
# on the advance in the policy's bundles of test/compiled-bundles.txt and
# one without (call B, the whole gpu-check, did not fit the session's device
# time). Found: CompiledPolicyKernel loads the policy's PTX alone, which an
# advancing policy (it links slot.cu) cannot be: CUDA_ERROR_INVALID_PTX.
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_tests compiled.log '*Compiled*' \
  v10-step-b8192-ap.pcb v10-step-b4096-ap.pcb v10-step-b8192.pcb
