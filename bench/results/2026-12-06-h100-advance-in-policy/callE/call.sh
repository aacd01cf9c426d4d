#!/usr/bin/env bash
# Call E (one H100): scripts/gpu-check.sh's GPU tests (its filter) on the
# same bundles, with CompiledPolicyKernel mended (an advancing policy is
# skipped there: CompiledBundle checks the bundle whole). Found: a rollouts
# call on an advancing bundle ran into slot.cu's #error through NVRTC
# (GpuRollouts); mended at the commit after 3585033 (call F).
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_tests gputests.log '*Gpu*:ProofcRun*:Bundle*:KernelCache*:*Compiled*' \
  v10-step-b8192-ap.pcb v10-step-b4096-ap.pcb v10-step-b8192.pcb
