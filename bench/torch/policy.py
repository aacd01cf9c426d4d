"""The spec §4 `mlp-dot` policy, the §4 action rule and log-probability.

atom.weight [d, 3d] is folded once into per-part tables (same math, another
summation order): atom(p, a, b) = relu(Ppred[p] + Parg0[a] + Parg1[b] + bias)
with Ppred = pred_emb · W[:, :d]ᵀ and Parg0/Parg1 over one term table that
holds the constants, then the variables V1..V2A, then a zero row used for
the missing arguments of TRUE/FALSE (and padding).
"""

import json
import math
import struct
from typing import Dict, List, NamedTuple

import numpy as np
import torch

from .engine import PAD_PRED


class WeightsError(Exception):
    """A weights file that does not fit the §4 table; names file and tensor."""


def read_safetensors(path: str) -> Dict[str, np.ndarray]:
    """float32 tensors of a safetensors file (the format is small enough that
    numpy reads it directly)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise WeightsError(f"{path}: file shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise WeightsError(f"{path}: header length {n} runs past the end of the file")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WeightsError(f"{path}: header is not JSON ({e})") from None
    payload = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info.get("dtype") != "F32":
            raise WeightsError(f"{path}: tensor '{name}' has dtype {info.get('dtype')}, expected F32")
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        if not 0 <= begin <= end <= len(payload) or end - begin != 4 * int(np.prod(shape, dtype=np.int64)):
            raise WeightsError(f"{path}: tensor '{name}' has data offsets [{begin}, {end}) that do not "
                               f"match its shape {list(shape)} inside the {len(payload)}-byte payload")
        out[name] = np.frombuffer(payload[begin:end], dtype="<f4").reshape(shape).copy()
    return out


class PolicyTensors(NamedTuple):
    pred_proj: torch.Tensor   # [R+2, d]
    arg0_proj: torch.Tensor   # [E+2A+1, d]
    arg1_proj: torch.Tensor   # [E+2A+1, d]
    atom_bias: torch.Tensor   # [d]
    mlp_w: List[torch.Tensor]  # L x [d, d]
    mlp_b: List[torch.Tensor]
    ln_w: List[torch.Tensor]
    ln_b: List[torch.Tensor]


def load_policy(path: str, E: int, R: int, A: int, device) -> PolicyTensors:
    w = read_safetensors(path)
    if "pred_emb" not in w:
        raise WeightsError(f"{path}: missing tensor 'pred_emb'")
    d = w["pred_emb"].shape[1] if w["pred_emb"].ndim == 2 else -1
    L = 0
    while f"mlp.{L}.weight" in w:
        L += 1
    expected = {"pred_emb": (R + 2, d), "const_emb": (E, d), "var_emb": (2 * A, d),
                "atom.weight": (d, 3 * d), "atom.bias": (d,)}
    for l in range(L):
        expected.update({f"mlp.{l}.weight": (d, d), f"mlp.{l}.bias": (d,),
                         f"mlp.{l}.ln.weight": (d,), f"mlp.{l}.ln.bias": (d,)})
    for name, shape in expected.items():
        if name not in w:
            raise WeightsError(f"{path}: missing tensor '{name}'")
        if tuple(w[name].shape) != shape:
            raise WeightsError(f"{path}: tensor '{name}' has shape {list(w[name].shape)}, "
                               f"expected {list(shape)}")
    for name in w:
        if name not in expected:
            raise WeightsError(f"{path}: unexpected tensor '{name}' (not part of the mlp-dot policy)")

    f64 = lambda name: w[name].astype(np.float64)
    aw = f64("atom.weight")
    terms = np.concatenate([f64("const_emb"), f64("var_emb"), np.zeros((1, d))], axis=0)
    t = lambda x: torch.as_tensor(np.ascontiguousarray(x, dtype=np.float32), device=device)
    return PolicyTensors(
        pred_proj=t(f64("pred_emb") @ aw[:, :d].T),
        arg0_proj=t(terms @ aw[:, d:2 * d].T),
        arg1_proj=t(terms @ aw[:, 2 * d:].T),
        atom_bias=t(w["atom.bias"]),
        mlp_w=[t(w[f"mlp.{l}.weight"]) for l in range(L)],
        mlp_b=[t(w[f"mlp.{l}.bias"]) for l in range(L)],
        ln_w=[t(w[f"mlp.{l}.ln.weight"]) for l in range(L)],
        ln_b=[t(w[f"mlp.{l}.ln.bias"]) for l in range(L)])


def encode(pol: PolicyTensors, states: torch.Tensor, E: int, R: int, A: int) -> torch.Tensor:
    """enc(G) of §4 for states [..., A, 3] -> [..., d]."""
    p, a, b = states[..., 0], states[..., 1], states[..., 2]
    real = p != PAD_PRED
    zero_row = E + 2 * A
    no_args = (p >= R) | ~real  # TRUE/FALSE atoms and padding have no arguments

    def term_index(x):
        idx = torch.where(x >= 0, x, E - 1 - x)  # Vk -> E + k - 1
        return torch.where(no_args, torch.full_like(x, zero_row), idx.clamp(0, zero_row))

    x = pol.pred_proj[p.clamp(0, R + 1)] + pol.arg0_proj[term_index(a)] \
        + pol.arg1_proj[term_index(b)] + pol.atom_bias
    h = (torch.relu(x) * real.unsqueeze(-1).to(x.dtype)).sum(-2)
    d = h.shape[-1]
    for w, bias, lw, lb in zip(pol.mlp_w, pol.mlp_b, pol.ln_w, pol.ln_b):
        h = torch.nn.functional.linear(h, w, bias)
        h = torch.relu(torch.nn.functional.layer_norm(h, (d,), lw, lb, eps=1e-5))
    return h


def select(pol: PolicyTensors, G: torch.Tensor, D: torch.Tensor, count: torch.Tensor,
           E: int, R: int, A: int, compact: bool = False):
    """§4 action and its log-probability for every slot: G [B, A, 3], D
    [B, S, A, 3] with count valid states. Returns (action [B], logp [B]).
    `compact` encodes only the valid states (a data-dependent shape: eager
    mode only; the result is the same)."""
    B, S = D.shape[0], D.shape[1]
    ks = torch.arange(S, device=D.device).unsqueeze(0)
    valid = ks < count.unsqueeze(1)
    enc_g = encode(pol, G, E, R, A)                                    # [B, d]
    if compact:
        enc_d = enc_g.new_zeros(B, S, enc_g.shape[-1])
        enc_d[valid] = encode(pol, D[valid], E, R, A)
    else:
        enc_d = encode(pol, D, E, R, A)                                # [B, S, d]
    logits = (enc_d * enc_g.unsqueeze(1)).sum(-1) / math.sqrt(enc_g.shape[-1])
    logits = torch.where(valid, logits, torch.full_like(logits, float("-inf")))
    m = logits.amax(1, keepdim=True)
    threshold = m - 1e-5 * torch.clamp(m.abs(), min=1.0)
    near_max = valid & (logits >= threshold)
    action = torch.where(near_max, ks, torch.full_like(ks, S)).amin(1)
    lse = m.squeeze(1) + torch.log(torch.exp(logits - m).sum(1))
    chosen = logits.gather(1, action.clamp(max=S - 1).unsqueeze(1)).squeeze(1)
    logp = torch.where(count == 1, torch.zeros_like(chosen), chosen - lse)
    return action, logp
