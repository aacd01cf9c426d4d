#!/usr/bin/env bash
# Runs the mpirun of Debian's Open MPI carried to a machine without it (the
# GPU machine: no apt, no network): scripts/make-deps.sh packs the pruned
# tree into .deps/openmpi.tar.gz, scripts/gpu-build.sh unpacks it into
# $PROOFC_GPU_BUILD_DIR/openmpi and builds the tools against it. Open MPI was
# built for /usr; OPAL_PREFIX (Open MPI) and PMIX_INSTALL_PREFIX (PMIx)
# relocate it, PATH finds its orted, LD_LIBRARY_PATH its libraries (the
# ranks inherit the environment on one host; -x forwards it to others).
#   scripts/mpirun-carried.sh [MPIRUN ARGS...]   e.g. -np 2 build-gpu-device/bin/proofc-run ...
# Environment: OPENMPI_CARRIED (the unpacked tree; default
# ${PROOFC_GPU_BUILD_DIR:-<repo>/build-gpu-device}/openmpi).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tree=${OPENMPI_CARRIED:-${PROOFC_GPU_BUILD_DIR:-$root/build-gpu-device}/openmpi}
[ -x "$tree/usr/bin/orterun" ] ||
  { echo "mpirun-carried: no Open MPI in $tree (run scripts/gpu-build.sh with .deps/openmpi.tar.gz)" >&2; exit 1; }
arch=$tree/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX=$tree/usr
export PMIX_INSTALL_PREFIX=$arch/pmix2
export PATH=$tree/usr/bin:$PATH
export LD_LIBRARY_PATH=$arch:$arch/openmpi/lib:$arch/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The pruned network components would only be reported missing.
export OMPI_MCA_btl_base_warn_component_unused=0
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
exec "$tree/usr/bin/orterun" "${root_flag[@]}" -x LD_LIBRARY_PATH -x OPAL_PREFIX \
  -x PMIX_INSTALL_PREFIX "$@"
