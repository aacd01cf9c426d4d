#!/usr/bin/env bash
# Call F (one H100): calls D and E's failing suites after the mend: the
# advancing policy's kernel is skipped by CompiledPolicyKernel (checked
# whole by CompiledBundle), and a rollouts call refuses the bundle with one
# error before any module is compiled (GpuRollouts expects it).
set -uo pipefail
source bench/proto/call_lib.sh
call_gpu_tests t.log 'GpuRollouts*:*CompiledPolicyKernel*' \
  v10-step-b8192-ap.pcb v10-step-b8192.pcb
