"""proofc.train and `proofc train`: the recipe's rules on hand-made inputs, the
checkpoint schedule and choice, the command line's errors, and a short CPU
run (determinism: two runs with one seed write the same file and log)."""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cli_helpers import REPO, V10, binary, cli_error, shared  # noqa: E402
from proofc.errors import Error  # noqa: E402
from proofc.training import recipe  # noqa: E402
from proofc.training.checkpoints import (Schedule, ScoredWeights, best_index,  # noqa: E402
                                         early_points, update_points, weights_digest)
from proofc.training.options import TrainOptions  # noqa: E402
from proofc.training.trainer import TIMINGS  # noqa: E402
from proofc.vocabulary import read_split, read_vocabulary  # noqa: E402

PROVED, FAILED, TRUNCATED = 0, 1, 2


# ------------------------------------------------------ rewards, baseline --

def test_rewards():
    status = torch.tensor([PROVED, PROVED, FAILED, TRUNCATED, PROVED, FAILED])
    depth = torch.tensor([3, 1, 20, 20, 7, 2])
    positive = torch.tensor([True, False, True, True, True, False])
    got = recipe.rewards(status, depth, positive)
    assert got.dtype == torch.float32
    assert torch.allclose(got, torch.tensor([0.97, -0.5, 0.0, 0.0, 0.93, 0.0]))


def test_advantages_are_reward_minus_the_other_episodes_mean():
    # Two triples of 4 episodes each, interleaved to check the grouping is by
    # triple index and not by position.
    reward = torch.tensor([1.0, 0.0, 0.5, 0.0, 0.0, -0.5, 0.9, 0.0])
    triple = torch.tensor([0, 1, 0, 1, 0, 1, 0, 1])
    got = recipe.advantages(reward, triple)
    expected = []
    for i in range(8):
        others = [reward[j].item() for j in range(8) if triple[j] == triple[i] and j != i]
        expected.append(reward[i].item() - sum(others) / len(others))
    assert torch.allclose(got, torch.tensor(expected))
    # Equal rewards: no advantage.
    assert torch.equal(recipe.advantages(torch.full((4,), 0.8), torch.zeros(4, dtype=torch.long)),
                       torch.zeros(4))


def test_advantage_of_a_lone_episode_is_its_reward():
    got = recipe.advantages(torch.tensor([0.9, -0.5]), torch.tensor([0, 1]))
    assert torch.equal(got, torch.tensor([0.9, -0.5]))


def test_reinforce_loss_and_its_gradient():
    # Three episodes; steps of episode 0 (two), 1 (none), 2 (one).
    logp = torch.tensor([-0.5, -1.0, -2.0], requires_grad=True)
    step_episode = torch.tensor([0, 0, 2])
    advantage = torch.tensor([0.6, -0.3, -0.2])
    loss = recipe.reinforce_loss(logp, step_episode, advantage, episodes=3)
    assert loss.item() == pytest.approx(-(0.6 * (-1.5) + (-0.2) * (-2.0)) / 3)
    loss.backward()
    assert torch.allclose(logp.grad, torch.tensor([-0.2, -0.2, 0.2 / 3]))


# -------------------------------------------------- the corruption draws --

def _triples(data):
    vocabulary = read_vocabulary(data)
    return recipe.TrainTriples.from_names(read_split(data, "train"), vocabulary.entities,
                                          vocabulary.relations)


def test_weighted_steps_are_those_with_advantage_and_a_choice():
    advantage = torch.tensor([0.0, 0.5, -0.25])
    step_episode = torch.tensor([0, 0, 1, 1, 1, 2, 2], dtype=torch.int32)
    step_count = torch.tensor([3, 2, 1, 4, 2, 5, 1], dtype=torch.int32)
    steps = recipe.weighted_steps(advantage, step_episode, step_count)
    assert steps.tolist() == [3, 4, 5]
    assert steps.dtype == torch.int64


