#!/usr/bin/env bash
# The training bench (issue 27, deliverable 4, time to quality): for each
# dataset, `proofc train` (python -m proofc.training, its default variant
# `both`) and the port trainer (bench/training/port_trainer.py: the same
# REINFORCE recipe with the PyTorch port's rollouts, how the shipped weights
# were trained) with the same budget of training seconds on the same device,
# one after the other; then the test MRR (README protocol,
# bench/training/scoring.py) of both written files and of the shipped file.
# Writes $OUT/training-bench.json (every learning curve, test MRRs, updates,
# episodes/s, timings), $OUT/training-bench.md (the table) and
# $OUT/training-bench/ (each run's log, JSON and weights file);
# bench/training/plot.py draws the curves from the JSON (here, not on the
# GPU machine).
#
#   bench/training/run.sh               ON the GPU machine (carry .deps and
#                                       .gpudata: bench/prepare.sh, then
#                                       scripts/prepare-gpu-run.sh kinship
#                                       umls here): builds the Python package
#                                       runtime-only with scripts/gpu-build.sh;
#                                       bundle, data and shipped weights from
#                                       .gpudata
#   bench/training/run.sh --device cpu  here: the host backend and torch on
#                                       the CPU, from the build tree
#                                       (PROOFC_BUILD_DIR, default build/;
#                                       proofc and proofc_python built), the
#                                       bundle compiled from examples/v10.mlir,
#                                       data and weights from ../shared
#
# Time: each run gets TRAIN_BENCH_BUDGET seconds of training plus
# TRAIN_BENCH_SLACK for loading and checkpoint scoring (`timeout` kills it
# then); the whole bench stops starting runs when fewer than budget + slack
# seconds are left of TRAIN_BENCH_TOTAL, and the table says what was not run.
# The test scoring of a dataset's files is bounded by TRAIN_BENCH_SCORE_TIMEOUT.
# The defaults fit the GPU machine's 10-minute call once the package is
# built (a first gpu-build.sh of proofc_python takes minutes: build it in an
# earlier call): 4 runs of about 125 s (at most 145 s each, and the fourth
# starts only while 145 s are left of 570) and a few seconds of scoring.
#
# Environment: TRAIN_BENCH_DATASETS ("kinship umls"), TRAIN_BENCH_TRAINERS
# ("proofc port"), TRAIN_BENCH_BUDGET (120), TRAIN_BENCH_SLACK (25),
# TRAIN_BENCH_TOTAL (570), TRAIN_BENCH_SCORE_TIMEOUT (120), TRAIN_BENCH_SEED
# (0), TRAIN_BENCH_PROGRAM (the bundle; default
# .gpudata/bundles/v10-b4096.pcb on cuda, examples/v10.mlir compiled here), BENCH_WORK (scratch, default /tmp/proofc-training-bench),
# OUT, PYTHON.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. bench/common.sh
bench_device "bench/training/run.sh [--device cpu|cuda]" "$@"
started=$(date +%s)
bench_dirs training
datasets=(${TRAIN_BENCH_DATASETS:-kinship umls})
trainers=(${TRAIN_BENCH_TRAINERS:-proofc port})
budget=${TRAIN_BENCH_BUDGET:-120}
slack=${TRAIN_BENCH_SLACK:-25}
total=${TRAIN_BENCH_TOTAL:-570}
score_timeout=${TRAIN_BENCH_SCORE_TIMEOUT:-120}
seed=${TRAIN_BENCH_SEED:-0}
python=${PYTHON:-python3}
for n in "$budget" "$slack" "$total" "$score_timeout" "$seed"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "run.sh: '$n': TRAIN_BENCH_BUDGET, _SLACK, _TOTAL, _SCORE_TIMEOUT and _SEED are whole numbers" >&2; exit 2; }
done
for t in "${trainers[@]}"; do
  [ "$t" = proofc ] || [ "$t" = port ] ||
    { echo "run.sh: TRAIN_BENCH_TRAINERS: '$t': expected proofc and/or port" >&2; exit 2; }
