"""Fixtures of the proofc Python tests: the tools, the data, a bundle.

The tests compare proofc.Evaluator with the command-line runner, so they need
the build's binaries: $PROOFC_BIN_DIR (ctest sets it; default build/bin) with
proofc-run, and proofc to compile examples/v10.mlir ($PROOFC_TEST_BUNDLE
names a bundle instead, for builds without the compiler). The datasets and
trained weights come from $PROOFC_SHARED_DIR (default ../shared).
"""
import json
import os
import pathlib
import struct
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("PROOFC_BIN_DIR", ROOT / "build" / "bin"))
SHARED = pathlib.Path(os.environ.get("PROOFC_SHARED_DIR", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def shared():
    if not (SHARED / "data" / "nations").is_dir():
        pytest.skip(f"no datasets under {SHARED}")
    return SHARED


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
    """{name: float32 array} of a safetensors file (the test's own reader)."""
    raw = pathlib.Path(path).read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    body = raw[8 + size:]
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", (name, entry["dtype"])
        begin, end = entry["data_offsets"]
        out[name] = np.frombuffer(body[begin:end], dtype="<f4").reshape(
            entry["shape"]).copy()
    return out


def write_safetensors(path, tensors):
    """Writes {name: float32 array} as safetensors (the test's own writer)."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        data = np.ascontiguousarray(tensors[name], dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    pathlib.Path(path).write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