def test_corruptions_are_never_train_triples():
    triples = _triples(shared("data", "countries_s1"))
    rng = np.random.default_rng(0)
    for _ in range(20):
        positives, corruptions = triples.draw(rng, 256)
        assert triples.contains(positives).all()
        assert not triples.contains(corruptions).any()
        # One side changed, the relation kept.
        same_head = corruptions[:, 0] == positives[:, 0]
        same_tail = corruptions[:, 2] == positives[:, 2]
        assert (corruptions[:, 1] == positives[:, 1]).all()
        assert (same_head | same_tail).all() and not (same_head & same_tail).any()


def test_draws_are_a_function_of_the_seed():
    triples = _triples(shared("data", "nations"))
    a = triples.draw(np.random.default_rng(7), 100)
    b = triples.draw(np.random.default_rng(7), 100)
    c = triples.draw(np.random.default_rng(8), 100)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[1], c[1])


def test_train_triples_are_deduplicated_in_file_order():
    triples = recipe.TrainTriples(np.array([[1, 0, 2], [0, 0, 1], [1, 0, 2]]), 3, 1)
    assert triples.triples.tolist() == [[1, 0, 2], [0, 0, 1]]


def test_corruption_of_a_nearly_full_relation():
    """E = 3, relation 0 holds every pair but (2, 0, 2): the only corruption
    of (2, 0, 0) and (0, 0, 2) outside train is (2, 0, 2), found by the
    rejection rounds or by the enumeration after them."""
    full = [[h, 0, t] for h in range(3) for t in range(3) if (h, t) != (2, 2)]
    triples = recipe.TrainTriples(np.array(full), 3, 1)
    rng = np.random.default_rng(0)
    got = triples.corruptions(np.array([[2, 0, 0], [0, 0, 2]] * 50), rng)
    assert (got == [2, 0, 2]).all()
    with pytest.raises(Error, match="no corruption outside train.tsv"):
        triples.corruptions(np.array([[0, 0, 0]]), rng)


# ------------------------------------------------------------ checkpoints --

def test_update_points():
    assert update_points(100, 4) == [20, 40, 60, 80, 100]
    assert update_points(10, 6) == [2, 3, 5, 6, 8, 9, 10]
    assert update_points(2, 6) == [1, 2]
    assert update_points(7, 0) == [7]
    assert update_points(100, 4, early=True) == \
        [1, 2, 3, 4, 6, 8, 11, 16, 20, 23, 32, 40, 45, 60, 64, 80, 91, 100]


def test_early_points_are_a_sqrt2_series():
    assert early_points(200) == [1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128, 181]
    assert early_points(count=5) == [1, 2, 3, 4, 6]
    # Scoring stays a bounded share: about 2 log2(N) checkpoints for N updates.
    assert len(early_points(12689)) <= 2 * math.log2(12689) + 1


def test_schedule_by_updates_and_by_time():
    by_updates = Schedule(10, None, 4, early=False)
    due = [u for u in range(1, 11) if by_updates.due(u, 0.0, last=(u == 10))]
    assert due == [2, 4, 6, 8, 10]
    with_early = Schedule(10, None, 4)
    due = [u for u in range(1, 11) if with_early.due(u, 0.0, last=(u == 10))]
    assert due == [1, 2, 3, 4, 6, 8, 10]
    by_time = Schedule(None, 10.0, 4, early=False)  # marks at 2, 4, 6, 8 s
    seconds = [0.5, 1.9, 2.1, 2.5, 7.0, 7.5, 8.2, 9.9, 10.1]
    due = [i for i, s in enumerate(seconds, 1) if by_time.due(i, s, last=(s >= 10))]
    assert due == [3, 5, 7, 9]  # 2.1 s; 7.0 s (past 4 and 6: once); 8.2 s; the end
    by_time = Schedule(None, 10.0, 4)  # and after the updates 1, 2, 3, 4, 6, 8
    due = [i for i, s in enumerate(seconds, 1) if by_time.due(i, s, last=(s >= 10))]
    assert due == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_best_checkpoint_is_the_largest_mrr_first_of_ties():
    assert best_index([0.3, 0.5, 0.2]) == 1
    assert best_index([0.3, 0.5, 0.5, 0.1]) == 1
    assert best_index([0.4]) == 0