done
rm -f "$work"/*.json "$work"/*.safetensors "$work"/*.log "$work"/*.skipped
bench_python_package "$work/build-python.log"
if [ "$device" = cuda ]; then
  program=${TRAIN_BENCH_PROGRAM:-.gpudata/bundles/v10-b4096.pcb}
  datadir=.gpudata/data
  weightsdir=.gpudata/weights
else
  shared=${PROOFC_SHARED_DIR:-$root/../shared}
  program=${TRAIN_BENCH_PROGRAM:-$work/v10.pcb}
  [ -n "${TRAIN_BENCH_PROGRAM:-}" ] || "$build/bin/proofc" compile examples/v10.mlir -o "$program"
  datadir=$shared/data
  weightsdir=$shared/weights
fi
export PYTHONPATH="$build/python:$root" PROOFC_BIN_DIR="$build/bin"

# run NAME CMD...: CMD under the run's timeout, output in $work/NAME.log;
# skipped (NAME.skipped) when the total time left cannot hold it.
run() {
  local name=$1 left limit rc=0
  shift
  left=$((total - ($(date +%s) - started)))
  limit=$((budget + slack))
  if [ "$left" -lt "$limit" ]; then
    echo "training bench: $name not run: $left s left of TRAIN_BENCH_TOTAL=$total" | tee "$work/$name.skipped" >&2
    return 0
  fi
  echo "training bench: $name (at most $limit s)" >&2
  timeout -k 5 "$limit" "$@" > "$work/$name.log" 2>&1 || rc=$?
  [ $rc = 0 ] || { echo "training bench: $name failed (exit $rc; 124: timed out); the end of its log:" >&2; tail -5 "$work/$name.log" >&2; }
}

for ds in "${datasets[@]}"; do
  data=$datadir/$ds
  [ -f "$data/train.tsv" ] || { echo "run.sh: $data: no dataset (scripts/prepare-gpu-run.sh $ds, carried)" >&2; exit 1; }
  for t in "${trainers[@]}"; do
    if [ "$t" = proofc ]; then
      run "$ds-proofc" "$python" -m proofc.training "$program" --data "$data" \
        -o "$work/$ds-proofc.safetensors" --budget "$budget" --device "$device" \
        --seed "$seed" --log "$work/$ds-proofc.json"
    else
      run "$ds-port" "$python" -m bench.training.port_trainer "$program" --data "$data" \
        --out "$work/$ds-port.safetensors" --budget "$budget" --device "$device" \
        --seed "$seed" --json "$work/$ds-port.json"
    fi
  done
  # The test protocol on every file written and the shipped one (missing
  # files score null); not bounded by TRAIN_BENCH_TOTAL, a few seconds on a GPU.
  timeout -k 5 "$score_timeout" "$python" bench/training/scoring.py "$program" "$data" --device "$device" \
    "$work/$ds-proofc.safetensors" "$work/$ds-port.safetensors" "$weightsdir/$ds.safetensors" \
    > "$work/$ds-test.json" 2> "$work/$ds-test.log" ||
    { echo "training bench: $ds: the test scoring failed:" >&2; tail -5 "$work/$ds-test.log" >&2; }
done
"$python" bench/training/report.py "$work" "$weightsdir" --device "$device" --budget "$budget" \
  --datasets "${datasets[@]}" --trainers "${trainers[@]}" \
  --json "$out/training-bench.json" --md "$out/training-bench.md"
rm -rf "$out/training-bench" && mkdir -p "$out/training-bench"
for f in "$work"/*.json "$work"/*.log "$work"/*.skipped "$work"/*.safetensors; do
  [ ! -e "$f" ] || cp "$f" "$out/training-bench/"
done
echo "training bench: $(($(date +%s) - started)) s in all" >&2
