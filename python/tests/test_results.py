"""proofc.results.Result: the dict evaluate returned before, with PyKEEN's access.

The first tests build a Result from a hand-made report (no binary needed);
the last evaluates with the real Evaluator and checks every access path
against the report's own numbers.
"""
import json
import math
import pickle

import numpy as np
import pytest

from proofc.results import Outcomes, Result, View

REPORT = {
    "schema": "proofc-report",
    "metrics": {"both": {"mrr": 0.5, "hits1": 0.25, "pairs": 4},
                "head": {"mrr": 0.75, "hits1": 0.5, "pairs": 2},
                "candidates": 6, "proved": 2},
    "rank_metrics": {"hits": [1, 10],
                     "both": {"realistic": {"mean_rank": 2.5,
                                            "hits_at": {"1": 0.25}}}},
    "pykeen": {"both.realistic.inverse_harmonic_mean_rank": 0.5,
               "both.realistic.arithmetic_mean_rank": 2.5,
               "both.realistic.hits_at_1": 0.25,
               "both.realistic.z_hits_at_10": None,
               "both.pessimistic.hits_at_1": 0.0,
               "head.realistic.adjusted_arithmetic_mean_rank_index": 0.125,
               "tail.optimistic.arithmetic_mean_rank": None},
    "timings": {"run_seconds": 0.125},
    "outcomes": {"status": np.array([0, 1, 2], dtype=np.int8),
                 "logp": np.array([-0.5, 0, 0], dtype=np.float32),
                 "positive": np.array([True, False, False])},
}


def make():
    return Result(dict(REPORT))


def test_is_the_dict_it_was():
    r = make()
    assert isinstance(r, dict)
    assert r["metrics"]["both"]["mrr"] == 0.5
    assert r == REPORT
    assert r.to_dict() == REPORT and type(r.to_dict()) is dict
    without = {k: v for k, v in r.items() if k != "outcomes"}
    assert json.loads(json.dumps(without))["pykeen"] == REPORT["pykeen"]
    r["extra"] = 1  # a dict still
    assert r.extra == 1


def test_attribute_access():
    r = make()
    assert r.metrics.both.mrr == 0.5
    assert r.metrics.candidates == 6
    assert r.rank_metrics.both.realistic.mean_rank == 2.5
    assert r.rank_metrics.both.realistic.hits_at["1"] == 0.25
    assert r.timings.run_seconds == 0.125
    assert isinstance(r.metrics, View) and "both" in r.metrics
    assert r.metrics.to_dict() is REPORT["metrics"]
    with pytest.raises(AttributeError, match=r"metrics.both has no key 'mr'"):
        r.metrics.both.mr
    with pytest.raises(AttributeError, match="the result has no key 'nope'"):
        r.nope
    assert "metrics" in dir(r) and "get_metric" in dir(r)


def test_outcomes_as_numpy_columns():
    r = make()
    o = r.outcomes
    assert isinstance(o, Outcomes) and len(o) == 3
    assert o.status is REPORT["outcomes"]["status"]
    assert o["logp"].dtype == np.float32
    assert o.columns == ("status", "logp", "positive")
    with pytest.raises(AttributeError, match="no column 'score'"):
        o.score


def test_outcomes_as_torch_tensors():
    torch = pytest.importorskip("torch")
    r = Result(dict(REPORT), "cpu", as_torch=True)
    assert isinstance(r.outcomes.status, torch.Tensor)
    assert r.outcomes.status.dtype == torch.int8
    assert r.outcomes.positive.dtype == torch.bool
    assert r.outcomes.status.device.type == "cpu"
    assert r.outcomes.status.tolist() == [0, 1, 2]
    # the dict keeps its numpy arrays; numpy() converts back
    assert isinstance(r["outcomes"]["status"], np.ndarray)
    back = r.outcomes.numpy()
    assert np.array_equal(back.logp, REPORT["outcomes"]["logp"])
    t = make().to_torch()
    assert isinstance(t.outcomes.logp, torch.Tensor) and t.device == "cpu"


def test_get_metric_with_pykeen_keys():
    r = make()
    assert r.get_metric("both.realistic.inverse_harmonic_mean_rank") == 0.5
    # PyKEEN's defaults: side both, rank type realistic; its short names
    assert r.get_metric("inverse_harmonic_mean_rank") == 0.5
    assert r.get_metric("mrr") == 0.5
    assert r.get_metric("both.mean_rank") == 2.5
    assert r.get_metric("hits@1") == 0.25
    assert r.get_metric("pessimistic.hits_at_1") == 0.0
    assert r.get_metric("head.amri") == 0.125
    assert r.get_metric("tail.optimistic.arithmetic_mean_rank") is None
    assert r.get_metric("z_hits_at_10") is None
    with pytest.raises(KeyError, match=r"Hits@k for k in \[1, 10\] only"):
        r.get_metric("hits_at_5")
    with pytest.raises(KeyError, match="realistic ranks only"):
        r.get_metric("head.optimistic.adjusted_arithmetic_mean_rank_index")
    with pytest.raises(KeyError, match="side 'left'"):
        r.get_metric("left.realistic.mrr")
    with pytest.raises(KeyError, match="rank type 'average'"):
        r.get_metric("both.average.mrr")
    with pytest.raises(KeyError, match="is not <side>"):
        r.get_metric("a.b.c.d")


