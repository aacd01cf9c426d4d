"""proofc.rollouts: the trajectories ``Evaluator.rollouts`` returns.

A ``Trajectories`` holds the tensors of docs/rollouts.md by name, as torch
tensors on the evaluator's device (numpy arrays when torch is not
installed), each the caller's own (the session's buffers are reused by its
next call, so the host arrays are copied once out of them, and CUDA ones
copied on the device):

- per episode [E] (E = N · episodes, episode ``n * episodes + k``):
  ``status`` int32 (0 proved, 1 failed, 2 truncated: proofc._core.STATUS_NAMES),
  ``depth`` int32, ``triple`` int32 (n), ``positive`` uint8, ``logp`` float32
  (the sum of its steps' ``step_logp``);
- ``states`` int32 [U, A, 3]: every distinct canonical state of the call,
  once, in proofc.torch's input encoding;
- per step [T] (episode-major, step order): ``step_episode``, ``step_state``
  (a row of ``states``), ``step_derived`` [T, S] (rows of ``states``, -1
  past the count), ``step_count``, ``step_action`` (all int32) and
  ``step_logp`` float32: the engine's log softmax(logits / temperature) of
  the action (greedy: of the logits), 0 when the count is 1.

``proofc.torch.Policy.log_prob(traj)`` recomputes ``step_logp`` with
autograd from these.
"""

from typing import Dict

import numpy as np

TENSORS = ("status", "depth", "triple", "positive", "logp", "states",
           "step_episode", "step_state", "step_derived", "step_count",
           "step_action", "step_logp")


class _CudaArray:
    """A CUDA tensor of the session as __cuda_array_interface__ (v3)."""

    def __init__(self, description: Dict):
        self.__cuda_array_interface__ = {
            "shape": tuple(description["shape"]),
            "typestr": description["typestr"],
            "data": (int(description["ptr"]), False),  # torch refuses read-only; cloned at once
            "version": 3,
            "strides": None,
            "stream": None,
        }


def _as_tensor(value, device: str):
    """numpy array -> torch tensor on `device` (the host array itself when
    torch is missing); CUDA description -> a torch copy on its device."""
    if isinstance(value, dict):
        import torch
        if not value["shape"] or min(value["shape"]) > 0:
            view = torch.as_tensor(_CudaArray(value), device=device)
            return view.clone()
        dtype = {"<i4": torch.int32, "|u1": torch.uint8, "<f4": torch.float32}[value["typestr"]]
        return torch.empty(tuple(value["shape"]), dtype=dtype, device=device)
    try:
        import torch
    except ImportError:
        return value
    return torch.from_numpy(np.ascontiguousarray(value)).to(device)


class Trajectories:
    """The tensors of one rollouts() call (module comment) as attributes,
    plus ``episodes`` (E), ``num_states`` (U), ``steps`` (T),
    ``temperature``, ``sampled``, ``seed``, ``episode_base`` and the
    call's ``run_seconds`` and ``call_seconds``."""

    def __init__(self, raw: Dict, device: str = "cpu", *, temperature=1.0,
                 sampled=True, seed=0, episode_base=0):
        for name in TENSORS:
            setattr(self, name, _as_tensor(raw[name], device))
        self.episodes = int(raw["episodes"])
        self.num_states = int(raw["num_states"])
        self.steps = int(raw["steps"])
        self.run_seconds = float(raw["run_seconds"])
        self.call_seconds = float(raw["call_seconds"])
        self.temperature = float(temperature)
        self.sampled = bool(sampled)
        self.seed = int(seed)
        self.episode_base = int(episode_base)
        self.device = device

    def tensors(self) -> Dict:
        """{name: tensor} of every tensor, in TENSORS order."""
        return {name: getattr(self, name) for name in TENSORS}

    def __repr__(self):
        mode = f"sampled, T={self.temperature:g}" if self.sampled else "greedy"
        return (f"<proofc.rollouts.Trajectories {self.episodes} episodes, "
                f"{self.steps} steps, {self.num_states} states ({mode}) on "
                f"{self.device}>")
