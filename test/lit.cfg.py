# -*- Python -*-
# lit configuration of the proofc suite (see test/CMakeLists.txt).
#
# Substitutions: %shared is the shared/ folder with data/ and weights/
# ($PROOFC_SHARED_DIR when set, else the configured path), %examples the
# repository's examples/ folder.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "PROOFC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.proofc_obj_root, "test")
# Inputs/ hold files that tests read; unit/ is the GoogleTest suite; fuzz/
# holds fuzz targets and their seed corpora (inputs, not tests).
config.excludes = ["Inputs", "unit", "fuzz", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

shared_dir = os.environ.get("PROOFC_SHARED_DIR") or config.proofc_shared_dir
config.substitutions.append(("%shared", shared_dir))
config.substitutions.append(
    ("%examples", os.path.join(config.proofc_src_root, "examples")))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["proofc", "proofc-opt", "proofc-run", "proofc-merge",
     "proofc-session-bench"],
    [config.proofc_tools_dir, config.llvm_tools_dir])

# The CUDA toolkit, for the PTX tests of `proofc compile`: feature `ptxas`
# (tests that assemble the generated PTX; UNSUPPORTED without it) and
# feature `libdevice` (tests that run the whole GPU pipeline, which links it).
cuda_root = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
ptxas = os.path.join(cuda_root, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
libdevice = os.environ.get("PROOFC_LIBDEVICE") or os.path.join(
    cuda_root, "nvvm", "libdevice", "libdevice.10.bc")
if os.path.exists(libdevice):
    config.available_features.add("libdevice")

# MPI ranks (feature `mpi`, docs/scale-out.md): the tools were built with
# MPI (PROOFC_MPI) and its launcher is there. %mpirun runs it with
# --oversubscribe (CI has 2 cores for 3 ranks), and --allow-run-as-root
# where the tests run as root (containers).
mpiexec = config.proofc_mpiexec
if config.proofc_have_mpi == "ON" and mpiexec and os.path.exists(mpiexec):
    config.available_features.add("mpi")
    root = " --allow-run-as-root" if os.geteuid() == 0 else ""
    config.substitutions.append(
        ("%mpirun", mpiexec + " --oversubscribe" + root))

# A loadable CUDA driver (feature `cuda-driver`): `proofc run --device cuda`
# then runs instead of failing (test/proofc/run-device.test).
try:
    import ctypes
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
