"""The imitation half of variant `il` (../shared/weights/README.md): cross-entropy on the shortest proofs' actions.

search.py finds a shortest proof of every train triple it can and turns the
proofs into steps (those with more than one derived state). Here:

- `Imitation.batch(rng, size)` draws `size` steps uniformly with replacement
  (numpy Generator handed in): their indices into the steps, which stay on
  the learner's device in docs/rollouts.md's layout;
- `Imitation.loss(policy, batch)`: the mean over the batch of
  −log softmax(logits)[proof action] (greedy logits, temperature 1), with
  autograd: `Policy.log_prob` of the drawn steps, which encodes only the
  states they name.

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
        # The steps on the device once (kinship: 620k states, 45 MB), so a
        # batch is its indices: Policy.log_prob(steps=...) gathers and
        # renumbers the rows it names there.
        on_device = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(device)
        self._table = SimpleNamespace(
            states=on_device(steps.states), step_state=on_device(steps.step_state),
            step_derived=on_device(steps.step_derived),
            step_count=on_device(steps.step_count),
            step_action=on_device(steps.step_action), sampled=False, temperature=1.0)

    def __len__(self) -> int:
        return len(self.steps)

    def batch(self, rng: np.random.Generator, size: int) -> SimpleNamespace:
        """`size` steps drawn uniformly with replacement: the steps
        (`table`) and the drawn indices (`steps`, int64 on the device)."""
        pick = torch.from_numpy(rng.integers(0, len(self.steps), size))
        if torch.device(self.device).type == "cuda":
            # Through pinned memory without waiting: a copy from pageable
            # memory would make the host wait for the learner's queued work.
            pick = pick.pin_memory().to(self.device, non_blocking=True)
        return SimpleNamespace(table=self._table, steps=pick)

    @staticmethod
    def loss(policy, batch: SimpleNamespace) -> torch.Tensor:
        """Mean cross-entropy of softmax(logits) on the proof's actions."""
        return -policy.log_prob(batch.table, steps=batch.steps).mean()
