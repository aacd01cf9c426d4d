"""proofc.torch: the §4 Policy module, its state dict as proofc's weights, and
its numerics against the host backend."""

import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cli_helpers import REPO, V10, read_outcomes, run, shared  # noqa: E402
from proofc import safetensors as st  # noqa: E402
from proofc.errors import Error  # noqa: E402
from proofc.program import program  # noqa: E402
from proofc.torch import Policy, greedy_action, load, save  # noqa: E402
from proofc.vocabulary import read_vocabulary  # noqa: E402


def nations():
    return shared("data", "nations")


@pytest.mark.parametrize("A,d,L", [(6, 64, 2), (3, 8, 0), (4, 16, 3)])
def test_state_dict_is_the_spec_table(A, d, L):
    module = Policy(14, 55, A=A, d=d, L=L)
    expected = {"pred_emb": (57, d), "const_emb": (14, d), "var_emb": (2 * A, d),
                "atom.weight": (d, 3 * d), "atom.bias": (d,)}
    for l in range(L):
        expected.update({f"mlp.{l}.weight": (d, d), f"mlp.{l}.bias": (d,),
                         f"mlp.{l}.ln.weight": (d,), f"mlp.{l}.ln.bias": (d,)})
    state = module.state_dict()
    assert {k: tuple(v.shape) for k, v in state.items()} == expected
    assert all(v.dtype == torch.float32 for v in state.values())


@pytest.mark.parametrize("A,d,L,seed", [(6, 64, 2, 0), (4, 16, 3, 11), (2, 8, 0, 5)])
def test_initialisation_is_init_weights(tmp_path, A, d, L, seed):
    """Policy(seed) holds bit for bit what `proofc init-weights --seed` writes
    for the same program and dataset."""
    mlir = tmp_path / "p.mlir"
    mlir.write_text(program(A=A, S=8, D=4, B=4, d=d, L=L, name="p"))
    out = tmp_path / "init.safetensors"
    run("proofc", "init-weights", mlir, "--data", nations(), "--seed", seed, "-o", out)
    theirs = st.read(out)
    ours = Policy.for_dataset(nations(), A=A, d=d, L=L, seed=seed).state_dict()
    assert sorted(theirs) == sorted(ours)
    for name, value in theirs.items():
        np.testing.assert_array_equal(ours[name].numpy(), value, err_msg=name)


def test_saved_module_runs_in_the_cli_as_the_original(tmp_path):
    """The trained nations file, loaded into the module and saved, evaluates
    to the same outcomes; the file carries the weights contract's metadata."""
    original = shared("weights", "nations.safetensors")
    module = load(original, data=nations())
    saved = tmp_path / "saved.safetensors"
    save(module, saved, program_name="v10", data=nations())
    tensors, metadata = st.read_with_metadata(saved)
    assert metadata == st.weights_metadata("v10", nations())
    for name, value in st.read(original).items():
        np.testing.assert_array_equal(tensors[name], value)
    outcomes = []
    for i, weights in enumerate((original, saved)):
        out = tmp_path / f"o{i}.tsv"
        run("proofc", "run", V10, "--data", nations(), "--weights", weights, "--queries", 30,
            "--corruptions", 100, "--device", "cpu", "--outcomes", out)
        outcomes.append(out.read_bytes())
    assert outcomes[0] == outcomes[1]


def _bench_engine():
    """The §3 engine of the PyTorch port (bench/torch), the one the training
    example uses; skipped where the repository's bench/ is not there."""
    if not os.path.isfile(os.path.join(REPO, "bench", "torch", "engine.py")):
        pytest.skip("bench/torch/engine.py not found (not a source tree)")
    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    from bench.torch import data, engine
    return data, engine


