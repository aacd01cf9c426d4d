"""Fixtures of the proofc Python tests: the tools, the data, a bundle.

The tests compare proofc.Evaluator with the command-line runner, so they need
the build's binaries: $PROOFC_BIN_DIR (ctest sets it; default build/bin) with
proofc-run, and proofc to compile examples/v10.mlir ($PROOFC_TEST_BUNDLE
names a bundle instead, for builds without the compiler). The datasets and
trained weights come from $PROOFC_SHARED_DIR (default ../shared).
"""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("PROOFC_BIN_DIR", ROOT / "build" / "bin"))
SHARED = pathlib.Path(os.environ.get("PROOFC_SHARED_DIR", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared():
    if not (SHARED / "data" / "nations").is_dir():
        pytest.skip(f"no datasets under {SHARED}")
    return SHARED


# The dataset and trained weights several test files evaluate on.
@pytest.fixture(scope="session")
def nations(shared):
    return shared / "data" / "nations"


@pytest.fixture(scope="session")
def trained(shared):
    return shared / "weights" / "nations.safetensors"


@pytest.fixture(scope="session")
def proofc_run():
    tool = BIN / "proofc-run"
    if not tool.exists():
        pytest.skip(f"{tool} is not built")
    return tool


@pytest.fixture(scope="session")
def bundle(tmp_path_factory):
    """examples/v10.mlir compiled by `proofc compile`."""
    given = os.environ.get("PROOFC_TEST_BUNDLE")
    if given:
        return pathlib.Path(given)
    compiler = BIN / "proofc"
    if not compiler.exists():
        pytest.skip(f"{compiler} is not built and $PROOFC_TEST_BUNDLE is unset")
    out = tmp_path_factory.mktemp("bundle") / "v10.pcb"
    subprocess.run([str(compiler), "compile", str(ROOT / "examples" / "v10.mlir"),
                    "-o", str(out)], check=True, capture_output=True)
    return out


def read_safetensors(path):
    """{name: float32 array} of a safetensors file (proofc.safetensors)."""
    from proofc import safetensors
    return safetensors.read(str(path))


def write_safetensors(path, tensors):
    """Writes {name: float32 array} as safetensors (proofc.safetensors)."""
    from proofc import safetensors
    safetensors.write(str(path), tensors)
