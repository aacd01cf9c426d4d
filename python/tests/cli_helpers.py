"""What the pure-Python module tests share: the build's binaries, the shared
data, CLI runs and the outcomes TSV.

Binaries: $PROOFC_BIN (a binary or its directory), else $PROOFC_BIN_DIR (set
by ctest), else <repo>/build/bin. Data: $PROOFC_SHARED_DIR, else <repo>/../shared.
A test that needs a binary or a dataset that is not there is skipped, saying
which.
"""

import os
import subprocess
from typing import Dict, List

import pytest

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
V10 = os.path.join(REPO, "examples", "v10.mlir")


def bin_dir() -> str:
    env = os.environ.get("PROOFC_BIN")
    if env:
        return env if os.path.isdir(env) else os.path.dirname(env)
    return os.environ.get("PROOFC_BIN_DIR") or os.path.join(REPO, "build", "bin")


def binary(tool: str) -> str:
    path = os.path.join(bin_dir(), tool)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip(f"{path} not found: build the repository or set PROOFC_BIN")
    return path


def shared(*parts: str) -> str:
    base = os.environ.get("PROOFC_SHARED_DIR") or os.path.join(REPO, "..", "shared")
    path = os.path.join(base, *parts)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found: set PROOFC_SHARED_DIR")
    return path


def run(tool: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    """Runs a build binary; with ok, a non-zero exit fails the test with its stderr."""
    result = subprocess.run([binary(tool), *map(str, args)], capture_output=True, text=True)
    if ok and result.returncode != 0:
        pytest.fail(f"{tool} {' '.join(map(str, args))} exited {result.returncode}:\n"
                    f"{result.stderr}")
    return result


def cli_error(result: subprocess.CompletedProcess, tool: str = "proofc") -> str:
    """The message of a failed CLI run's one `<tool>: error: ...` line."""
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith(f"{tool}: error: "), result.stderr
    return lines[0][len(f"{tool}: error: "):]


def read_outcomes(path: str) -> List[Dict[str, str]]:
    """The lines of an outcomes TSV (docs/report-schema.md, version 1, 2 or 3) as dicts."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().rstrip("\n").split("\n")
    if lines[0].startswith("#proofc-outcomes"):
        lines = lines[1:]
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]
