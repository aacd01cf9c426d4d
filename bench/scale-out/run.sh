#!/usr/bin/env bash
# The scale-out measurement of issues 16 and 19 on the GPU machine: the whole
# fb15k-237 test split with every filtered corruption (585,558,015
# candidates), V10 at B=4096, random seed-0 weights (no trained fb15k policy
# exists), per-relation metrics on, through one GPU, several GPUs of the
# host (--devices), MPI ranks one per GPU, and two MPI ranks sharing GPU 0.
# Each configuration is one call (the device tool allows 10 minutes a
# command); records go to $OUT/scale-out/<config>.json and compare.py checks
# them against the one-GPU run and prints the table for bench/RESULTS.md.
#
#   bench/scale-out/run.sh CONFIG...   CONFIG: one | devices<N> | mpi<N> | mpi-shared | compare
#
# Needs: bench/scale-out/prepare.sh run HERE (carry .fbdata and .deps), the
# GPU build (scripts/gpu-build.sh LOG proofc-run). QUERIES=<n> runs only the
# first n test queries (a quick check of the harness).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}
data=$root/.fbdata
out=${OUT:-/tmp}/scale-out
mkdir -p "$out"
run=("$build/bin/proofc-run" "$data/bundles/v10-b4096.pcb" --data "$data/data/fb15k-237"
     --weights "$data/weights/fb15k-237-random.safetensors" --split test --corruptions 0
     --per-relation --quiet)
[ -n "${QUERIES:-}" ] && run+=(--queries "$QUERIES")
measure=("$root/bench/scale-out/measure.py")
for config in "$@"; do
  case $config in
    one)
      BENCH_GPUS=1 "${measure[@]}" one "$out/one.json" -- \
        bash -c '"$@" --device cuda --report "$REPORT"' _ "${run[@]}" ;;
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
