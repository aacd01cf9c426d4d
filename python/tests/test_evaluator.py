"""proofc.Evaluator against the command-line runner, bit for bit.

Every comparison is with a fresh `proofc-run` on the same bundle, data,
candidates and weights: the report's deterministic fields (everything but
timings, provenance and the weights' origin) and every outcome column.
"""
import json
import os
import pathlib
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import proofc
from conftest import ROOT, read_safetensors, write_safetensors

# A small workload: nations, 60 valid queries, 30 corruptions per side.
SMALL = dict(split="valid", queries=60, corruptions=30, seed=5)
# Long enough (about a second on two cores) to interrupt midway.
LARGE = dict(split="valid", queries=20, corruptions=50, seed=1)
# The report fields that depend only on the program, data, candidates and
# weights (docs/report-schema.md).
COMPARED = ("schema", "version", "program", "dataset", "candidates",
            "metrics", "rank_metrics", "pykeen", "backend", "device")


def cli(proofc_run, bundle, data, weights, out_dir, device="cpu", **cand):
    """(report, outcome columns) of a fresh proofc-run."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    report, tsv = out_dir / "report.json", out_dir / "outcomes.tsv"
    args = [str(proofc_run), str(bundle), "--data", str(data),
            "--weights", str(weights), "--device", device, "--quiet",
            "--report", str(report), "--outcomes", str(tsv),
            "--split", cand["split"], "--seed", str(cand["seed"])]
    if device == "cpu":
        args += ["--threads", "2"]
    if cand.get("queries") is not None:
        args += ["--queries", str(cand["queries"])]
    if cand.get("corruptions") is not None:
        args += ["--corruptions", str(cand["corruptions"])]
    subprocess.run(args, check=True, capture_output=True)
    return json.loads(report.read_text()), read_outcomes(tsv)


def read_outcomes(path):
    """The outcomes TSV (version 2) as columns of names and numbers."""
    lines = [l for l in path.read_text().splitlines() if not l.startswith("#")]
    header = lines[0].split("\t")
    rows = [l.split("\t") for l in lines[1:]]
    col = {name: [r[i] for r in rows] for i, name in enumerate(header)}
    return {
        "query": np.array(col["query"], dtype=np.int32),
        "mode": col["mode"],
        "entity": col["entity"],
        "status": col["status"],
        "depth": np.array(col["depth"], dtype=np.int32),
        "logp": np.array([np.float32(v) for v in col["logp"]], dtype=np.float32),
    }


def assert_equals_cli(ev, result, cli_result):
    report, outcomes = cli_result
    for key in COMPARED:
        assert result[key] == report[key], key
    got = result["outcomes"]
    n = ev.num_candidates
    assert report["metrics"]["candidates"] == n
    for name in ("query", "mode", "entity", "positive", "status", "depth", "logp"):
        assert got[name].shape == (n,), name
    assert np.array_equal(got["query"], outcomes["query"])
    assert [proofc.MODE_NAMES[m] for m in got["mode"]] == outcomes["mode"]
    assert [ev.entities[e] for e in got["entity"]] == outcomes["entity"]
    assert [proofc.STATUS_NAMES[s] for s in got["status"]] == outcomes["status"]
    assert np.array_equal(got["depth"], outcomes["depth"])
    assert got["logp"].dtype == np.float32
    assert np.array_equal(got["logp"].view(np.uint32),
                          outcomes["logp"].view(np.uint32))
    # The positives open their (query, mode) lists.
    starts = np.flatnonzero(got["positive"])
    assert len(starts) == report["metrics"]["both"]["pairs"]


@pytest.fixture(scope="module")
def ev(bundle, nations):
    with proofc.Evaluator(bundle, nations, device="cpu", threads=2,
                          **SMALL) as e:
        yield e


@pytest.fixture(scope="module")
def random_weights(ev, tmp_path_factory):
    """Weights B: random, of the program's shapes, and their file."""
    rng = np.random.default_rng(7)
    weights = {name: (0.5 * rng.standard_normal(shape)).astype(np.float32)
               for name, (shape, _) in ev.expected_tensors().items()}
    path = tmp_path_factory.mktemp("weights") / "random.safetensors"
    write_safetensors(path, weights)
    return weights, path


