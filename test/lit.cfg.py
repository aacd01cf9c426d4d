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
    ["proofc", "proofc-opt"],
    [config.proofc_tools_dir, config.llvm_tools_dir])
