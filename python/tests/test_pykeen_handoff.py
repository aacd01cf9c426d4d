"""The report's `pykeen` block against PyKEEN's definitions, from the outcomes TSV.

PyKEEN is not installed here, so `reference_metrics` re-implements its
rank-based metrics in numpy the way pykeen.metrics.ranking (1.11) computes
them -- np.median, exp(mean(log)), the MAD scaled by 1/Phi^-1(3/4), the
geometric mean's expectation through a log-cumulative-sum-exp and
`stable_product`, harmonic variances from cumulative sums, the affine
ReindexedMetric / ZMetric / ExpectationNormalizedMetric maps -- a different
computation from proofc's C++ one (runtime/src/outputs/PykeenMetrics.cpp).
The inputs are what docs/report-schema.md's PyKEEN hand-off uses: the TSV's
finite `score` column, ranked as PyKEEN's `Ranks.from_scores` ranks (its
candidates counted as the finite scores), which must give the TSV's own rank
columns and `list_size`.
"""
import json
import math
import subprocess

import numpy as np
import pytest

EPSILON = 1.0e-12
HITS = (1, 3, 5, 10)


def read_lists(path):
    """{(query, mode): (scores float64 [n], the line's rank columns, list_size)}."""
    lines = path.read_text().splitlines()
    assert lines[0] == "#proofc-outcomes 3"
    header = lines[1].split("\t")
    assert header[-2:] == ["score", "list_size"]
    lists = {}
    for line in lines[2:]:
        f = dict(zip(header, line.split("\t")))
        key = (int(f["query"]), f["mode"])
        ranks = (float(f["optimistic_rank"]), float(f["pessimistic_rank"]),
                 float(f["realistic_rank"]), int(f["list_size"]))
        scores, first = lists.setdefault(key, ([], ranks))
        assert ranks == first, "a list's lines repeat its ranks and size"
        scores.append(float(f["score"]))
    return {k: (np.array(s), r) for k, (s, r) in lists.items()}


def from_scores(scores):
    """PyKEEN's Ranks.from_scores for one list whose positive is first."""
    true = scores[0]
    optimistic = (scores > true).sum() + 1
    pessimistic = (scores >= true).sum()
    return optimistic, pessimistic, 0.5 * (optimistic + pessimistic), np.isfinite(scores).sum()


def safe_divide(x, y):
    return x / (math.copysign(1.0, y) * max(abs(y), EPSILON))


def reference_metrics(ranks, n, realistic):
    """pykeen.metrics.ranking's values (unweighted) for ranks, num_candidates n."""
    ranks = np.asarray(ranks, dtype=float)
    n = np.asarray(n)
    m = ranks.size
    median = np.median(ranks)
    out = {
        "count": float(m),
        "arithmetic_mean_rank": ranks.mean(),
        "geometric_mean_rank": np.exp(np.log(ranks).mean()),
        "harmonic_mean_rank": m / np.reciprocal(ranks).sum(),
        "median_rank": median,
        "inverse_arithmetic_mean_rank": 1 / ranks.mean(),
        "inverse_geometric_mean_rank": 1 / np.exp(np.log(ranks).mean()),
        "inverse_harmonic_mean_rank": np.reciprocal(ranks).sum() / m,
        "inverse_median_rank": 1 / median,
        "median_absolute_deviation": np.median(np.abs(ranks - median)) / 0.6744897501960817,
        "standard_deviation": ranks.std(),
        "variance": ranks.var(),
    }
    for k in HITS:
        out[f"hits_at_{k}"] = np.less_equal(ranks, k).mean()
    if not realistic:
        return out

    def reindexed(value, e):
        scale = safe_divide(1.0, 1.0 - e)
        return None if abs(1.0 - e) < EPSILON else scale * value - scale * e

    def z(value, e, v, increasing):
        std = math.sqrt(v) if v > 0 else 0.0
        if std < EPSILON:
            return None
        scale = safe_divide(1.0, std) * (1 if increasing else -1)
        return scale * value - scale * e

    # ArithmeticMeanRank
    e_mr = np.average(0.5 * (n + 1))
    v_mr = ((n ** 2 - 1) / 12.0).mean() / m
    mr = out["arithmetic_mean_rank"]
    out["adjusted_arithmetic_mean_rank"] = safe_divide(1, e_mr) * mr
    out["adjusted_arithmetic_mean_rank_index"] = reindexed(mr, e_mr)
    out["z_arithmetic_mean_rank"] = z(mr, e_mr, v_mr, False)
    # InverseHarmonicMeanRank: generalized_harmonic_numbers, harmonic_variances
    top = int(n.max())
    j = np.arange(1, top + 1, dtype=float)
    h, h2 = np.cumsum(j ** -1.0), np.cumsum(j ** -2.0)
    e_mrr = np.average((h / j)[n - 1])
    v_mrr = np.maximum((j * h2 - h ** 2) / j ** 2, 0.0)[n - 1].mean() / m
    mrr = out["inverse_harmonic_mean_rank"]
    out["adjusted_inverse_harmonic_mean_rank"] = reindexed(mrr, e_mrr)
    out["z_inverse_harmonic_mean_rank"] = z(mrr, e_mrr, v_mrr, True)
    # GeometricMeanRank: _log_individual_expectation_no_weight, stable_product

    def log_individual(factor):
        x = np.logaddexp.accumulate(factor * np.log(j) / m)
        return x[n - 1] - np.log(n)

    log_e = log_individual(1.0)
    e_gmr = np.exp(log_e.sum())
    ie = np.exp(log_e)
    iv = np.exp(log_individual(2.0)) - ie ** 2
    a = iv + ie ** 2
    v_gmr = np.prod(np.sign(a)) * np.exp(np.log(np.abs(a)).sum()) - np.exp(np.log(ie).sum()) ** 2
    gmr = out["geometric_mean_rank"]
    out["adjusted_geometric_mean_rank_index"] = reindexed(gmr, e_gmr)
    out["z_geometric_mean_rank"] = z(gmr, e_gmr, v_gmr, False)
    # HitsAtK
    for k in HITS:
        p = np.minimum(k / n.astype(float), 1.0)
        e, v = p.mean(), (p * (1 - p)).mean() / m
        out[f"adjusted_hits_at_{k}"] = reindexed(out[f"hits_at_{k}"], e)
        out[f"z_hits_at_{k}"] = z(out[f"hits_at_{k}"], e, v, True)
    return out