def test_static_facts(ev, trained, bundle, nations):
    expected = ev.expected_tensors()
    file = read_safetensors(trained)
    assert sorted(expected) == sorted(file)
    for name, (shape, dtype) in expected.items():
        assert isinstance(shape, tuple) and shape == file[name].shape
        assert dtype == "float32"
    assert len(ev.entities) == 14 and ev.entities == sorted(ev.entities)
    assert ev.relations == sorted(ev.relations)
    assert ev.device == "cpu" and ev.backend == "host"
    assert ev.program["name"] == "v10" and ev.program["d"] == 64
    assert ev.options["queries"] == 60 and ev.options["facts"] == "train"
    assert ev.queries.shape == (60, 3)
    cands = ev.candidates
    assert cands["query"].shape == (ev.num_candidates,)
    with pytest.raises(ValueError):
        cands["query"][0] = 1  # shared by every result: read-only
    assert "nations" in repr(ev)


def test_numpy_equals_cli(ev, bundle, nations, trained, proofc_run, tmp_path):
    result = ev.evaluate(read_safetensors(trained))
    assert_equals_cli(ev, result, cli(proofc_run, bundle, nations, trained,
                                      tmp_path, **SMALL))
    assert result["metrics"]["proved"] > 0  # a trained policy proves some


def test_file_equals_cli(ev, bundle, nations, trained, proofc_run, tmp_path):
    expected = cli(proofc_run, bundle, nations, trained, tmp_path, **SMALL)
    assert_equals_cli(ev, ev.evaluate(str(trained)), expected)
    assert_equals_cli(ev, ev.evaluate(pathlib.Path(trained)), expected)


def test_weights_a_b_a(ev, bundle, nations, trained, random_weights,
                       proofc_run, tmp_path):
    a = read_safetensors(trained)
    b, b_path = random_weights
    want_a = cli(proofc_run, bundle, nations, trained, tmp_path / "a", **SMALL)
    want_b = cli(proofc_run, bundle, nations, b_path, tmp_path / "b", **SMALL)
    assert want_a[0]["metrics"] != want_b[0]["metrics"]  # the test can fail
    for weights, want in ((a, want_a), (b, want_b), (a, want_a)):
        assert_equals_cli(ev, ev.evaluate(weights), want)


def test_torch_cpu_tensors(ev, bundle, nations, trained, proofc_run, tmp_path):
    torch = pytest.importorskip("torch")
    state = {k: torch.from_numpy(v) for k, v in read_safetensors(trained).items()}
    # A parameter (requires_grad) is read without its autograd history.
    name = sorted(state)[0]
    state[name] = torch.nn.Parameter(state[name].clone())
    assert_equals_cli(ev, ev.evaluate(state),
                      cli(proofc_run, bundle, nations, trained, tmp_path, **SMALL))


class FakeDlpack:
    """A tensor that says it is on a DLPack device (type, id)."""

    def __init__(self, device):
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        raise AssertionError("read although on the wrong device")


class FakeCudaArray:
    __cuda_array_interface__ = {"shape": (2,), "typestr": "<f4",
                                "data": (1 << 20, False), "version": 3}


def _bad(base, name, value):
    bad = dict(base)
    bad[name] = value
    return bad


