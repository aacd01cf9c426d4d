"""The imitation half of variant `il` (../shared/weights/README.md): cross-entropy on the shortest proofs' actions.

search.py finds a shortest proof of every train triple it can and turns the
proofs into steps (those with more than one derived state). Here:

- `Imitation.batch(rng, size)` draws `size` steps uniformly with replacement
  (numpy Generator handed in) and returns them in docs/rollouts.md's layout
  with a state table of just the batch's states, so `Policy.log_prob`
  encodes only those;
- `Imitation.loss(policy, batch)`: the mean over the batch of
  −log softmax(logits)[proof action] (greedy logits, temperature 1), with
  autograd.

The trainer (trainer.py) runs Adam steps on this loss for the imitation
phase, then adds 0.5 × the loss of a fresh batch to every REINFORCE update.
"""

from types import SimpleNamespace

import numpy as np
import torch

from .search import ProofSteps

IMITATION_WEIGHT = 0.5  # the imitation loss's weight in the REINFORCE updates


def _renumber(ids: np.ndarray, bound: int):
    """np.unique(ids, return_inverse=True) for ids in [0, bound): the sorted
    distinct ids and each id's position among them (int32). A mark per
    possible id instead of a sort where that is cheaper: the batch's ids
    (a proof step and its derived states, ~2048 x 40 of them on kinship)
    are many against the table's rows, and sorting them cost ~10 ms a
    batch."""
    if bound > 8 * ids.size:
        rows, inverse = np.unique(ids, return_inverse=True)
        return rows, inverse.ravel().astype(np.int32)
    mark = np.zeros(bound, dtype=bool)
    mark[ids] = True
    position = np.cumsum(mark, dtype=np.int32) - 1
    return np.flatnonzero(mark), position[ids]


class Imitation:
    """The proof steps of one search, and batches of them for a learner."""

    def __init__(self, steps: ProofSteps, device: str):
        self.steps, self.device = steps, device
        # The state table on the device once (kinship: 620k states, 45 MB), so
        # a batch gathers its rows there: numpy's gather of 125k [A, 3] rows
        # took ~20 ms, and their copy was 9 MB a batch.
        self._states = torch.from_numpy(np.ascontiguousarray(steps.states)).to(device)

    def __len__(self) -> int:
        return len(self.steps)

    def batch(self, rng: np.random.Generator, size: int) -> SimpleNamespace:
        """`size` steps drawn uniformly with replacement, with their own
        state table (rows renumbered)."""
        s = self.steps
        pick = rng.integers(0, len(s), size)
        parents = s.step_state[pick]
        derived = s.step_derived[pick]
        listed = derived >= 0
        rows, inverse = _renumber(np.concatenate([parents, derived[listed]]), len(s.states))
        remapped = np.full(derived.shape, -1, dtype=np.int32)
        remapped[listed] = inverse[size:]
        rows = self._to_device(rows.astype(np.int64, copy=False))
        return SimpleNamespace(states=self._states.index_select(0, rows),
                               step_state=self._to_device(inverse[:size]),
                               step_derived=self._to_device(remapped),
                               step_count=self._to_device(s.step_count[pick]),
                               step_action=self._to_device(s.step_action[pick]),
                               sampled=False, temperature=1.0)

    def _to_device(self, a: np.ndarray) -> torch.Tensor:
        """On CUDA through pinned memory without waiting: a copy from pageable
        memory would make the host wait for the learner's queued work."""
        t = torch.from_numpy(np.ascontiguousarray(a))
        if torch.device(self.device).type != "cuda":
            return t.to(self.device)
        return t.pin_memory().to(self.device, non_blocking=True)

    @staticmethod
    def loss(policy, batch: SimpleNamespace) -> torch.Tensor:
        """Mean cross-entropy of softmax(logits) on the proof's actions."""
        return -policy.log_prob(batch).mean()
