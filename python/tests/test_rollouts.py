"""Evaluator.rollouts (docs/rollouts.md) on the host backend: greedy
rollouts reproduce evaluate()'s outcomes, Policy.log_prob recomputes the
engine's step log-probabilities with autograd (spec §7's tolerance), and
the trajectories are a function of (seed, episode_base)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import proofc  # noqa: E402
from proofc.torch import load  # noqa: E402
from proofc.training import recipe  # noqa: E402


@pytest.fixture(scope="module")
def kinship(shared):
    return shared / "data" / "kinship"


@pytest.fixture(scope="module")
def evaluator(bundle, kinship):
    with proofc.Evaluator(bundle, kinship, split="test", queries=4,
                          corruptions=8, seed=2, device="cpu",
                          threads=2) as ev:
        yield ev


@pytest.fixture(scope="module")
def weights(shared):
    return shared / "weights" / "kinship.safetensors"


def candidate_triples(ev):
    """Every candidate of the evaluator as (head, relation, tail), and
    whether it is its query's positive."""
    c, q = ev.candidates, ev.queries
    triples = q[c["query"]].copy()
    head = c["mode"] == 0
    triples[head, 0] = c["entity"][head]
    triples[~head, 2] = c["entity"][~head]
    return triples, c["positive"]


def test_greedy_rollouts_equal_the_evaluators_outcomes(evaluator, weights):
    triples, positive = candidate_triples(evaluator)
    traj = evaluator.rollouts(weights, triples, positive, episodes=2,
                              sampled=False)
    outcomes = evaluator.evaluate(weights).outcomes
    for name in ("status", "depth", "logp"):
        ours = traj.tensors()[name].numpy()[::2]
        np.testing.assert_array_equal(ours, np.asarray(outcomes[name]).astype(ours.dtype),
                                      err_msg=name)
        np.testing.assert_array_equal(traj.tensors()[name].numpy()[1::2], ours)
    assert (traj.status.numpy() == 0).any()
    assert traj.positive.numpy().tolist() == np.repeat(positive, 2).astype(np.uint8).tolist()
    assert traj.triple.numpy().tolist() == np.repeat(np.arange(len(triples)), 2).tolist()


@pytest.mark.parametrize("temperature", [1.0, 0.6])
def test_learner_log_probs_equal_the_engines(evaluator, weights, kinship, temperature):
    triples, positive = candidate_triples(evaluator)
    traj = evaluator.rollouts(weights, triples, positive, episodes=3, seed=5,
                              temperature=temperature)
    assert traj.steps == int(traj.depth.sum())
    assert (traj.step_count > 1).sum() > 10  # real choices were made
    policy = load(weights, data=str(kinship))
    logp = policy.log_prob(traj)
    assert logp.shape == (traj.steps,)
    torch.testing.assert_close(logp.detach(), traj.step_logp, atol=1e-4, rtol=1e-4)
    # Per episode: the engine's sum.
    per_episode = torch.zeros(traj.episodes, dtype=torch.float64).index_add_(
        0, traj.step_episode.long(), logp.detach().double())
    torch.testing.assert_close(per_episode.float(), traj.logp, atol=1e-3, rtol=1e-4)
    # The table's encoding (distinct atoms, embedding_bag) is encode()'s.
    with torch.no_grad():
        torch.testing.assert_close(policy.encode_table(traj.states),
                                   policy.encode(traj.states), atol=1e-5, rtol=1e-5)
    # Autograd reaches the weights.
    logp.sum().backward()
    assert policy.const_emb.grad is not None and policy.const_emb.grad.abs().sum() > 0


def test_learner_log_probs_of_listed_steps(evaluator, weights, kinship):
    """log_prob(steps=...) encodes only the rows those steps name and gives
    the full call's values there, and the REINFORCE gradient over the
    weighted steps is the full loss's (recipe.weighted_steps)."""
    triples, positive = candidate_triples(evaluator)
    traj = evaluator.rollouts(weights, triples, positive, episodes=4, seed=9)
    policy = load(weights, data=str(kinship))
    full = policy.log_prob(traj)
    steps = torch.arange(traj.steps - 1, -1, -3)  # descending, every third
    some = policy.log_prob(traj, steps=steps)
    torch.testing.assert_close(some, full[steps], atol=1e-5, rtol=1e-5)
    # A loss with zero advantages on about half the episodes.
    advantage = torch.linspace(-1.0, 1.0, traj.episodes)
    advantage[::2] = 0.0
    policy.zero_grad(set_to_none=True)
    recipe.reinforce_loss(policy.log_prob(traj), traj.step_episode, advantage,
                          traj.episodes).backward()
    expected = {n: p.grad.clone() for n, p in policy.named_parameters()}
    weighted = recipe.weighted_steps(advantage, traj.step_episode, traj.step_count)
    assert 0 < weighted.numel() < traj.steps
    policy.zero_grad(set_to_none=True)
    recipe.reinforce_loss(policy.log_prob(traj, steps=weighted), traj.step_episode[weighted],
                          advantage, traj.episodes).backward()
    for name, param in policy.named_parameters():
        torch.testing.assert_close(param.grad, expected[name], atol=1e-5, rtol=1e-4, msg=name)


