#!/usr/bin/env bash
# Builds examples/embed against an install tree, as an embedder would, and
# checks what it computes:
#   1. `cmake --install BUILD_DIR` into a fresh prefix (with
#      PROOFC_EMBED_FROM=runtime: the runtime configured, built and
#      installed alone, `cmake -S runtime --preset runtime-only`, with the
#      same compiler);
#   2. configures examples/embed with only that prefix to find proofc
#      (find_package(proofc), proofc::runtime), builds it;
#   3. compiles examples/v10.mlir to a bundle (BUILD_DIR's proofc);
#   4. runs the example on nations, test split, first 50 queries, 100
#      corruptions: one Session evaluating the trained weights
#      (../shared/weights/nations.safetensors), then random weights
#      (proofc::initWeights, seed 1);
#   5. checks both MRRs equal, to the bit, those of fresh `proofc-run` runs
#      (--report) with the same weights (`proofc init-weights --seed 1` for
#      the random ones) on the same device (both "auto": the GPU when there
#      is one, else the CPU).
# CTest runs it as package.embed-example and, in builds without sanitizers,
# package.embed-example-runtime-alone (test/package/CMakeLists.txt), so CI
# (.ci/run) builds the example against an install tree.
#
#   scripts/build-embed-example.sh [BUILD_DIR] [CMAKE_ARG...]
#
# BUILD_DIR defaults to build/ (scripts/build.sh's); CMAKE_ARGs go to the
# example's configure (default: BUILD_DIR's C++ compiler). Environment:
# PROOFC_SHARED_DIR (default ../shared), PROOFC_EMBED_WORK_DIR (scratch;
# default a temporary directory removed at exit), PROOFC_EMBED_FROM (build,
# the default, or runtime; see 1.).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
shift || true
shared=${PROOFC_SHARED_DIR:-$root/../shared}
data=$shared/data/nations
trained=$shared/weights/nations.safetensors
queries=50

if [ -n "${PROOFC_EMBED_WORK_DIR:-}" ]; then
  work=$PROOFC_EMBED_WORK_DIR
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

cmake_args=("$@")
if [ ${#cmake_args[@]} -eq 0 ]; then
  cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  cmake_args=(-DCMAKE_CXX_COMPILER="$cxx")
fi

case ${PROOFC_EMBED_FROM:-build} in
build)
  echo "== install $build into $work/prefix"
  cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
  ;;
runtime)
  echo "== build the runtime alone (cmake -S runtime) and install it into $work/prefix"
  deps=$(sed -n 's/^PROOFC_DEPS_INCLUDE:[A-Z]*=//p' "$build/CMakeCache.txt")
  { (cd "$root" && cmake -S runtime --preset runtime-only -B "$work/runtime" \
      -DPROOFC_DEPS_INCLUDE="$deps" "${cmake_args[@]}") &&
    cmake --build "$work/runtime" -j "$(nproc)" &&
    cmake --install "$work/runtime" --prefix "$work/prefix"
  } >"$work/runtime.log" 2>&1 || { cat "$work/runtime.log"; exit 1; }
  ;;
*)
  echo "build-embed-example: PROOFC_EMBED_FROM=${PROOFC_EMBED_FROM}: expected build or runtime" >&2
  exit 2
  ;;
esac

echo "== build examples/embed against $work/prefix"
# CMAKE_FIND_USE_PACKAGE_REGISTRY/SYSTEM paths off: proofc comes from the
# prefix or nowhere.
cmake -S "$root/examples/embed" -B "$work/embed" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
  "${cmake_args[@]}" >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/embed" >"$work/build.log" ||
  { cat "$work/build.log"; exit 1; }

echo "== run the example on nations (first $queries test queries)"
"$build/bin/proofc" compile "$root/examples/v10.mlir" -o "$work/v10.pcb"
"$work/embed/proofc-embed-example" "$work/v10.pcb" "$data" "$trained" \
  "$queries" | tee "$work/example.txt"

echo "== the same two evaluations with proofc-run"
"$build/bin/proofc" init-weights "$root/examples/v10.mlir" --data "$data" \
  --seed 1 -o "$work/random.safetensors"
for name in trained random; do
  weights=$trained
  [ $name = random ] && weights=$work/random.safetensors
  "$build/bin/proofc-run" "$work/v10.pcb" --data "$data" --weights "$weights" \
    --split test --queries "$queries" --corruptions 100 --device auto --quiet \
    --report "$work/$name.json" >/dev/null
done

/usr/bin/python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
text = open(f"{work}/example.txt").read()
failed = False
for name in ("trained", "random"):
    match = re.search(rf"^{name}\s+MRR (\S+)", text, re.M)
    if not match:
        sys.exit(f"build-embed-example: no '{name}' MRR line in the output")
    example = float(match.group(1))
    cli = json.load(open(f"{work}/{name}.json"))["metrics"]["both"]["mrr"]
    same = example == cli
    failed |= not same
    print(f"{name:8} example {example!r}  proofc-run {cli!r}  "
          f"{'equal' if same else 'DIFFERENT'}")
sys.exit(1 if failed else 0)
PY
echo "build-embed-example: ok"
