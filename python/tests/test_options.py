"""One options model: the Evaluator's keywords are the command line's flags.

The defaults come from C++ (proofc._core.DEFAULTS, SessionOptions'), so an
Evaluator made with no option and `proofc run` given no option evaluate the
same candidates; every keyword is checked with the flag's rule, and a wrong
one is a TypeError or ValueError naming it -- never a pybind11 conversion
error (docs/options.md).
"""
import json
import subprocess

import numpy as np
import pytest

import proofc
from proofc import _core
from conftest import BIN, ROOT


def test_defaults_are_the_command_lines():
    d = _core.DEFAULTS
    assert d["split"] == "test"
    assert d["corruptions"] == 0  # every filtered corruption
    assert d["queries"] is None
    assert d["hits"] == (1, 3, 5, 10)  # PyKEEN's
    assert d["device"] == "auto"
    assert (d["cond"], d["unroll"], d["memo_entries"]) == ("native", 8, -1)
    assert _core.LIMITS["bootstrap"] == (0, 1 << 20)
    assert _core.LIMITS["unroll"] == (1, 1024)
    help_text = subprocess.run([str(BIN / "proofc-run"), "--help"],
                               capture_output=True, text=True).stdout
    for flag, value in (("--split", "test"), ("--device", "auto"),
                        ("--cond", "native"), ("--hits", "1,3,5,10")):
        line = next(l for l in help_text.splitlines() if flag + " " in l)
        assert f"={value}" in line, line


def test_no_options_evaluate_the_same_candidates_as_proofc_run(
        nations, trained, tmp_path):
    proofc_tool = BIN / "proofc"
    if not proofc_tool.exists():
        pytest.skip(f"{proofc_tool} is not built")
    tsv, report = tmp_path / "outcomes.tsv", tmp_path / "report.json"
    subprocess.run([str(proofc_tool), "run", str(ROOT / "examples" / "v10.mlir"),
                    "--data", str(nations), "--weights", str(trained),
                    "--quiet", "--outcomes", str(tsv), "--report", str(report)],
                   check=True, capture_output=True)
    cli = json.loads(report.read_text())
    rows = [l.split("\t") for l in tsv.read_text().splitlines()
            if not l.startswith("#")]
    header, rows = rows[0], rows[1:]
    column = {name: [r[i] for r in rows] for i, name in enumerate(header)}
    with proofc.Evaluator(ROOT / "examples" / "v10.mlir", nations) as ev:
        assert ev.options["split"] == "test"
        result = ev.evaluate(trained)
        assert result["candidates"] == cli["candidates"]
        got = result["outcomes"]
        assert len(got["query"]) == len(rows) == ev.num_candidates
        assert np.array_equal(got["query"],
                              np.array(column["query"], dtype=np.int32))
        assert [proofc.MODE_NAMES[m] for m in got["mode"]] == column["mode"]
        assert [ev.entities[e] for e in got["entity"]] == column["entity"]
        assert result["rank_metrics"] == cli["rank_metrics"]


@pytest.mark.parametrize("keyword, value, error, message", [
    ("corruptions", 1.5, TypeError, r"corruptions: expected an int, got float 1\.5"),
    ("corruptions", "50", TypeError, r"corruptions: expected an int, got str '50'"),
    ("corruptions", 10**30, ValueError,
     r"corruptions: 1000000000000000000000000000000 is out of range"),
    ("queries", True, TypeError, r"queries: expected an int, got bool True"),
    ("seed", -1, ValueError, r"seed: -1 is out of range \[0, 18446744073709551615\]"),
    ("hits", ("a",), TypeError, r"hits: expected an int, got str 'a'"),
    ("hits", "1,3", TypeError, r"hits: expected a sequence of ints, got str"),
    ("bootstrap", (1 << 20) + 1, ValueError,
     r"bootstrap: 1048577 is out of range \[0, 1048576\]"),
    ("threads", -1, ValueError, r"threads: -1 is out of range \[0, 2147483647\]"),
    ("unroll", 0, ValueError, r"unroll: 0 is out of range \[1, 1024\]"),
    ("memo_entries", 3, ValueError, r"memo_entries: 3 is not -1, 0 or a power of two"),
    ("per_relation", 1, TypeError, r"per_relation: expected a bool, got int 1"),
    ("shared_lists", 1, TypeError, r"shared_lists: expected a bool, got int 1"),
    ("split", "tset", ValueError, r"split: 'tset' is not one of 'train', 'valid', 'test'"),
    ("cond", 3, TypeError, r"cond: expected a str, got int 3"),
    ("device", None, None, None),
    ("devices", 1, TypeError,
     r"devices: expected 'all', a str such as '0,1' or a sequence of ints, got int 1"),
    ("devices", [0, True], TypeError, r"devices: expected an int, got bool True"),
    ("devices", [0, -1], ValueError, r"devices: -1 is out of range"),
    ("devices", [], ValueError, r"devices: empty"),
    ("devices", "0,,1", ValueError,
     r"devices 0,,1: expected all or CUDA device ordinals separated by commas"),
    ("devices", "1,1", ValueError, r"devices 1,1: device 1 is named twice"),
])
def test_each_keyword_is_checked_and_named(nations, keyword, value, error,
                                           message):
    if error is None:  # None is every keyword's default
        return
    with pytest.raises(error, match=message):
        _core.Evaluator("unused.pcb", data=nations, **{keyword: value})