@pytest.mark.parametrize("dataset,corruptions", [("nations", None), ("kinship", 50)])
def test_pykeen_block_equals_pykeens_definitions(dataset, corruptions, bundle, shared,
                                                 proofc_run, tmp_path):
    report_path, tsv = tmp_path / "report.json", tmp_path / "outcomes.tsv"
    args = [str(proofc_run), str(bundle), "--data", str(shared / "data" / dataset),
            "--weights", str(shared / "weights" / f"{dataset}.safetensors"),
            "--split", "test", "--queries", "40", "--threads", "2", "--quiet",
            "--hits", ",".join(map(str, HITS)),
            "--report", str(report_path), "--outcomes", str(tsv)]
    if corruptions is not None:
        args += ["--corruptions", str(corruptions)]
    subprocess.run(args, check=True, capture_output=True)
    block = json.loads(report_path.read_text())["pykeen"]

    lists = read_lists(tsv)
    per_side = {side: {t: [] for t in ("optimistic", "pessimistic", "realistic", "n")}
                for side in ("head", "tail", "both")}
    for (query, mode), (scores, (opt, pess, real, size)) in lists.items():
        assert np.isfinite(scores).all(), "the score column is finite"
        got = from_scores(scores)
        assert got == (opt, pess, real, size), (query, mode)
        for side in (mode, "both"):
            for t, v in zip(("optimistic", "pessimistic", "realistic", "n"), got):
                per_side[side][t].append(v)

    expected = {}
    for side, cols in per_side.items():
        n = np.array(cols["n"], dtype=np.int64)
        for t in ("optimistic", "pessimistic", "realistic"):
            for key, value in reference_metrics(cols[t], n, t == "realistic").items():
                expected[f"{side}.{t}.{key}"] = value
    # PyKEEN's 189 keys; the report adds the optimistic and pessimistic AMRI.
    assert len(expected) == 189
    extra = set(block) - set(expected)
    assert extra == {f"{s}.{t}.adjusted_arithmetic_mean_rank_index"
                     for s in ("head", "tail", "both") for t in ("optimistic", "pessimistic")}
    for key, value in expected.items():
        assert key in block, key
        if value is None:
            assert block[key] is None, key
        else:
            assert block[key] == pytest.approx(float(value), rel=1e-9, abs=1e-12), key
    # A trap-free hand-off gives sensible adjusted values (docs/report-schema.md).
    assert -1 <= block["both.realistic.adjusted_arithmetic_mean_rank_index"] <= 1
