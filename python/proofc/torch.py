"""The reference `mlp-dot` policy (spec §4) as a torch.nn.Module, and its weights files.

`Policy(E, R, A, d, L)` holds exactly the §4 tensors under their §4 names:
its `state_dict()` keys are pred_emb [R+2, d], const_emb [E, d], var_emb
[2A, d], atom.weight [d, 3d], atom.bias [d] and, for l < L, mlp.{l}.weight
[d, d], mlp.{l}.bias [d], mlp.{l}.ln.weight [d], mlp.{l}.ln.bias [d]; so the
state dict is what `proofc.Evaluator.evaluate` and the CLI take, as it is,
for the program `proofc.program.program(A=A, d=d, L=L, ...)`. Rows of
const_emb / pred_emb follow the dataset's entity / relation ids
(proofc.vocabulary; rows R and R+1 of pred_emb are TRUE and FALSE).

Input encoding (the spec §2 recommended one, also the PyTorch port's,
bench/torch/engine.py): a proof state is an integer tensor [..., N, 3] of N
atoms (pred, arg0, arg1), N <= A any padding included; a constant is its entity
id (>= 0), variable Vk is -k (k = 1..2A); a goal's atoms come first, then
padding atoms whose pred is -1 (their arguments are ignored); the TRUE and
FALSE atoms have pred R and R+1 (arguments ignored: their term vectors are
zero). Any integer dtype; ids outside the tables are an IndexError from torch.

- `encode(states)` -> [..., d]: enc(G) of §4 (the atom linear applied by its
  three column blocks to the embedding tables first, then gathered per atom,
  as proofc's backends fold it: the §4 math in another summation order).
- `log_prob(traj[, steps])` -> [T]: log π(a_t | s_t) of every step (or of
  the listed steps) of a rollouts() batch (docs/rollouts.md) with autograd,
  each distinct state encoded once (`encode_table`: each distinct atom
  embedded once, the sums by embedding_bag).
- `forward(states, derived, count)` -> logits [B, S]: ⟨enc(G), enc(D_i)⟩ ·
  score_scale(d) for the derived states D [B, S, N, 3] of each G [B, N, 3];
  entries i >= count[b] are -inf (`compact=True` encodes only the others),
  so log_softmax(logits) is the policy's distribution over the derived list
  (for imitation or REINFORCE), and `greedy_action` applies the §4 action
  rule the evaluator uses.

`save(module, path, program_name=..., data=...)` writes the state dict with
the weights contract's metadata (proofc.safetensors); `load(path)` builds the
module back (its shape read from the tensors).

A new Policy is initialised exactly as `proofc init-weights --seed SEED` does
for the same program and dataset (runtime/src/data/Weights.cpp):
SplitMix64(seed) drawn in encoder order; embeddings N(0,1)·0.5 (Box-Muller,
cosine branch), matrices Xavier-uniform, biases 0, LayerNorm weights 1.
"""

import math
import numbers
from typing import Dict, Mapping, Optional, Tuple

import numpy as np
import torch

from . import safetensors
from .errors import Error, escape
from .program import LAYER_NORM_EPS, score_scale
from .vocabulary import fingerprint, read_vocabulary

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


# ----------------------------------------------------- init-weights' draws --

def _splitmix64(seed: int, start: int, count: int) -> np.ndarray:
    """Outputs start..start+count-1 of SplitMix64(seed) (uint64): output i
    mixes the state seed + (i+1)·γ, so any range is computed at once."""
    with np.errstate(over="ignore"):
        steps = np.arange(start + 1, start + count + 1, dtype=np.uint64)
        z = np.uint64(seed & _MASK64) + steps * np.uint64(_GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _uniform01(bits: np.ndarray) -> np.ndarray:
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53  # exact


class _Draws:
    """The init-weights stream: values are drawn in order from one
    SplitMix64; each tensor's values row-major."""

    def __init__(self, seed: int):
        self.seed, self.used = seed, 0

    def _take(self, count: int) -> np.ndarray:
        out = _splitmix64(self.seed, self.used, count)
        self.used += count
        return out

    def embedding(self, shape) -> np.ndarray:
        n = int(np.prod(shape))
        u = _uniform01(self._take(2 * n))
        # libm's log/cos through Python's math module, the functions the C++
        # code calls, so every value is bitwise init-weights'.
        values = [0.5 * (math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2))
                  for u1, u2 in zip(u[0::2].tolist(), u[1::2].tolist())]
        return np.asarray(values, dtype=np.float64).astype(np.float32).reshape(shape)

    def xavier(self, shape) -> np.ndarray:
        out_features, in_features = shape
        bound = math.sqrt(6.0 / float(out_features + in_features))
        u = _uniform01(self._take(out_features * in_features))
        return ((2.0 * u - 1.0) * bound).astype(np.float32).reshape(shape)


