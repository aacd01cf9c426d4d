#!/usr/bin/env bash
# The whole-split workloads on the GPU machine (issues 16, 19 and 29): a
# dataset's whole test split with every filtered corruption, V10 at B=16384,
# per-relation metrics on, through one GPU, several GPUs of the host
# (--devices), MPI ranks one per GPU, and two MPI ranks sharing GPU 0.
# WORKLOAD picks the workload (docs/performance.md derives their floors):
#   fb15k-237 (default)  585,558,015 candidates, random seed-0 weights (no
#                        trained fb15k-237 policy exists; 55 k proved)
#   wn18rr               256,536,728 candidates, the shipped trained policy
#                        (mean depth 20: almost every corruption truncated)
# Each configuration is one call (the device tool allows 10 minutes a
# command); records go to $OUT/scale-out[-wn18rr]/<config>.json and
# compare.py checks them against the one-GPU run and prints the table for
# bench/RESULTS.md.
#
#   [WORKLOAD=wn18rr] bench/scale-out/run.sh CONFIG...
#   CONFIG: one | one-unshared | one-checkpoint | devices<N> | mpi<N> |
#           mpi-shared | compare
#   (one-unshared: one GPU with --no-shared-lists, every list's own
#   corruptions run: docs/scale-out.md, "Shared lists"; one-checkpoint: one
#   GPU with --checkpoint into a fresh directory under $TMPDIR, its ranges
#   sharing lists across each other)
#
# Needs: `bench/scale-out/prepare.sh [WORKLOAD]` run HERE (carry .deps and
# .fbdata for fb15k-237, .gpudata for wn18rr), the GPU build
# (scripts/gpu-build.sh LOG proofc-run). QUERIES=<n> runs only the first n
# test queries (a quick check of the harness); DEVICE=cpu runs `one` on the
# host backend and DATA=shared reads the data and weights in place from
# ../shared (PROOFC_SHARED_DIR) and the bundle from PROOFC_BUNDLE: the CPU
# check of the harness here.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
shared=${PROOFC_SHARED_DIR:-$root/../shared}
workload=${WORKLOAD:-fb15k-237}
case $workload in
  fb15k-237)
    carried=$root/.fbdata; out=${OUT:-/tmp}/scale-out
    weights=weights/fb15k-237-random.safetensors ;;
  wn18rr)
    carried=$root/.gpudata; out=${OUT:-/tmp}/scale-out-wn18rr
    weights=weights/wn18rr.safetensors ;;
  *) echo "run.sh: unknown WORKLOAD '$workload' (fb15k-237 or wn18rr)" >&2; exit 2 ;;
esac
bundle=$carried/bundles/v10-b16384.pcb
data=$carried/data/$workload
weights=$carried/$weights
if [ "${DATA:-}" = shared ]; then
  [ "$workload" = wn18rr ] ||
    { echo "run.sh: DATA=shared needs a workload with shipped weights (wn18rr)" >&2; exit 2; }
  data=$shared/data/$workload
  weights=$shared/weights/$workload.safetensors
  bundle=${PROOFC_BUNDLE:?DATA=shared: set PROOFC_BUNDLE to a bundle of examples/v10.mlir}
fi
mkdir -p "$out"
run=("$build/bin/proofc-run" "$bundle" --data "$data" --weights "$weights"
     --split test --corruptions 0 --per-relation --quiet)
[ -n "${QUERIES:-}" ] && run+=(--queries "$QUERIES")
device=${DEVICE:-cuda}
measure=("$root/bench/scale-out/measure.py")
for config in "$@"; do
  case $config in
    one)
      BENCH_GPUS=1 "${measure[@]}" one "$out/one.json" -- \
        bash -c '"$@" --device '"$device"' --report "$REPORT"' _ "${run[@]}" ;;
    one-unshared)
      BENCH_GPUS=1 "${measure[@]}" one-unshared "$out/one-unshared.json" -- \
        bash -c '"$@" --device '"$device"' --no-shared-lists --report "$REPORT"' \
        _ "${run[@]}" ;;
    one-checkpoint)
      ck=$(mktemp -d "${TMPDIR:-/tmp}/proofc-checkpoint.XXXXXX")
      BENCH_GPUS=1 "${measure[@]}" one-checkpoint "$out/one-checkpoint.json" -- \
        bash -c '"$@" --device '"$device"' --checkpoint '"$ck/ck"' --report "$REPORT"' \
        _ "${run[@]}"
      rm -rf "$ck" ;;
    devices*)
      n=${config#devices}; list=$(seq -s, 0 $((n - 1)))
      BENCH_GPUS=$n "${measure[@]}" "$config" "$out/$config.json" -- \
        bash -c '"$@" --devices '"$list"' --report "$REPORT"' _ "${run[@]}" ;;
    mpi-shared)
      BENCH_GPUS=1 "${measure[@]}" mpi-shared "$out/mpi-shared.json" -- \
        bash -c '"$0" --bind-to none -np 2 "$@" --device cuda --report "$REPORT"' \
        "$root/scripts/mpirun-carried.sh" "${run[@]}" ;;
    mpi*)
      # One rank per GPU: each rank sees only its local GPU. --bind-to none:
      # Open MPI binds each of 2 ranks to one core by default, which leaves
      # a rank's host work one core (docs/scale-out.md, "MPI").
      n=${config#mpi}
      BENCH_GPUS=$n "${measure[@]}" "$config" "$out/$config.json" -- \
        bash -c '"$0" --bind-to none -np '"$n"' bash -c '"'"'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK exec "$@"'"'"' _ "$@" --device cuda --report "$REPORT"' \
        "$root/scripts/mpirun-carried.sh" "${run[@]}" ;;
    compare)
      files=("$out/one.json")
      for f in "$out"/*.json; do
        case $f in */one.json|*-report.json) ;; *) files+=("$f") ;; esac
      done
      python3 "$root/bench/scale-out/compare.py" "${files[@]}" | tee "$out/table.md" ;;
    *) echo "run.sh: unknown configuration '$config'" >&2; exit 2 ;;
  esac
done