def test_weights_digest_is_the_names_dtypes_shapes_and_values():
    w = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, np.float32)}
    same = {"b": np.ones(4, np.float32), "a": np.arange(6, dtype=np.float32).reshape(2, 3)}
    assert weights_digest(w) == weights_digest(same)  # the dict's order does not count
    one_ulp = dict(w, b=np.nextafter(w["b"], np.float32(2)))
    renamed = {"c": w["a"], "b": w["b"]}
    reshaped = dict(w, a=w["a"].reshape(3, 2))  # the same bytes
    retyped = dict(w, b=w["b"].view(np.int32))  # the same bytes
    moved = {"a": w["a"].ravel()[:5], "b": np.concatenate([w["a"].ravel()[5:], w["b"]])}
    digests = {weights_digest(x) for x in (w, one_ulp, renamed, reshaped, retyped, moved)}
    assert len(digests) == 6
    # A Fortran-ordered copy holds the same values: the same digest.
    assert weights_digest(dict(w, a=np.asfortranarray(w["a"]))) == weights_digest(w)


def test_scored_weights_keep_the_first_checkpoint_of_each_digest():
    scored = ScoredWeights()
    assert scored.find(b"x") is None
    scored.add(b"x", "il:init", 0.25)
    scored.add(b"x", "rl:init", 0.25)
    scored.add(b"y", "il:rl1", 0.5)
    assert scored.find(b"x") == ("il:init", 0.25)
    assert scored.find(b"y") == ("il:rl1", 0.5)


@pytest.mark.parametrize("kwargs,message", [
    ({}, "--updates N and/or --budget"),
    ({"updates": 0}, "--updates = 0 must be >= 1"),
    ({"updates": 2.5}, "--updates must be an integer"),
    ({"budget": float("nan")}, "--budget = nan must be a finite number > 0"),
    ({"updates": 1, "lr": -1.0}, "--lr = -1.0 must be a finite number > 0"),
    ({"updates": 1, "episodes": 0}, "--episodes = 0 must be >= 1"),
    ({"updates": 1, "seed": -1}, r"--seed = -1 must be in \[0, "),
    ({"updates": 1, "checkpoints": -2}, "--checkpoints = -2 must be >= 0"),
    ({"updates": 1, "triples_per_update": 0}, "--triples-per-update = 0 must be >= 1"),
    ({"updates": 1, "variant": "ppo"}, "--variant must be il, rl or both"),
    ({"updates": 1, "imitation_steps": -1}, "--imitation-steps = -1 must be >= 0"),
    ({"updates": 1, "imitation_batch": 0}, "--imitation-batch = 0 must be >= 1"),
])
def test_bad_numbers(kwargs, message):
    with pytest.raises(Error, match=message):
        TrainOptions(**kwargs).check()


def test_device_defaults():
    cpu = TrainOptions(updates=1).check().resolve("cpu")
    gpu = TrainOptions(updates=1).check().resolve("cuda:0")
    assert (cpu.triples_per_update, cpu.checkpoints, cpu.imitation_batch) == (64, 6, 256)
    assert (gpu.triples_per_update, gpu.checkpoints, gpu.imitation_batch) == (512, 4, 2048)


def test_variants_and_their_budgets():
    both = TrainOptions(budget=120.0).check()
    assert both.variants() == ("il", "rl") and both.variant_budget() == 60.0
    assert both.imitation_count() is None  # 20 % of the variant's budget
    rl = TrainOptions(updates=7, variant="rl").check()
    assert rl.variants() == ("rl",) and rl.variant_budget() is None
    assert TrainOptions(updates=7).check().imitation_count() == 7
    assert TrainOptions(updates=7, imitation_steps=3).check().imitation_count() == 3


# ------------------------------------------------------- the command line --

def _train_cli(*args):
    return subprocess.run([binary("proofc"), "train", *map(str, args)], capture_output=True,
                          text=True)


def test_cli_help_and_usage_errors():
    result = _train_cli("--help")
    assert result.returncode == 0 and "--triples-per-update" in result.stdout
    assert "required" in cli_error(_train_cli())
    assert "unrecognized arguments: --bogus" in cli_error(
        _train_cli(V10, "--data", "x", "-o", "y", "--bogus"))
    assert "invalid int value: 'ten'" in cli_error(
        _train_cli(V10, "--data", "x", "-o", "y", "--updates", "ten"))


