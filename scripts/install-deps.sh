#!/usr/bin/env bash
# Installs what proofc needs on Debian bookworm (MLIR/LLVM 22 from
# bookworm-security, header-only libraries, GoogleTest, ninja). Idempotent:
# does nothing when everything is already there.
set -euo pipefail

packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools libfmt-dev
          nlohmann-json3-dev libcli11-dev libxxhash-dev libgtest-dev
          cmake ninja-build g++ lld python3
          # the Python package (python/, docs/python.md) and its tests
          pybind11-dev python3-dev python3-numpy python3-pytest python3-torch
          libdlpack-dev
          # the proofs' replay in SWI-Prolog (test/proofs/check_proofs.pl)
          swi-prolog-nox
          # MPI ranks in the run tools (PROOFC_MPI, docs/scale-out.md) and
          # the launcher of their tests (test/proofc/run-mpi*.test)
          libopenmpi-dev openmpi-bin
          # the C++ sources' layout (scripts/format.sh, ctest format.check)
          clang-format-22
          # scripts/make-deps.sh: the carried Open MPI's RUNPATHs
          patchelf)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
