"""Variant il of proofc.train: Evaluator.derive (the engine's step on any
state) equals the derived lists rollouts record; the shortest-proof search
finds a shortest proof on a hand-made knowledge base; imitation lowers its
loss; `variant="il"` with counts is a function of the seed."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import proofc  # noqa: E402
from cli_helpers import V10  # noqa: E402
from proofc.torch import Policy  # noqa: E402
from cli_helpers import shared as shared_path  # noqa: E402
from proofc.training import search  # noqa: E402
from proofc.training.imitation import Imitation  # noqa: E402
from proofc.training.recipe import TrainTriples  # noqa: E402
from proofc.vocabulary import read_split  # noqa: E402


@pytest.fixture(scope="module")
def kinship_ev(bundle, shared):
    with proofc.Evaluator(bundle, shared / "data" / "kinship", split="test", queries=4,
                          corruptions=8, seed=2, device="cpu", threads=2) as ev:
        yield ev


def test_derive_equals_the_rollouts_derived_lists(kinship_ev, shared):
    ev = kinship_ev
    c, q = ev.candidates, ev.queries
    triples = q[c["query"]].copy()
    head = c["mode"] == 0
    triples[head, 0] = c["entity"][head]
    triples[~head, 2] = c["entity"][~head]
    weights = shared / "weights" / "kinship.safetensors"
    for sampled in (False, True):
        traj = ev.rollouts(weights, triples, c["positive"], episodes=2, sampled=sampled, seed=7)
        states = traj.states.numpy()
        step_triple = triples[traj.triple.numpy()[traj.step_episode.numpy()]]
        out = ev.derive(states[traj.step_state.numpy()], step_triple)
        count = traj.step_count.numpy()
        np.testing.assert_array_equal(out["count"], count)
        derived = traj.step_derived.numpy()
        expected = np.concatenate([states[derived[i, :count[i]]] for i in range(len(count))])
        np.testing.assert_array_equal(out["states"], expected)
        assert count.max() > 1 and len(count) > 100


def test_derive_of_terminals_and_bad_states(kinship_ev):
    ev = kinship_ev
    A, R = ev.program["A"], len(ev.relations)
    states = np.zeros((2, A, 3), dtype=np.int32)
    states[:, 1:, 0] = -1
    states[0, 0] = (R, 0, 0)
    states[1, 0] = (R + 1, 0, 0)
    out = ev.derive(states, np.zeros((2, 3), dtype=np.int32))
    assert out["count"].tolist() == [0, 0] and out["states"].shape == (0, A, 3)
    bad = search.start_states(np.array([[0, 0, 1]]), A)
    bad[0, 0] = (0, -2, 1)  # V2 before V1: not canonical
    with pytest.raises(proofc.Error, match="not canonical"):
        ev.derive(bad, np.array([[0, 0, 1]]))
    with pytest.raises(proofc.Error, match="outside the dataset"):
        ev.derive(search.start_states(np.array([[0, 0, 1]]), A), np.array([[0, R, 1]]))


# A knowledge base with one train triple r(a, c) that has a 3-step proof by
# the first rule (the distractor) and a 2-step one by the second, and one,
# r(d, e), with none (its own fact is never used).
TINY_TRAIN = "a\tq\tb\nb\tq\tc\na\tr\tc\na\tp\tc\nd\tr\te\n"
TINY_RULES = "r(X,Y) :- q(X,Z), q(Z,Y).\nr(X,Y) :- p(X,Y).\n"


@pytest.fixture(scope="module")
def tiny(bundle, tmp_path_factory):
    data = tmp_path_factory.mktemp("tiny")
    (data / "train.tsv").write_text(TINY_TRAIN)
    (data / "valid.tsv").write_text("a\tr\tc\n")
    (data / "test.tsv").write_text("a\tr\tc\n")
    (data / "rules.txt").write_text(TINY_RULES)
    with proofc.Evaluator(bundle, data, split="valid", corruptions=2, device="cpu") as ev:
        yield ev


def test_search_finds_a_shortest_proof(tiny):
    ev = tiny
    e = {name: i for i, name in enumerate(ev.entities)}
    r = {name: i for i, name in enumerate(ev.relations)}
    triples = np.array([[e["a"], r["r"], e["c"]], [e["d"], r["r"], e["e"]],
                        [e["a"], r["q"], e["b"]]], dtype=np.int32)
    proofs = search.search(ev, triples, seed=0)
    assert proofs.paths[1] is None and proofs.paths[2] is None and proofs.found == 1
    # The 2-step proof: the second rule's state [p(a, c)], then TRUE.
    start = search.start_states(triples[:1], ev.program["A"])
    first = ev.derive(start, triples[:1])
    assert first["count"][0] == 2  # the distractor's state and [p(a, c)]
    to_p = [i for i in range(2) if first["states"][i, 0, 0] == r["p"]]
    assert proofs.paths[0] == [to_p[0], 0]
    steps = search.proof_steps(ev, triples, proofs)
    # Only the first step has a choice (the second's list is [TRUE]).
    assert len(steps) == 1 and steps.step_count.tolist() == [2]
    assert steps.step_action.tolist() == to_p and steps.step_triple.tolist() == [0]
    np.testing.assert_array_equal(steps.states[steps.step_state[0]], start[0])
    then = ev.derive(first["states"][to_p], triples[:1])
    assert then["count"][0] == 1 and then["states"][0, 0, 0] == len(ev.relations)  # [TRUE]


def test_search_respects_the_depth_bound(tiny):
    ev = tiny
    e = {name: i for i, name in enumerate(ev.entities)}
    r = {name: i for i, name in enumerate(ev.relations)}
    triple = np.array([[e["a"], r["r"], e["c"]]], dtype=np.int32)
    assert search.search(ev, triple, max_depth=1).paths == [None]
    assert len(search.search(ev, triple, max_depth=2).paths[0]) == 2
    # One state per level: the fewest atoms first keeps [p(a, c)], not the
    # distractor's two goals.
    assert len(search.search(ev, triple, keep=1).paths[0]) == 2


@pytest.mark.parametrize("data,first,count,keep", [
    ("kinship", 0, 200, 4), ("kinship", 0, 120, 64), ("countries_s3", 0, 300, 2),
    ("family", 6140, 60, 64)])
def test_search_finds_the_reference_searchs_proofs(shared, data, first, count, keep):
    """The runtime's ProofSearch, driven by search.search, finds the proofs
    the numpy search it replaced finds (search_reference.py: whole levels,
    np.unique), whatever the pieces: one, or of 1, 2 and 10 triples; the
    replayed steps are the same too. `keep` small enough that ties are
    drawn: another seed finds other paths. Family's 60 triples from 6,140
    derive a state their triple kept a level before at the last depth its
    goal atoms allow: ProofSearch drops a kept key only once no later level
    can collect its state, and a key dropped one level early (tried: the
    rule off by one) changes these paths, none of the others'."""
    import search_reference
    path = shared / "data" / data
    with proofc.Evaluator(V10, path, split="valid", queries=4, corruptions=4,
                          device="cpu", threads=2) as ev:
        triples = TrainTriples.from_names(read_split(str(path), "train"), ev.entities,
                                          ev.relations).triples[first:first + count]
        reference = search_reference.search(ev, triples, seed=3, keep=keep)
        reference_steps = search.proof_steps(ev, triples, reference, piece_states=1 << 62)
        assert reference.found > 20 and reference.levels > 2
        if keep < 64:
            assert search_reference.search(ev, triples, seed=4, keep=keep).paths != \
                reference.paths
        for piece_states in (1 << 62, keep, 2 * keep + 1, 10 * keep):
            found = search.search(ev, triples, seed=3, keep=keep, piece_states=piece_states)
            assert found.paths == reference.paths and found.levels == reference.levels
            steps = search.proof_steps(ev, triples, found, piece_states=piece_states)
            for name in ("states", "step_state", "step_derived", "step_count", "step_action",
                         "step_triple"):
                np.testing.assert_array_equal(getattr(steps, name),
                                              getattr(reference_steps, name))