def test_cli_bad_inputs_write_nothing(tmp_path):
    nations = shared("data", "nations")
    out = tmp_path / "w.safetensors"
    assert cli_error(_train_cli(V10, "--data", tmp_path / "none", "-o", out, "--updates", "1")) \
        == f"--data {tmp_path / 'none'}: not a directory"
    assert "no train.tsv there" in cli_error(
        _train_cli(V10, "--data", tmp_path, "-o", out, "--updates", "1"))
    assert "does not exist" in cli_error(
        _train_cli(V10, "--data", nations, "-o", tmp_path / "no" / "w.safetensors",
                   "--updates", "1"))
    assert "--updates = 0 must be >= 1" in cli_error(
        _train_cli(V10, "--data", nations, "-o", out, "--updates", "0"))
    assert "cannot read" in cli_error(
        _train_cli(tmp_path / "missing.mlir", "--data", nations, "-o", out, "--updates", "1"))
    # Weights of another dataset as --init: refused before any update.
    other = shared("weights", "countries_s1.safetensors")
    assert cli_error(_train_cli(V10, "--data", nations, "-o", out, "--updates", "1",
                                "--init", other, "--device", "cpu")) == \
        f"--init {other}: tensor 'const_emb' has shape [271, 64], but @v10 on {nations} " \
        f"needs [14, 64]"
    assert not out.exists() and os.listdir(tmp_path) == []


def test_cli_without_python_says_so():
    result = subprocess.run([binary("proofc"), "train", "--help"], capture_output=True,
                            text=True, env={**os.environ, "PROOFC_PYTHON": "/nonexistent/py"})
    assert "cannot run the Python interpreter '/nonexistent/py'" in cli_error(result)


def test_module_without_torch_says_so(tmp_path):
    # A torch that cannot be imported, first on the path.
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('no torch here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-m", "proofc.training", V10, "--data",
                             shared("data", "nations"), "-o", tmp_path / "w.safetensors",
                             "--updates", "1"], capture_output=True, text=True, env=env)
    assert "the learner needs PyTorch" in cli_error(result)


# ------------------------------------------------------- a short CPU run --

def _without_timings(log):
    out = json.loads(json.dumps(log))
    for key in ("seconds", "train_seconds", "eval_seconds", "output"):
        out.pop(key, None)
    for checkpoint in out["checkpoints"]:
        checkpoint.pop("seconds")
        checkpoint.pop("train_seconds")
    for variant in out["variants"]:
        variant.pop("train_seconds")
        assert set(variant.pop("timings")) == set(TIMINGS)
        variant.get("search", {}).pop("seconds", None)
    return out


def test_training_is_a_function_of_the_seed(tmp_path):
    import proofc
    data = shared("data", "countries_s1")
    runs = []
    for name in ("a", "b"):
        out, log = tmp_path / f"{name}.safetensors", tmp_path / f"{name}.json"
        result = proofc.train(V10, data, out, updates=3, seed=5, device="cpu",
                              triples_per_update=8, checkpoints=1, valid_queries=8,
                              log=log, progress=False, variant="rl")
        runs.append((out.read_bytes(), json.loads(log.read_text()), result))
    (bytes_a, log_a, result_a), (bytes_b, log_b, _) = runs
    assert bytes_a == bytes_b
    assert _without_timings(log_a) == _without_timings(log_b)
    # The log: update 0, the early series (1, 2, 3), the evenly spaced point
    # (2), the end; one chosen, the best (the first of equal MRRs); the file
    # holds it, with the metadata.
    assert [c["update"] for c in log_a["checkpoints"]] == [0, 1, 2, 3]
    assert [c["name"] for c in log_a["checkpoints"]] == ["rl:init", "rl:rl1", "rl:rl2", "rl:rl3"]
    assert log_a["episodes"] == 3 * 2 * 8 * 4
    mrrs = [c["valid_mrr"] for c in log_a["checkpoints"]]
    chosen = [c["chosen"] for c in log_a["checkpoints"]]
    assert chosen.count(True) == 1 and chosen.index(True) == mrrs.index(max(mrrs))
    assert result_a.valid_mrr == max(mrrs)
    from proofc import safetensors
    tensors, metadata = safetensors.read_with_metadata(str(tmp_path / "a.safetensors"))
    assert metadata == safetensors.weights_metadata("v10", data)
    assert all(np.array_equal(tensors[k], v.numpy()) for k, v in result_a.weights.items())
    # The chosen weights evaluate to the logged MRR.
    ev = proofc.Evaluator(V10, data, split="valid", queries=8, corruptions=100, seed=0,
                          device="cpu")
    assert ev.evaluate(str(tmp_path / "a.safetensors"))["metrics"]["both"]["mrr"] == \
        pytest.approx(result_a.valid_mrr, abs=0)


