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


class Imitation:
    """The proof steps of one search, and batches of them for a learner."""

    def __init__(self, steps: ProofSteps, device: str):
        self.steps, self.device = steps, device

    def __len__(self) -> int:
        return len(self.steps)

    def batch(self, rng: np.random.Generator, size: int) -> SimpleNamespace:
        """`size` steps drawn uniformly with replacement, with their own
        state table (rows renumbered)."""
        s = self.steps
        pick = rng.integers(0, len(s), size)
        parents = s.step_state[pick]
        derived = s.step_derived[pick]
        used = np.concatenate([parents, derived[derived >= 0]])
        rows, inverse = np.unique(used, return_inverse=True)
        inverse = inverse.ravel().astype(np.int32)
        remapped = np.full(derived.shape, -1, dtype=np.int32)
        remapped[derived >= 0] = inverse[size:]
        as_tensor = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(self.device)
        return SimpleNamespace(states=as_tensor(s.states[rows]),
                               step_state=as_tensor(inverse[:size]),
                               step_derived=as_tensor(remapped),
                               step_count=as_tensor(s.step_count[pick]),
                               step_action=as_tensor(s.step_action[pick]),
                               sampled=False, temperature=1.0)

    @staticmethod
    def loss(policy, batch: SimpleNamespace) -> torch.Tensor:
        """Mean cross-entropy of softmax(logits) on the proof's actions."""
        return -policy.log_prob(batch).mean()