def test_search_from_two_threads_takes_turns(shared):
    """expand() runs without the GIL: two threads expanding one search at
    once take turns (the binding's mutex), so each call collects what one
    call alone does, and the search then goes on to the proofs of an
    undisturbed one. Without the turn they clear and fill the same level
    under each other."""
    import threading
    path = shared / "data" / "kinship"
    with proofc.Evaluator(V10, path, split="valid", queries=4, corruptions=4,
                          device="cpu", threads=2) as ev:
        triples = TrainTriples.from_names(read_split(str(path), "train"), ev.entities,
                                          ev.relations).triples[:200]
        expected = search.search(ev, triples, seed=3, keep=64)
        run = ev.proof_search(triples, keep=64, max_depth=6, piece_states=1 << 62)
        assert run.next_level() and run.pieces == 1
        alone = run.expand(0)
        counts, errors = [], []

        def expand_many():
            try:
                counts.extend(run.expand(0) for _ in range(20))
            except Exception as e:  # pragma: no cover - what the test reports
                errors.append(e)
        threads = [threading.Thread(target=expand_many) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and counts == [alone] * 40
        rng = np.random.default_rng(3)
        run.select(0, rng.random(alone))
        while run.next_level():
            run.select(0, rng.random(run.expand(0)))
        assert run.paths() == expected.paths


def test_search_bad_bounds_and_triples(tiny):
    ev = tiny
    triple = np.array([[0, 0, 1]], dtype=np.int32)
    for kwargs, message in [({"keep": 0}, "keep = 0 must be at least 1"),
                            ({"max_depth": -1}, "max_depth = -1 must be at least 0"),
                            ({"piece_states": 0}, "piece_states = 0 must be at least 1")]:
        with pytest.raises(proofc.Error, match=message):
            search.search(ev, triple, **kwargs)
    with pytest.raises(proofc.Error, match=r"triple 1 \(0, 99, 1\) is outside the dataset"):
        search.search(ev, np.array([[0, 0, 1], [0, 99, 1]]))
    with pytest.raises(TypeError, match=r"triples: expected an integer array \[N, 3\]"):
        ev.proof_search(np.zeros((2, 2), np.int32), keep=1, max_depth=1, piece_states=1)
    run = ev.proof_search(triple, keep=1, max_depth=2, piece_states=1)
    assert run.next_level()
    with pytest.raises(proofc.Error, match=r"select\(0\) must follow expand\(0\)"):
        run.select(0, np.zeros(0))
    n = run.expand(0)
    with pytest.raises(proofc.Error, match=f"{n + 1} ties for {n} collected states"):
        run.select(0, np.zeros(n + 1))
    assert search.search(ev, np.zeros((0, 3), np.int32)).paths == []


def test_imitation_lowers_the_loss(shared):
    data = shared / "data" / "countries_s1"
    with proofc.Evaluator(V10, data, split="valid", queries=4, corruptions=4,
                          device="cpu", threads=2) as ev:
        triples = TrainTriples.from_names(read_split(str(data), "train"), ev.entities,
                                          ev.relations)
        subset = triples.triples[:200]
        proofs = search.search(ev, subset, seed=0)
        steps = search.proof_steps(ev, subset, proofs)
        assert proofs.found > 10 and len(steps) > 10
        imitation = Imitation(steps, "cpu")
        policy = Policy.for_evaluator(ev, seed=0)
        fixed = imitation.batch(np.random.default_rng(1), 128)
        before = float(Imitation.loss(policy, fixed))
        optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
        rng = np.random.default_rng(0)
        for _ in range(30):
            optimizer.zero_grad()
            Imitation.loss(policy, imitation.batch(rng, 64)).backward()
            optimizer.step()
        after = float(Imitation.loss(policy, fixed))
        assert after < 0.7 * before, (before, after)


def test_variant_il_with_counts_is_a_function_of_the_seed(tmp_path):
    data = shared_path("data", "countries_s1")
    runs = []
    for name in ("a", "b"):
        out, log = tmp_path / f"{name}.safetensors", tmp_path / f"{name}.json"
        proofc.train(V10, data, out, updates=2, imitation_steps=3, imitation_batch=32,
                     variant="il", seed=4, device="cpu", triples_per_update=8, checkpoints=1,
                     valid_queries=8, log=log, progress=False)
        runs.append((out.read_bytes(), json.loads(log.read_text())))
    (bytes_a, log_a), (bytes_b, log_b) = runs
    assert bytes_a == bytes_b
    strip = lambda log: [{k: v for k, v in c.items() if k not in ("seconds", "train_seconds")}
                         for c in log["checkpoints"]]
    assert strip(log_a) == strip(log_b)
    assert [c["name"] for c in log_a["checkpoints"]] == \
        ["il:init", "il:imitation", "il:rl1", "il:rl2"]
    (variant,) = log_a["variants"]
    assert variant["imitation"]["steps"] == 3 and variant["search"]["proofs"] > 0
    # Its timings but scoring are disjoint parts of its training seconds,
    # which they add up to (each rounded to the millisecond).
    parts = sum(t for k, t in variant["timings"].items() if k != "scoring")
    assert parts == pytest.approx(variant["train_seconds"], abs=0.005)