def replay(module, data_dir, candidates, A, S, D):
    """Spec §5 for every candidate (h, r, t) with the module's greedy action:
    (status, depth, logp) each."""
    data, engine = _bench_engine()
    ds = data.load_dataset(data_dir)
    shape, tensors = engine.build_engine(ds, A, S, False, "cpu")
    R = ds.num_relations
    c = torch.tensor(candidates, dtype=torch.int64)
    B = c.shape[0]
    G = engine.initial_states(c, tensors.pad_atom, A)
    status = ["truncated"] * B
    depth = torch.zeros(B, dtype=torch.int64)
    logp = torch.zeros(B, dtype=torch.float64)
    live = torch.ones(B, dtype=torch.bool)
    rows = torch.arange(B)
    with torch.no_grad():
        for _ in range(D):
            derived, count = engine.derive(tensors, shape, G, c)
            action, lp = greedy_action(module(G, derived, count), count)
            G = torch.where(live.view(B, 1, 1), derived[rows, action], G)
            depth += live.long()
            logp += torch.where(live, lp.double(), torch.zeros_like(logp))
            for b in torch.nonzero(live & (G[:, 0, 0] >= R)).flatten().tolist():
                status[b] = "proved" if G[b, 0, 0] == R else "failed"
                live[b] = False
            if not live.any():
                break
    return list(zip(status, depth.tolist(), logp.tolist()))


@pytest.mark.parametrize("weights", ["trained", "random"])
def test_greedy_replay_equals_the_host_backend(tmp_path, weights):
    """Every candidate's status and depth, and its log-probability to float32
    tolerance, as `proofc run` (host backend) gives them: the module's encoder,
    scores and action rule are the evaluator's."""
    if weights == "trained":
        module = load(shared("weights", "nations.safetensors"))
        path = shared("weights", "nations.safetensors")
    else:
        module = Policy.for_dataset(nations(), seed=4)
        path = tmp_path / "random.safetensors"
        save(module, path, program_name="v10", data=nations())
    out = tmp_path / "o.tsv"
    run("proofc", "run", V10, "--data", nations(), "--weights", path, "--queries", 20,
        "--corruptions", 100, "--device", "cpu", "--outcomes", out)
    lines = read_outcomes(out)
    vocabulary = read_vocabulary(nations())
    eid = {n: i for i, n in enumerate(vocabulary.entities)}
    rid = {n: i for i, n in enumerate(vocabulary.relations)}
    candidates = []
    for line in lines:
        h, r, t = eid[line["head"]], rid[line["relation"]], eid[line["tail"]]
        e = eid[line["entity"]]
        candidates.append((e, r, t) if line["mode"] == "head" else (h, r, e))
    ours = replay(module, nations(), candidates, A=6, S=120, D=20)
    assert len(ours) == len(lines) > 200
    statuses = {s for s, _, _ in ours}
    assert "proved" in statuses and "failed" in statuses
    for line, (status, depth, logp) in zip(lines, ours):
        assert (status, depth) == (line["status"], int(line["depth"])), line
        assert abs(logp - float(line["logp"])) <= 1e-4 * max(1.0, abs(logp)), line


def test_forward_masks_and_differentiates():
    module = Policy(14, 55, A=3, d=8, L=1, seed=1)
    G = torch.tensor([[[3, 1, 2], [-1, 0, 0], [-1, 0, 0]],
                      [[5, -1, -2], [7, -2, 4], [-1, 0, 0]]])
    derived = torch.stack([torch.stack([G[0], G[1], G[0]]), torch.stack([G[1], G[0], G[1]])])
    derived[0, 2, 0] = torch.tensor([55, 9, 9])  # TRUE (its arguments are ignored)
    count = torch.tensor([3, 1])
    logits = module(G, derived, count)
    assert logits.shape == (2, 3)
    assert torch.isinf(logits[1, 1:]).all() and torch.isfinite(logits[0]).all()
    # TRUE's arguments do not matter; padding atoms do not count.
    other = derived.clone()
    other[0, 2, 0] = torch.tensor([55, 0, 0])
    other[0, 0, 2] = torch.tensor([-1, 13, -5])
    assert torch.equal(module(G, other, count), logits)
    loss = -torch.log_softmax(logits, -1)[0, 1]
    loss.backward()
    assert module.atom.weight.grad is not None and module.mlp[0].ln.weight.grad.abs().sum() > 0
    enc = module.encode(G)
    expected = (enc[:, None, :] * module.encode(derived)).sum(-1) * 8 ** -0.5
    torch.testing.assert_close(logits[0], expected[0])