def test_same_seed_and_base_give_the_same_trajectories(evaluator, weights):
    triples, positive = candidate_triples(evaluator)
    kw = dict(episodes=4, seed=11, episode_base=100)
    a = evaluator.rollouts(weights, triples, positive, **kw)
    b = evaluator.rollouts(weights, torch.from_numpy(triples), positive, **kw)
    for name, tensor in a.tensors().items():
        assert torch.equal(tensor, b.tensors()[name]), name
    c = evaluator.rollouts(weights, triples, positive, episodes=4, seed=11,
                           episode_base=100 + 4 * len(triples))
    assert not all(torch.equal(t, c.tensors()[n]) for n, t in a.tensors().items())
    d = evaluator.rollouts(weights, triples, positive, episodes=4, seed=12,
                           episode_base=100)
    assert not torch.equal(a.step_action, d.step_action) or not torch.equal(a.depth, d.depth)


def test_state_table_is_the_torch_encoding(evaluator, weights):
    triples, positive = candidate_triples(evaluator)
    traj = evaluator.rollouts(weights, triples[:3], positive[:3], episodes=1)
    A, S = evaluator.program["A"], evaluator.program["S"]
    assert traj.states.shape == (traj.num_states, A, 3)
    assert traj.step_derived.shape == (traj.steps, S)
    first = (torch.cumsum(traj.depth, 0) - traj.depth).long()
    starts = traj.states[traj.step_state[first].long()].numpy()
    np.testing.assert_array_equal(starts[:, 0], triples[:3][:, [1, 0, 2]])
    assert (starts[:, 1:, 0] == -1).all()  # padding atoms
    R = len(evaluator.relations)
    last = (torch.cumsum(traj.depth, 0) - 1).long()
    final = traj.step_derived[last].gather(1, traj.step_action[last].long().unsqueeze(1))
    preds = traj.states[final.squeeze(1).long(), 0, 0]
    assert ((traj.status == 0) == (preds == R)).all()
    assert ((traj.status == 1) == (preds == R + 1)).all()


def test_bad_requests_are_errors(evaluator, weights):
    triples, positive = candidate_triples(evaluator)
    with pytest.raises(ValueError, match="triples"):
        evaluator.rollouts(weights, triples[:, :2], positive)
    with pytest.raises(ValueError, match="positive"):
        evaluator.rollouts(weights, triples, positive[:-1])
    with pytest.raises(ValueError, match="temperature"):
        evaluator.rollouts(weights, triples, positive, temperature=0.0)
    with pytest.raises(ValueError, match="episodes"):
        evaluator.rollouts(weights, triples, positive, episodes=0)
    bad = triples.copy()
    bad[0, 0] = 10**6
    with pytest.raises(proofc.Error, match="out of range"):
        evaluator.rollouts(weights, bad, positive)


def test_a_greedy_only_program_refuses_sampled_rollouts(tmp_path, kinship, weights):
    """eval.select {modes = ["greedy"]}: evaluation and greedy rollouts
    run, sampled ones are refused (docs/sampling.md)."""
    import subprocess
    from conftest import BIN, ROOT
    compiler = BIN / "proofc"
    if not compiler.exists():
        pytest.skip(f"{compiler} is not built")
    text = (ROOT / "examples" / "v10.mlir").read_text()
    edited = text.replace("eval.select %logits, %d :",
                          'eval.select %logits, %d {modes = ["greedy"]} :')
    assert edited != text
    source = tmp_path / "greedy.mlir"
    source.write_text(edited)
    out = tmp_path / "greedy.pcb"
    subprocess.run([str(compiler), "compile", str(source), "-o", str(out)],
                   check=True, capture_output=True)
    with proofc.Evaluator(out, kinship, split="test", queries=1,
                          corruptions=2, device="cpu", threads=1) as ev:
        triples, positive = candidate_triples(ev)
        greedy = ev.rollouts(weights, triples, positive, episodes=1, sampled=False)
        assert greedy.episodes == len(triples)
        with pytest.raises(proofc.Error, match="greedily only"):
            ev.rollouts(weights, triples, positive)