def test_flat_dict_and_df():
    r = make()
    flat = r.to_flat_dict()
    assert flat == REPORT["pykeen"] and flat is not REPORT["pykeen"]
    assert r.pykeen["both.realistic.hits_at_1"] == 0.25
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="to_df needs pandas"):
            r.to_df()
        return
    df = r.to_df()
    assert list(df.columns) == ["Side", "Type", "Metric", "Value"]
    assert len(df) == len(REPORT["pykeen"])
    row = df[(df.Side == "head") & (df.Metric == "adjusted_arithmetic_mean_rank_index")]
    assert row.Value.item() == 0.125
    assert math.isnan(df[df.Metric == "z_hits_at_10"].Value.item())


def test_pickles_and_copies():
    import copy
    r = pickle.loads(pickle.dumps(Result({"pykeen": {"both.realistic.x": 1.0}})))
    assert isinstance(r, Result) and r.get_metric("x") == 1.0
    c = copy.deepcopy(make())
    assert isinstance(c, Result) and c.metrics.both.mrr == 0.5
    assert np.array_equal(c.outcomes.status, REPORT["outcomes"]["status"])
    v = copy.copy(make().metrics)
    assert v.both.mrr == 0.5
    o = copy.copy(make().outcomes)
    assert len(o) == 3


def test_evaluate_returns_a_result(bundle, shared):
    import proofc
    nations = shared / "data" / "nations"
    with proofc.Evaluator(bundle, nations, device="cpu", threads=2,
                          split="valid", queries=20, corruptions=10,
                          hits=(1, 3, 5, 10)) as ev:
        r = ev.evaluate(shared / "weights" / "nations.safetensors")
        assert isinstance(r, Result) and isinstance(r, dict)
        assert r.metrics.both.mrr == r["metrics"]["both"]["mrr"]
        assert (r.get_metric("both.realistic.inverse_harmonic_mean_rank")
                == r["metrics"]["both"]["mrr"])
        assert r.get_metric("hits_at_5") == r["rank_metrics"]["both"]["realistic"]["hits_at"]["5"]
        # PyKEEN's whole set: 9 x (12 + 4) + 3 x (7 + 2 x 4), and the
        # optimistic and pessimistic AMRI of earlier reports.
        assert len(r.to_flat_dict()) == 189 + 6
        assert r.get_metric("z_inverse_harmonic_mean_rank") is not None
        assert len(r.outcomes) == ev.num_candidates
        assert np.array_equal(r.outcomes.status, r["outcomes"]["status"])
        torch = pytest.importorskip("torch")
        t = ev.evaluate(shared / "weights" / "nations.safetensors", as_torch=True)
        assert isinstance(t.outcomes.logp, torch.Tensor)
        assert str(t.outcomes.logp.device) == ev.device
        assert np.array_equal(t.outcomes.logp.numpy(), r.outcomes.logp)
        assert t.pykeen == r.pykeen


def test_an_evaluation_is_made_into_its_dict_on_first_need(bundle, shared):
    # The metrics, the timings and the outcomes come alone; anything else
    # makes the whole report once, in the report's key order, "outcomes"
    # last, keeping what was handed out; a later evaluation does not change
    # an earlier result.
    import proofc
    nations = shared / "data" / "nations"
    with proofc.Evaluator(bundle, nations, device="cpu", threads=2,
                          split="valid", queries=20, corruptions=10) as ev:
        trained = shared / "weights" / "nations.safetensors"
        r = ev.evaluate(trained)
        metrics, timings = r["metrics"], r.timings.to_dict()
        status = r.outcomes.status
        assert "metrics" in r and "timings" in r and "outcomes" in r
        assert r.get("timings") is timings
        assert not dict.__contains__(r, "pykeen")  # not made yet
        weights = proofc.safetensors.read(str(trained))
        other = ev.evaluate({k: v * 0.5 for k, v in weights.items()})
        assert "pykeen" in other  # made at once, before r's
        assert len(r) == len(r.keys()) and dict.__contains__(r, "pykeen")
        assert r["metrics"] is metrics and r["outcomes"]["status"] is status
        keys = list(r)
        assert keys[-1] == "outcomes" and keys[:-1] == sorted(keys[:-1])
        assert {"pykeen", "rank_metrics", "provenance", "dataset"} <= set(keys)
        again = ev.evaluate(trained)
        assert again.to_flat_dict() == r.to_flat_dict()
        assert again["provenance"]["weights_sha256"] == \
            r["provenance"]["weights_sha256"]
        # json's C encoder sees the whole report too (it takes an empty
        # dict as "{}" without asking for its items).
        fresh = ev.evaluate(trained)
        text = json.dumps(fresh, default=lambda a: a.tolist())
        assert json.loads(text)["pykeen"] == r["pykeen"]
        assert set(fresh) == set(r) and fresh == dict(fresh)
        assert fresh.outcomes.status.tolist() == status.tolist()