def test_cli_writes_what_python_writes(tmp_path):
    """`proofc train` (the driver, which runs python -m proofc.training) and
    proofc.train with the same options write the same file."""
    import proofc
    data = shared("data", "nations")
    options = dict(updates=2, seed=3, device="cpu", triples_per_update=4, checkpoints=1,
                   valid_queries=10, variant="rl")
    proofc.train(V10, data, tmp_path / "py.safetensors", progress=False, **options)
    result = _train_cli(V10, "--data", data, "-o", tmp_path / "cli.safetensors",
                        "--updates", 2, "--seed", 3, "--device", "cpu",
                        "--triples-per-update", 4, "--checkpoints", 1, "--valid-queries", 10,
                        "--variant", "rl", "--log", tmp_path / "cli.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"wrote {tmp_path / 'cli.safetensors'}: checkpoint rl:")
    # stderr is no terminal here: one line per checkpoint (0, 1, 2).
    assert result.stderr.count("proofc train: ") == 3, result.stderr
    assert (tmp_path / "cli.safetensors").read_bytes() == \
        (tmp_path / "py.safetensors").read_bytes()
    log = json.loads((tmp_path / "cli.json").read_text())
    assert [c["update"] for c in log["checkpoints"]] == [0, 1, 2]
    assert log["valid_queries"] == 10 and log["options"]["triples_per_update"] == 4


def test_weights_already_scored_are_not_scored_again(tmp_path, monkeypatch):
    """Both variants start from the same weights, and REINFORCE updates that
    prove nothing leave them as they were: such checkpoints take the
    earlier score (same_weights_as) and the evaluator runs once per distinct
    weights."""
    import proofc
    from proofc import _evaluator
    calls = []
    evaluate = _evaluator.Evaluator.evaluate

    def counted(self, weights, *args, **kwargs):
        calls.append(1)
        return evaluate(self, weights, *args, **kwargs)

    monkeypatch.setattr(_evaluator.Evaluator, "evaluate", counted)
    data = shared("data", "countries_s3")
    result = proofc.train(V10, data, tmp_path / "w.safetensors", updates=2, seed=0,
                          device="cpu", triples_per_update=2, episodes=1, checkpoints=0,
                          valid_queries=4, imitation_steps=1, progress=False, variant="both")
    entries = result.log["checkpoints"]
    by_name = {c["name"]: c for c in entries}
    assert [c["name"] for c in entries] == ["il:init", "il:imitation", "il:rl1", "il:rl2",
                                            "rl:init", "rl:rl1", "rl:rl2"]
    assert by_name["il:init"]["same_weights_as"] is None
    assert by_name["il:imitation"]["same_weights_as"] is None  # imitation moved them
    assert by_name["rl:init"]["same_weights_as"] == "il:init"
    reused = [c for c in entries if c["same_weights_as"] is not None]
    assert len(calls) == len(entries) - len(reused)
    for c in reused:
        source = by_name[c["same_weights_as"]]
        assert source["same_weights_as"] is None and source["valid_mrr"] == c["valid_mrr"]
    # REINFORCE from the initial weights on kinship proves nothing in 2 updates.
    assert by_name["rl:rl2"]["same_weights_as"] == "il:init"