def test_greedy_action_rule():
    logits = torch.tensor([[1.0, 1.0 + 5e-6, 0.5], [-3.0, 2.0, 2.0], [7.0, 0.0, 0.0]])
    action, logp = greedy_action(logits, torch.tensor([3, 3, 1]))
    assert action.tolist() == [0, 1, 0]
    assert logp[2] == 0
    expected = torch.log_softmax(logits[1], -1)[1]
    torch.testing.assert_close(logp[1], expected)


def test_load_refuses_other_tensors(tmp_path):
    state = {k: v.numpy() for k, v in Policy(4, 3, A=2, d=8, L=1).state_dict().items()}

    def attempt(tensors, **kwargs):
        path = tmp_path / "w.safetensors"
        st.write(path, tensors)
        with pytest.raises(Error) as caught:
            load(path, **kwargs)
        return str(caught.value).replace(f"{path}: ", "")

    assert attempt({k: v for k, v in state.items() if k != "mlp.0.ln.bias"}) == \
        "missing tensor 'mlp.0.ln.bias' (shape [8])"
    assert attempt(dict(state, extra=np.zeros(1, np.float32))) == \
        "unexpected tensor 'extra': not a tensor of the mlp-dot policy"
    assert attempt(dict(state, **{"atom.bias": np.zeros(7, np.float32)})) == \
        "tensor 'atom.bias' has shape [7], expected [8]"
    assert attempt(state, A=3) == "tensor 'var_emb' has shape [4, 8], expected [6, 8]"


def test_dataset_checks(tmp_path):
    module = Policy.for_dataset(nations(), d=8, L=1)
    path = tmp_path / "w.safetensors"
    with pytest.raises(Error, match=r"the module has E = 14, R = 55, but dataset .* has "
                                    r"E = 271, R = 2"):
        save(module, path, data=shared("data", "countries_s3"))
    save(module, path, program_name="p", data=nations())
    assert load(path, data=nations()).d == 8
    tensors, metadata = st.read_with_metadata(path)
    metadata[st.VOCABULARY_KEY] = st.weights_metadata("p", shared("data", "countries_s3"))[
        st.VOCABULARY_KEY]
    st.write(path, tensors, metadata)
    with pytest.raises(Error, match=r"the weights were written for another dataset"):
        load(path, data=nations())


def test_for_evaluator():
    """Sized from an evaluator's expected_tensors() (any object with that method)."""
    class Expecting:
        def __init__(self, shapes):
            self.shapes = shapes

        def expected_tensors(self):
            return {name: (shape, "float32") for name, shape in self.shapes.items()}

    shapes = {k: list(v.shape) for k, v in Policy(14, 55, A=3, d=8, L=1).state_dict().items()}
    module = Policy.for_evaluator(Expecting(shapes), seed=2)
    assert (module.num_entities, module.num_relations, module.A, module.d, module.L) == \
        (14, 55, 3, 8, 1)
    assert {k: list(v.shape) for k, v in module.state_dict().items()} == shapes
    del shapes["mlp.0.ln.weight"]
    with pytest.raises(Error) as caught:
        Policy.for_evaluator(Expecting(shapes))
    assert str(caught.value) == "Policy.for_evaluator: missing tensor 'mlp.0.ln.weight' (shape [8])"


def test_bad_sizes():
    with pytest.raises(Error) as caught:
        Policy(14, 0)
    assert str(caught.value) == "Policy: num_relations must be an integer >= 1, got 0"
    with pytest.raises(Error, match=r"^Policy: d must be an integer >= 1, got 8\.0$"):
        Policy(14, 55, d=8.0)
    assert Policy(np.int64(3), 2, A=np.int32(2), d=4, L=0).A == 2  # numpy integers are sizes
