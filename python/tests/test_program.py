"""proofc.program: the generated reference program evaluates as examples/v10.mlir,
its shapes and scale follow the hyperparameters, and compile() caches bundles."""

import json
import os
import re

import pytest

from cli_helpers import V10, bin_dir, binary, read_outcomes, run, shared
from proofc import program as prog
from proofc import safetensors as st
from proofc.errors import Error

V10_SHAPE = dict(A=6, S=120, D=20, B=256, d=64, L=2)


def outcomes_of(tmp_path, command, weights, name, queries=40):
    """The outcomes TSV bytes of `proofc run PROGRAM` or `proofc-run BUNDLE`
    (command: the tool and its positional arguments) on nations."""
    out = tmp_path / f"{name}.tsv"
    run(*command, "--data", shared("data", "nations"), "--weights", weights, "--queries",
        queries, "--corruptions", 100, "--device", "cpu", "--outcomes", out)
    return out.read_bytes()


def test_v10_program_evaluates_as_the_example(tmp_path):
    text = prog.program(**V10_SHAPE, name="v10")
    generated = tmp_path / "v10.mlir"
    generated.write_text(text)
    weights = shared("weights", "nations.safetensors")
    ours = outcomes_of(tmp_path, ["proofc", "run", generated], weights, "ours")
    theirs = outcomes_of(tmp_path, ["proofc", "run", V10], weights, "theirs")
    assert ours == theirs
    assert {line["status"] for line in read_outcomes(tmp_path / "ours.tsv")} >= \
        {"proved", "failed"}
    # The example's type annotations and attributes, the generated program's.
    annotations = lambda t: sorted(re.findall(
        r"(?:tensor|!eval\.\w+)<[^>]*>|\w+ = [-+.e0-9]+ : (?:i64|f32)", re.sub(r"//[^\n]*", "", t)))
    assert annotations(text) == annotations(open(V10).read())


def test_shapes_and_scale_follow_the_hyperparameters(tmp_path):
    text = prog.program(A=4, S=60, D=10, B=32, d=128, L=3, name="wide")
    # The scale is the compiler's 1/sqrt(d) (checked in the report below), D
    # and B are the attributes'.
    assert "scale =" not in text and "max_depth" not in text
    assert prog.score_scale(128) == 0.0883883461356163  # float32(1/sqrt(128))
    assert prog.score_scale(64) == 0.125
    # 4 per MLP layer (linear in and out, layer_norm, relu), sum_atoms,
    # return and the encoder's signature.
    assert text.count("tensor<128xf32>") == 4 * 3 + 3
    assert "D = 10 : i64" in text and "B = 32 : i64" in text
    assert "!eval.derived<?x60x4>" in text
    mlir = tmp_path / "wide.mlir"
    mlir.write_text(text)
    out = tmp_path / "w.safetensors"
    run("proofc", "init-weights", mlir, "--data", shared("data", "nations"), "-o", out)
    shapes = {k: v.shape for k, v in st.read(out).items()}
    assert shapes["atom.weight"] == (128, 384) and shapes["var_emb"] == (8, 128)
    assert sorted(k for k in shapes if k.startswith("mlp.")) == sorted(
        f"mlp.{l}.{p}" for l in range(3) for p in ("weight", "bias", "ln.weight", "ln.bias"))
    report = tmp_path / "r.json"
    result = run("proofc", "run", mlir, "--data", shared("data", "nations"), "--weights", out,
                 "--queries", 3, "--device", "cpu", "--report", report)
    assert "@wide (A=4 S=60 D=10 B=32 d=128 L=3)" in result.stdout
    assert json.loads(report.read_text())["program"]["policy"]["score_scale"] == \
        prog.score_scale(128)


def test_no_mlp_layers(tmp_path):
    mlir = tmp_path / "l0.mlir"
    mlir.write_text(prog.program(A=6, S=120, D=20, B=16, d=8, L=0, name="l0"))
    out = tmp_path / "w.safetensors"
    run("proofc", "init-weights", mlir, "--data", shared("data", "nations"), "-o", out)
    assert sorted(st.read(out)) == ["atom.bias", "atom.weight", "const_emb", "pred_emb",
                                    "var_emb"]
    run("proofc", "run", mlir, "--data", shared("data", "nations"), "--weights", out,
        "--queries", 2, "--device", "cpu")


@pytest.mark.parametrize("kwargs,message", [
    (dict(A=0), "program: A = 0 is outside [1, 2147483647]"),
    (dict(B=2**31), "program: B = 2147483648 is outside [1, 2147483647]"),
    (dict(L=-1), "program: L = -1 is outside [0, 2147483647]"),
    (dict(d=True), "program: d must be an integer, got True"),
    (dict(S=1.5), "program: S must be an integer, got 1.5"),
    (dict(name="1x"), "program: name '1x' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.]*)"),
])
def test_bad_hyperparameters(kwargs, message):
    with pytest.raises(Error) as caught:
        prog.program(**kwargs)
    assert str(caught.value) == message


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PROOFC_BIN", bin_dir())
    return tmp_path / "cache" / "bundles"