def test_data_must_be_a_path():
    with pytest.raises(TypeError, match=r"data: expected a path .*got int 3"):
        _core.Evaluator("unused.pcb", data=3)
    with pytest.raises(TypeError, match="bundle: expected a path"):
        _core.Evaluator(3.0, data="x")
    with pytest.raises(TypeError, match="nope: not a keyword"):
        _core.Evaluator("unused.pcb", data="x", nope=1)


def test_devices_need_a_cuda_device_keyword(nations):
    # --devices' rule: several devices are CUDA devices (device cuda or
    # auto); refused before anything is opened.
    with pytest.raises(ValueError, match=r"devices \[0, 1\]: several devices "
                       r"are CUDA devices; give device='cuda'.*device='cpu'"):
        _core.Evaluator("unused.pcb", data=nations, device="cpu",
                        devices=[0, 1])
    assert _core.DEFAULTS["devices"] is None


def test_devices_without_a_gpu_is_one_clear_error(bundle, nations):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is usable here")
    # A sequence of ordinals is --devices' list; the refusal names it.
    with pytest.raises(proofc.Error,
                       match=r"devices 0,1: no usable CUDA device"):
        proofc.Evaluator(bundle, nations, devices=(0, 1), queries=2,
                         corruptions=2)
    with pytest.raises(proofc.Error,
                       match=r"device cuda:1: no usable CUDA device"):
        proofc.Evaluator(bundle, nations, device="cuda:1", queries=2,
                         corruptions=2)


def test_workers_per_device_is_the_flags(bundle, nations):
    # --workers-per-device: 0 (auto: 2 on CUDA, 1 on the CPU) to 8; more
    # than one on the host backend is refused when the evaluator opens.
    assert _core.DEFAULTS["workers_per_device"] == 0
    assert _core.LIMITS["workers_per_device"] == (0, 8)
    with pytest.raises(ValueError, match=r"workers_per_device: 9 is out of "
                       r"range"):
        _core.Evaluator("unused.pcb", data=nations, workers_per_device=9)
    with pytest.raises(TypeError, match=r"workers_per_device: expected an "
                       r"int"):
        _core.Evaluator("unused.pcb", data=nations, workers_per_device="2")
    with pytest.raises(proofc.Error, match=r"workers_per_device 2: several "
                       r"workers share a CUDA device; the host backend"):
        proofc.Evaluator(bundle, nations, device="cpu", workers_per_device=2,
                         queries=2, corruptions=2)
    with proofc.Evaluator(bundle, nations, device="cpu", workers_per_device=1,
                          queries=2, corruptions=2) as ev:
        assert ev.options["workers_per_device"] == 1


def test_shared_lists_change_no_outcome(bundle, nations, trained):
    # nations' first 40 queries, every corruption: queries that share (r, t)
    # or (h, r) share a list's corruptions (docs/scale-out.md, "Shared
    # lists"); sharing them or not gives the same outcomes, bit for bit.
    assert _core.DEFAULTS["shared_lists"] is True
    out = []
    for share in (True, False):
        ev = proofc.Evaluator(bundle, nations, device="cpu", queries=40,
                              shared_lists=share)
        assert ev.options["shared_lists"] is share
        r = ev.evaluate(str(trained))
        out.append((r.outcomes.status.copy(), r.outcomes.depth.copy(),
                    r.outcomes.logp.copy().view("u4")))
    for a, b in zip(*out):
        assert (a == b).all()