def test_bad_weights_raise(ev, trained):
    good = read_safetensors(trained)
    name = "atom.weight"
    assert good[name].ndim == 2
    label = r"weights\['atom\.weight'\]"
    cases = [
        (ValueError, r"missing tensor atom\.weight",
         {k: v for k, v in good.items() if k != name}),
        (ValueError, r"weights\['extra'\]: the program has no tensor",
         _bad(good, "extra", good[name])),
        (ValueError, label + r": shape \(\d+, \d+\), the program needs",
         _bad(good, name, good[name][:, :-1].copy())),
        (ValueError, label + ": shape", _bad(good, name, good[name].reshape(-1))),
        (TypeError, label + ": dtype float64",
         _bad(good, name, good[name].astype(np.float64))),
        (TypeError, label + ": dtype int32",
         _bad(good, name, good[name].astype(np.int32))),
        (ValueError, label + ": not C-contiguous",
         _bad(good, name, np.asfortranarray(good[name]))),
        (TypeError, label + ": a list is not a tensor",
         _bad(good, name, good[name].tolist())),
        (ValueError, label + ": on cuda:0, but the evaluator runs on the cpu",
         _bad(good, name, FakeDlpack((2, 0)))),
        # The tensor's own device ordinal, not the evaluator's, is named.
        (ValueError, label + ": on cuda:1, but the evaluator runs on the cpu",
         _bad(good, name, FakeDlpack((2, 1)))),
        (ValueError, label + ": a CUDA array",
         _bad(good, name, FakeCudaArray())),
        (ValueError, label + ": on DLPack device type 4",
         _bad(good, name, FakeDlpack((4, 0)))),
        (TypeError, "tensor names are str", {**good, 3: good[name]}),
    ]
    for error, pattern, weights in cases:
        with pytest.raises(error, match=pattern):
            ev.evaluate(weights)
    with pytest.raises(TypeError, match="mapping"):
        ev.evaluate(42)
    with pytest.raises(proofc.Error, match="no-such.safetensors"):
        ev.evaluate("/nonexistent/no-such.safetensors")
    # Still usable: the trained weights evaluate as before.
    assert ev.evaluate(good)["metrics"]["candidates"] == ev.num_candidates


def test_bad_torch_weights_raise(ev, trained):
    torch = pytest.importorskip("torch")
    good = {k: torch.from_numpy(v) for k, v in read_safetensors(trained).items()}
    name = "atom.weight"
    with pytest.raises(TypeError, match=f"{name}.*torch.float64"):
        ev.evaluate(_bad(good, name, good[name].double()))
    with pytest.raises(ValueError, match=f"{name}.*C-contiguous"):
        ev.evaluate(_bad(good, name, good[name].t().contiguous().t()))
    with pytest.raises(ValueError, match=f"{name}.*shape"):
        ev.evaluate(_bad(good, name, good[name][1:]))


def test_bad_options_raise(bundle, nations, tmp_path):
    with pytest.raises(ValueError, match="facts"):
        proofc.Evaluator(bundle, nations, facts="all")
    with pytest.raises(TypeError, match="queries: expected an int"):
        proofc.Evaluator(bundle, nations, queries="3")
    with pytest.raises(ValueError, match="hits: 0 is not a positive"):
        proofc.Evaluator(bundle, nations, hits=(1, 0))
    with pytest.raises(proofc.Error):
        proofc.Evaluator(bundle, tmp_path / "no-such-dataset", device="cpu")
    with pytest.raises(proofc.Error):
        proofc.Evaluator(tmp_path / "no-such.pcb", nations, device="cpu")
    with pytest.raises(proofc.Error):
        proofc.Evaluator(bundle, nations, device="tpu")
    with pytest.raises(TypeError, match="program_or_bundle"):
        proofc.Evaluator(3, nations)


@pytest.fixture(scope="module")
def kinship_ev(bundle, shared):
    with proofc.Evaluator(bundle, shared / "data" / "kinship", device="cpu",
                          threads=2, **LARGE) as e:
        yield e


def test_keyboard_interrupt(kinship_ev, bundle, shared, proofc_run, tmp_path):
    weights = read_safetensors(shared / "weights" / "kinship.safetensors")
    # Python's own Ctrl-C handler (a process started in the background has
    # SIGINT ignored, and then Python installs none).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_then_evaluate(kinship_ev, weights, bundle, shared,
                                 proofc_run, tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_then_evaluate(kinship_ev, weights, bundle, shared, proofc_run,
                             tmp_path):
    sent = []

    def interrupt_from_a_thread(done, total):
        # Once the run is under way, SIGINT arrives as from Ctrl-C.
        if not sent and done < total:
            sent.append(done)
            threading.Thread(target=os.kill,
                             args=(os.getpid(), signal.SIGINT)).start()

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        kinship_ev.evaluate(weights, progress=interrupt_from_a_thread)
    interrupted = time.monotonic() - start
    assert sent

    seen = []
    start = time.monotonic()
    result = kinship_ev.evaluate(weights, progress=lambda d, t: seen.append((d, t)))
    full = time.monotonic() - start
    assert interrupted < 0.75 * full, (interrupted, full)
    assert seen and seen[-1] == (kinship_ev.num_candidates,) * 2
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert_equals_cli(kinship_ev, result,
                      cli(proofc_run, bundle, shared / "data" / "kinship",
                          shared / "weights" / "kinship.safetensors", tmp_path,
                          **LARGE))