def compile_or_skip(*args, **kwargs):
    try:
        return prog.compile(*args, **kwargs)
    except Error as e:
        if "libdevice" in str(e):
            pytest.skip(f"this machine cannot compile bundles: {e}")
        raise


def test_compiled_bundle_evaluates_as_the_example(tmp_path, cache):
    binary("proofc-run")
    bundle = compile_or_skip(prog.program(**V10_SHAPE, name="v10"))
    assert os.path.dirname(bundle) == str(cache) and bundle.endswith(".pcb")
    stamp = os.stat(bundle).st_mtime_ns
    assert prog.compile(prog.program(**V10_SHAPE, name="v10")) == bundle  # a cache hit
    assert os.stat(bundle).st_mtime_ns == stamp
    assert prog.compile(prog.program(**dict(V10_SHAPE, B=128), name="v10")) != bundle
    weights = shared("weights", "nations.safetensors")
    ours = outcomes_of(tmp_path, ["proofc-run", bundle], weights, "bundle")
    theirs = outcomes_of(tmp_path, ["proofc", "run", V10], weights, "example")
    assert ours == theirs
    # The same tensors written by proofc.safetensors, with the weights
    # contract's metadata, run alike.
    written = tmp_path / "written.safetensors"
    st.write(written, st.read(weights), st.weights_metadata("v10", shared("data", "nations")))
    assert outcomes_of(tmp_path, ["proofc-run", bundle], written, "written") == theirs
    explicit = prog.compile(V10, out=str(tmp_path / "v10.pcb"))
    assert explicit == str(tmp_path / "v10.pcb") and os.path.getsize(explicit) > 0


def test_compile_errors(tmp_path, cache):
    binary("proofc")
    with pytest.raises(Error) as caught:
        prog.compile("eval.program @x attributes {A = 1 : i64} {\n}\n")
    message = str(caught.value)
    assert message.startswith("proofc compile of <program text> failed (exit 1):\n<program text>:")
    assert "requires attribute" in message
    assert not os.path.isdir(cache) or os.listdir(cache) == []
    with pytest.raises(Error, match=r"nope\.mlir: cannot read: No such file"):
        prog.compile(str(tmp_path / "nope.mlir"))


def test_find_binary(tmp_path, monkeypatch):
    where = bin_dir()
    binary("proofc")
    monkeypatch.setenv("PROOFC_BIN", where)
    assert prog.find_binary("proofc-run") == os.path.join(where, "proofc-run")
    monkeypatch.setenv("PROOFC_BIN", os.path.join(where, "proofc-run"))
    assert prog.find_binary("proofc") == os.path.join(where, "proofc")  # beside it
    monkeypatch.setenv("PROOFC_BIN", str(tmp_path))
    with pytest.raises(Error, match=r"^PROOFC_BIN=.*: no executable proofc there$"):
        prog.find_binary("proofc")


def test_find_binary_of_an_installed_package(tmp_path, monkeypatch):
    """An installed package (proofc/_installed.py, tools/Install.cmake) finds
    the tools in the prefix's bin/, relative to itself, before PATH."""
    import sys
    import types
    package = os.path.dirname(os.path.abspath(prog.__file__))
    tools = tmp_path / "prefix" / "bin"
    tools.mkdir(parents=True)
    (tools / "proofc").write_text("#!/bin/sh\n")
    (tools / "proofc").chmod(0o755)
    installed = types.ModuleType("proofc._installed")
    installed.BIN_DIR = os.path.relpath(tools, package)
    monkeypatch.setitem(sys.modules, "proofc._installed", installed)
    monkeypatch.delenv("PROOFC_BIN", raising=False)
    monkeypatch.delenv("PROOFC_BIN_DIR", raising=False)
    assert prog.find_binary("proofc") == str(tools / "proofc")
    # a tool the prefix lacks falls back to the build tree and PATH
    monkeypatch.setenv("PATH", str(tmp_path))
    found = None
    try:
        found = prog.find_binary("proofc-merge")
    except Error as e:
        assert "cannot find the proofc-merge binary (this package was installed " \
            f"with the tools in {tools}, which has none)" in str(e)
    assert found is None or not found.startswith(str(tools))


def test_cache_dir(monkeypatch):
    monkeypatch.setenv("PROOFC_CACHE_DIR", "/c")
    assert prog.cache_dir() == "/c/bundles"
    monkeypatch.delenv("PROOFC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert prog.cache_dir() == "/x/proofc/bundles"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/h")
    assert prog.cache_dir() == "/h/.cache/proofc/bundles"