# ------------------------------------------------------------- the module --

class _MlpLayer(torch.nn.Linear):
    """mlp.{l}: weight, bias and ln (LayerNorm), so the keys are mlp.{l}.weight,
    mlp.{l}.bias, mlp.{l}.ln.weight, mlp.{l}.ln.bias."""

    def __init__(self, d: int):
        super().__init__(d, d)
        self.ln = torch.nn.LayerNorm(d, eps=LAYER_NORM_EPS)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.ln(super().forward(h)))


class Policy(torch.nn.Module):
    """The spec §4 policy for a dataset of E entities and R relations, states
    of at most A atoms, width d, L MLP layers (see the module comment),
    initialised as `proofc init-weights --seed SEED` (seed None: zeros, for
    load_state_dict)."""

    def __init__(self, num_entities: int, num_relations: int, A: int = 6, d: int = 64,
                 L: int = 2, seed: Optional[int] = 0):
        super().__init__()
        sizes = []
        for name, value, low in (("num_entities", num_entities, 1),
                                 ("num_relations", num_relations, 1),
                                 ("A", A, 1), ("d", d, 1), ("L", L, 0)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
                raise Error(f"Policy: {name} must be an integer >= {low}, "
                            f"got {escape(repr(value))}")
            sizes.append(int(value))
        num_entities, num_relations, A, d, L = sizes
        self.num_entities, self.num_relations = num_entities, num_relations
        self.A, self.d, self.L = A, d, L
        self.scale = score_scale(d)
        self.pred_emb = torch.nn.Parameter(torch.empty(num_relations + 2, d))
        self.const_emb = torch.nn.Parameter(torch.empty(num_entities, d))
        self.var_emb = torch.nn.Parameter(torch.empty(2 * A, d))
        self.atom = torch.nn.Linear(3 * d, d)
        self.mlp = torch.nn.ModuleList(_MlpLayer(d) for _ in range(L))
        if seed is None:  # to be loaded: skip the draws
            with torch.no_grad():
                for parameter in self.parameters():
                    parameter.zero_()
        else:
            self.reset_parameters(seed)

    @classmethod
    def for_dataset(cls, data_dir: str, A: int = 6, d: int = 64, L: int = 2,
                    seed: int = 0) -> "Policy":
        """A Policy sized for the dataset in `data_dir` (its E and R)."""
        vocabulary = read_vocabulary(data_dir)
        return cls(len(vocabulary.entities), len(vocabulary.relations), A, d, L, seed)

    @classmethod
    def for_evaluator(cls, evaluator, seed: int = 0) -> "Policy":
        """A Policy of the shapes a proofc.Evaluator expects (its program and
        dataset: evaluator.expected_tensors()), so that its state_dict()
        evaluates there as it is."""
        shapes = {name: tuple(shape) for name, (shape, _) in
                  evaluator.expected_tensors().items()}
        E, R, A, d, L = _policy_shape(shapes, "Policy.for_evaluator")
        return cls(E, R, A, d, L, seed)

    @torch.no_grad()
    def reset_parameters(self, seed: int = 0):
        """The weights `proofc init-weights --seed SEED` writes for this shape."""
        draws = _Draws(seed)
        t = lambda array: torch.from_numpy(array)
        self.pred_emb.copy_(t(draws.embedding(tuple(self.pred_emb.shape))))
        self.const_emb.copy_(t(draws.embedding(tuple(self.const_emb.shape))))
        self.var_emb.copy_(t(draws.embedding(tuple(self.var_emb.shape))))
        self.atom.weight.copy_(t(draws.xavier(tuple(self.atom.weight.shape))))
        self.atom.bias.zero_()
        for layer in self.mlp:
            layer.weight.copy_(t(draws.xavier(tuple(layer.weight.shape))))
            layer.bias.zero_()
            layer.ln.weight.fill_(1.0)
            layer.ln.bias.zero_()

    def extra_repr(self) -> str:
        return (f"E={self.num_entities}, R={self.num_relations}, A={self.A}, d={self.d}, "
                f"L={self.L}")

    def _atom_vectors(self, atoms: torch.Tensor) -> torch.Tensor:
        """relu(atom.weight · [pred; term(a); term(b)] + atom.bias) of atoms
        [..., 3] (pred >= 0: no padding atoms) -> [..., d]."""
        p, a, b = atoms[..., 0], atoms[..., 1], atoms[..., 2]
        E, R = self.num_entities, self.num_relations
        has_args = p < R
        zero = self.const_emb.new_zeros(1, self.d)
        terms = torch.cat((self.const_emb, self.var_emb, zero), dim=0)
        zero_row = E + 2 * self.A

        def term_row(x):  # constant c -> c, Vk (= -k) -> E + k - 1, none -> zero row
            row = torch.where(x >= 0, x, E - 1 - x)
            return torch.where(has_args, row, torch.full_like(row, zero_row))

        # atom.weight · [pred; term(a); term(b)] + atom.bias, by its three
        # column blocks applied to the tables first (linearity: the same
        # math in another summation order, as proofc's backends fold it), so
        # an atom costs three row gathers instead of a [d, 3d] product.
        w = self.atom.weight
        d = self.d
        pred_proj = torch.nn.functional.linear(self.pred_emb, w[:, :d], self.atom.bias)
        arg0_proj = torch.nn.functional.linear(terms, w[:, d:2 * d])
        arg1_proj = torch.nn.functional.linear(terms, w[:, 2 * d:])
        return torch.relu(pred_proj[p] + arg0_proj[term_row(a)] + arg1_proj[term_row(b)])

    def _mlp(self, h: torch.Tensor) -> torch.Tensor:
        for layer in self.mlp:
            h = layer(h)
        return h

    def encode(self, states: torch.Tensor) -> torch.Tensor:
        """enc(G) for states [..., N, 3] (the input encoding above) -> [..., d]."""
        states = states.long()
        real = states[..., 0] >= 0
        # Padding atoms take pred 0 here and are masked out of the sum.
        safe = torch.where(real.unsqueeze(-1), states, torch.zeros_like(states))
        atoms = self._atom_vectors(safe)
        h = (atoms * real.unsqueeze(-1).to(atoms.dtype)).sum(-2)
        return self._mlp(h)

    def encode_table(self, states: torch.Tensor) -> torch.Tensor:
        """enc(G) of a table of states [U, N, 3] -> [U, d], as encode() (to
        rounding: the atoms are summed in another order), with each distinct
        atom of the table embedded once and the sums taken by embedding_bag,
        so that no [U, N, d] tensor is made: for the large tables of
        rollouts (Policy.log_prob)."""
        states = states.long()
        U, N = states.shape[0], states.shape[1]
        flat = states.reshape(-1, 3)
        real = flat[:, 0] >= 0
        # One int64 key per atom (pred, then its terms shifted to >= 0), so
        # that the distinct atoms are a 1-D unique (a sort), not a row-wise
        # one; the keys decode back to the atoms.
        base, shift = self.num_entities + 2 * self.A + 1, 2 * self.A
        real_atoms = flat[real]
        keys = (real_atoms[:, 0] * base + real_atoms[:, 1] + shift) * base + \
            real_atoms[:, 2] + shift
        unique, inverse = torch.unique(keys, return_inverse=True)
        atoms = torch.stack((unique // (base * base), (unique // base) % base - shift,
                             unique % base - shift), dim=-1)
        vectors = self._atom_vectors(atoms)                              # [V, d]
        V = atoms.shape[0]
        rows = torch.full((U * N,), V, dtype=torch.long, device=states.device)
        rows[real] = inverse
        table = torch.cat((vectors, vectors.new_zeros(1, self.d)), dim=0)
        h = torch.nn.functional.embedding_bag(rows.view(U, N), table, mode="sum",
                                              padding_idx=V)
        return self._mlp(h)

    def forward(self, states: torch.Tensor, derived: torch.Tensor,
                count: Optional[torch.Tensor] = None, compact: bool = False) -> torch.Tensor:
        """Logits [B, S] over the derived lists: states [B, N, 3], derived
        [B, S, N, 3], count [B] (the length of each list; None: all S);
        entries past count are -inf. `compact` (needs count) encodes only the
        states within count: less work and memory when the lists are short,
        the same logits, but a data-dependent shape (eager mode; not for
        CUDA graphs)."""
        enc_g = self.encode(states)                            # [B, d]
        if count is None:
            if compact:
                raise Error("Policy.forward: compact=True needs count")
            enc_d = self.encode(derived)                       # [B, S, d]
            return (enc_d * enc_g.unsqueeze(-2)).sum(-1) * self.scale
        S = derived.shape[-3]
        valid = torch.arange(S, device=derived.device) < count.unsqueeze(-1)
        if compact:
            enc_d = enc_g.new_zeros(derived.shape[:-2] + (self.d,))
            enc_d = enc_d.index_put((valid,), self.encode(derived[valid]))
        else:
            enc_d = self.encode(derived)
        logits = (enc_d * enc_g.unsqueeze(-2)).sum(-1) * self.scale
        return logits.masked_fill(~valid, float("-inf"))

    def log_prob(self, traj, temperature: Optional[float] = None,
                 steps: Optional[torch.Tensor] = None) -> torch.Tensor:
        """log π(a_t | s_t) of every step of rollouts `traj` (a
        proofc.rollouts.Trajectories, docs/rollouts.md) with autograd: [T].

        The state table is encoded once ([U, d], encode_table); each step's logits are
        ⟨enc(s_t), enc(D_i)⟩ · score_scale over its first step_count
        entries (the others -inf), divided by the temperature (default: the
        call's when it sampled, 1 when greedy), log-softmaxed, and gathered
        at step_action: what the engine computed as step_logp (to spec §7's
        tolerance; the engine divides and normalizes in double).

        `steps` (int64 [T'], optional): only those steps, in that order
        ([T'] out), and only the table rows they name are encoded: for a
        learner whose loss weighs most steps by zero (a REINFORCE update's
        episodes without advantage, steps with one derived state), which
        then encodes a fraction of the table."""
        if temperature is None:
            temperature = traj.temperature if getattr(traj, "sampled", True) else 1.0
        if not (temperature > 0 and math.isfinite(temperature)):
            raise Error(f"Policy.log_prob: temperature must be positive and "
                        f"finite, got {temperature!r}")
        device = self.pred_emb.device
        states = torch.as_tensor(traj.states, device=device)
        derived = torch.as_tensor(traj.step_derived, device=device).long()  # [T, S]
        parent_rows = torch.as_tensor(traj.step_state, device=device).long()
        action = torch.as_tensor(traj.step_action, device=device).long()
        if steps is not None:
            steps = torch.as_tensor(steps, device=device).long()
            derived, parent_rows, action = derived[steps], parent_rows[steps], action[steps]
            # The rows these steps name, encoded once each: `rows` ascending,
            # every reference renumbered into it (-1 entries stay -1).
            named = derived >= 0
            rows, inverse = torch.unique(torch.cat((parent_rows, derived[named])),
                                         return_inverse=True)
            states = states[rows]
            parent_rows = inverse[:parent_rows.shape[0]]
            derived = derived.masked_scatter(named, inverse[parent_rows.shape[0]:])
        enc = self.encode_table(states)                               # [U, d]
        valid = derived >= 0
        # Only the listed entries are scored: Σ count rows, not T · S.
        step, entry = valid.nonzero(as_tuple=True)
        scores = (enc[parent_rows[step]] * enc[derived[step, entry]]).sum(-1) * self.scale
        logits = enc.new_full(derived.shape, float("-inf"))
        logits = logits.index_put((step, entry), scores / temperature)
        logp = torch.log_softmax(logits, dim=-1)
        return logp.gather(-1, action.unsqueeze(-1)).squeeze(-1)


def greedy_action(logits: torch.Tensor, count: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """The §4 action rule for logits [B, S] with count [B] valid entries (the
    rest -inf, as forward() gives them): the smallest i with logit_i >= m −
    1e-5·max(1, |m|), m the largest; and its log-probability (0 when count is
    1). Returns (action [B] int64, logp [B])."""
    S = logits.shape[-1]
    ks = torch.arange(S, device=logits.device)
    valid = ks < count.unsqueeze(-1)
    m = logits.masked_fill(~valid, float("-inf")).amax(-1, keepdim=True)
    near = valid & (logits >= m - 1e-5 * torch.clamp(m.abs(), min=1.0))
    action = torch.where(near, ks, torch.full_like(ks, S)).amin(-1)
    logp = torch.log_softmax(logits.masked_fill(~valid, float("-inf")), dim=-1)
    chosen = logp.gather(-1, action.clamp(max=S - 1).unsqueeze(-1)).squeeze(-1)
    return action, torch.where(count == 1, torch.zeros_like(chosen), chosen)


# ------------------------------------------------------------ weights files --

def _tensor_shapes(E: int, R: int, A: int, d: int, L: int) -> Dict[str, Tuple[int, ...]]:
    shapes = {"pred_emb": (R + 2, d), "const_emb": (E, d), "var_emb": (2 * A, d),
              "atom.weight": (d, 3 * d), "atom.bias": (d,)}
    for l in range(L):
        shapes.update({f"mlp.{l}.weight": (d, d), f"mlp.{l}.bias": (d,),
                       f"mlp.{l}.ln.weight": (d,), f"mlp.{l}.ln.bias": (d,)})
    return shapes


def save(module: Policy, path, program_name: str = "mlp_dot",
         data: Optional[str] = None):
    """Writes module.state_dict() to `path` (float32 safetensors) with the
    weights contract's "__metadata__": the program name and, when `data`
    (the dataset directory) is given, its vocabulary fingerprint; the module's
    E and R must then be the dataset's."""
    metadata = {"format": "pt", safetensors.PROGRAM_KEY: program_name}
    if data is not None:
        vocabulary = read_vocabulary(data)
        E, R = len(vocabulary.entities), len(vocabulary.relations)
        if (module.num_entities, module.num_relations) != (E, R):
            raise Error(f"{path}: the module has E = {module.num_entities}, R = "
                        f"{module.num_relations}, but dataset {data} has E = {E}, R = {R}")
        metadata = safetensors.weights_metadata(program_name, data)
    safetensors.write(path, module.state_dict(), metadata)


def _policy_shape(shapes: Mapping[str, Tuple[int, ...]], where: str,
                  A: Optional[int] = None) -> Tuple[int, int, int, int, int]:
    """(E, R, A, d, L) of a §4 tensor set given by name -> shape; E, R and d
    follow from the embedding tables, A from var_emb (2A rows) unless given,
    L from the mlp.{l}.weight present. Missing, misshapen or unexpected
    tensors are errors naming the tensor, prefixed by `where`."""
    for name in ("pred_emb", "const_emb", "var_emb"):
        if name not in shapes:
            raise Error(f"{where}: missing tensor '{name}'")
        if len(shapes[name]) != 2:
            raise Error(f"{where}: tensor '{name}' has shape {list(shapes[name])}, "
                        f"expected 2 dimensions")
    R = shapes["pred_emb"][0] - 2
    E, d = shapes["const_emb"]
    rows = shapes["var_emb"][0]
    if A is None:
        if rows % 2:
            raise Error(f"{where}: tensor 'var_emb' has {rows} rows, expected 2A")
        A = rows // 2
    L = 0
    while f"mlp.{L}.weight" in shapes:
        L += 1
    if R < 1 or E < 1 or d < 1 or A < 1:
        raise Error(f"{where}: tensors 'pred_emb' {list(shapes['pred_emb'])}, 'const_emb' "
                    f"{list(shapes['const_emb'])}, 'var_emb' {list(shapes['var_emb'])} give "
                    f"no policy (E, R, d, A >= 1)")
    expected = _tensor_shapes(E, R, A, d, L)
    for name, shape in expected.items():
        if name not in shapes:
            raise Error(f"{where}: missing tensor '{name}' (shape {list(shape)})")
        if tuple(shapes[name]) != shape:
            raise Error(f"{where}: tensor '{name}' has shape {list(shapes[name])}, "
                        f"expected {list(shape)}")
    for name in shapes:
        if name not in expected:
            raise Error(f"{where}: unexpected tensor '{escape(name)}': not a tensor of the "
                        f"mlp-dot policy")
    return E, R, A, d, L


def load(path, A: Optional[int] = None, data: Optional[str] = None) -> Policy:
    """A Policy holding the tensors of a weights file (its shape from
    _policy_shape). With `data`, a "proofc.vocabulary" in the file must
    match that dataset, as proofc checks it."""
    path = str(path)
    tensors, metadata = safetensors.read_with_metadata(path)
    E, R, A, d, L = _policy_shape({k: v.shape for k, v in tensors.items()}, path, A)
    if data is not None and safetensors.VOCABULARY_KEY in metadata:
        mine = fingerprint(read_vocabulary(data))
        theirs = metadata[safetensors.VOCABULARY_KEY]
        if theirs != mine:
            raise Error(f"{path}: the weights were written for another dataset: the file's "
                        f"{safetensors.VOCABULARY_KEY} is {escape(theirs)}, but dataset "
                        f"{data} has {mine} (other entity or relation names: the embedding "
                        f"rows would belong to other names)")
    module = Policy(E, R, A, d, L, seed=None)
    module.load_state_dict({name: torch.from_numpy(array) for name, array in tensors.items()})
    return module