def test_progress_exception_cancels(kinship_ev, shared):
    weights = read_safetensors(shared / "weights" / "kinship.safetensors")

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop()

    with pytest.raises(Stop):
        kinship_ev.evaluate(weights, progress=stop)


def test_gil_released_and_any_thread(kinship_ev, ev, trained, shared):
    weights = read_safetensors(shared / "weights" / "kinship.safetensors")
    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        before = count[0]
        kinship_ev.evaluate(weights)
        during = count[0] - before
    finally:
        stop.set()
        spinner.join()
    # Python ran beside the evaluation (the GIL was released).
    assert during > 10000, during

    # An evaluator made on one thread evaluates from another.
    want = ev.evaluate(str(trained))
    got = []
    worker = threading.Thread(target=lambda: got.append(ev.evaluate(str(trained))))
    worker.start()
    worker.join()
    assert got and got[0]["metrics"] == want["metrics"]
    assert np.array_equal(got[0]["outcomes"]["logp"], want["outcomes"]["logp"])


def test_close(bundle, nations, trained):
    e = proofc.Evaluator(bundle, nations, device="cpu", queries=2, corruptions=2)
    e.close()
    assert e.closed and "closed" in repr(e)
    with pytest.raises(proofc.Error, match="closed"):
        e.evaluate(str(trained))
    e.close()  # twice is fine


def test_mlir_program(ev, nations, trained, monkeypatch, tmp_path):
    program_module = pytest.importorskip(
        "proofc.program", reason="proofc.program is not installed")
    try:
        program_module.find_binary("proofc")
    except proofc.Error as e:  # a runtime-only build (the GPU machine)
        pytest.skip(f"no proofc compiler: {e}")
    monkeypatch.setenv("PROOFC_CACHE_DIR", str(tmp_path))  # its bundle cache
    mlir = ROOT / "examples" / "v10.mlir"
    want = ev.evaluate(str(trained))
    for program in (mlir, mlir.read_text()):
        with proofc.Evaluator(program, nations, device="cpu", threads=2,
                              **SMALL) as e:
            got = e.evaluate(str(trained))
            for key in ("metrics", "rank_metrics"):
                assert got[key] == want[key]


def _cuda_or_skip():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


def test_cuda_torch_tensors_equal_cli(bundle, nations, trained, proofc_run,
                                      tmp_path):
    torch = _cuda_or_skip()
    state = {k: torch.from_numpy(v).cuda()
             for k, v in read_safetensors(trained).items()}
    want = cli(proofc_run, bundle, nations, trained, tmp_path, device="cuda",
               **SMALL)
    with proofc.Evaluator(bundle, nations, device="cuda", **SMALL) as e:
        assert e.device == "cuda:0" and e.backend == "cuda"
        for _ in range(2):
            assert_equals_cli(e, e.evaluate(state), want)
        # Host tensors on a CUDA evaluator are uploaded.
        assert_equals_cli(e, e.evaluate({k: v.cpu() for k, v in state.items()}),
                          want)


def test_cuda_tensor_on_other_device_raises(bundle, nations, trained):
    torch = _cuda_or_skip()
    state = {k: torch.from_numpy(v) for k, v in read_safetensors(trained).items()}
    with proofc.Evaluator(bundle, nations, device="cpu", queries=2,
                          corruptions=2) as e:
        name = sorted(state)[0]
        with pytest.raises(ValueError, match=f"{name}.*cuda:0.*cpu"):
            e.evaluate(_bad(state, name, state[name].cuda()))
