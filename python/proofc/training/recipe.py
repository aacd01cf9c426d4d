"""The REINFORCE recipe of ../shared/weights/README.md ("Training recipe", variant `rl`), as functions.

Kept apart from the loop (trainer.py) so that each rule is written once and
tested on hand-made inputs (python/tests/test_training.py):

- `TrainTriples.draw(rng, Q)`: Q train triples drawn uniformly with
  replacement and one corruption of each: the head or the tail (even odds)
  replaced by a uniformly drawn entity, the whole corruption redrawn while the
  triple is in train.tsv. That rejection loop is the uniform draw over the
  (side, entity) pairs whose triple is not in train.tsv; after
  `_REJECTION_ROUNDS` rounds the few triples left are drawn from that set
  enumerated, which is the same distribution. A triple none of whose
  corruptions leaves train.tsv is an error.
- `rewards(status, depth, positive)`: PROVED train triple -> 1 - 0.01 * depth,
  PROVED corruption -> -0.5, anything else 0.
- `advantages(reward, triple)`: reward minus the baseline, the mean reward of
  the other episodes of the same triple (0 when it has no other episode).
- `reinforce_loss(logp, step_episode, advantage, episodes)`:
  -sum_episodes advantage * sum_steps log pi(a_t) / episodes.
- `weighted_steps(advantage, step_episode, step_count)`: the steps whose
  term in that loss can be nonzero, the only ones the learner encodes.

All draws come from the numpy Generator handed in; nothing here reads the
clock or a global random state.
"""

from typing import Optional, Sequence, Tuple

import numpy as np
import torch

from ..errors import Error

PROVED = 0  # proofc.STATUS_NAMES.index("proved") (spec §5's outcome codes)
PROVED_REWARD_PER_DEPTH = 0.01
CORRUPTION_PROVED_REWARD = -0.5
_REJECTION_ROUNDS = 64


class TrainTriples:
    """The deduplicated train triples of a dataset as ids [M, 3] (head,
    relation, tail; first-occurrence order) over E entities, with a
    membership test."""

    def __init__(self, triples: np.ndarray, num_entities: int, num_relations: int):
        triples = np.asarray(triples, dtype=np.int64).reshape(-1, 3)
        if triples.shape[0] == 0:
            raise Error("train.tsv has no triples: there is nothing to train on")
        self.E, self.R = int(num_entities), int(num_relations)
        keys = self._keys(triples)
        _, first = np.unique(keys, return_index=True)
        self.triples = triples[np.sort(first)]
        self._sorted_keys = np.sort(self._keys(self.triples))

    @classmethod
    def from_names(cls, named: Sequence[Tuple[str, str, str]], entities: Sequence[str],
                   relations: Sequence[str]) -> "TrainTriples":
        """From (head, relation, tail) names and the id-ordered vocabulary."""
        entity_id = {name: i for i, name in enumerate(entities)}
        relation_id = {name: i for i, name in enumerate(relations)}
        ids = np.array([(entity_id[h], relation_id[r], entity_id[t]) for h, r, t in named],
                       dtype=np.int64).reshape(-1, 3)
        return cls(ids, len(entities), len(relations))

    def __len__(self) -> int:
        return self.triples.shape[0]

    def _keys(self, triples: np.ndarray) -> np.ndarray:
        return (triples[:, 0] * self.R + triples[:, 1]) * self.E + triples[:, 2]

    def contains(self, triples: np.ndarray) -> np.ndarray:
        """[N] bool: whether each triple [N, 3] is a train triple."""
        keys = self._keys(np.asarray(triples, dtype=np.int64).reshape(-1, 3))
        at = np.searchsorted(self._sorted_keys, keys)
        at = np.minimum(at, self._sorted_keys.size - 1)
        return self._sorted_keys[at] == keys

    @staticmethod
    def _corrupt(triples: np.ndarray, head: np.ndarray, entity: np.ndarray) -> np.ndarray:
        out = triples.copy()
        out[head, 0] = entity[head]
        out[~head, 2] = entity[~head]
        return out

    def _enumerate(self, triple: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One corruption of `triple` drawn uniformly from all (side, entity)
        pairs that leave train.tsv."""
        entities = np.arange(self.E, dtype=np.int64)
        both = np.repeat(triple[None, :], 2 * self.E, axis=0)
        both[:self.E, 0] = entities
        both[self.E:, 2] = entities
        allowed = both[~self.contains(both)]
        if allowed.shape[0] == 0:
            h, r, t = (int(x) for x in triple)
            raise Error(f"train triple ({h}, {r}, {t}) (entity, relation, entity ids) has no "
                        f"corruption outside train.tsv")
        return allowed[rng.integers(0, allowed.shape[0])]

    def corruptions(self, positives: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One corruption [N, 3] of each triple of `positives` [N, 3]."""
        positives = np.asarray(positives, dtype=np.int64).reshape(-1, 3)
        n = positives.shape[0]
        head = rng.random(n) < 0.5
        entity = rng.integers(0, self.E, n)
        out = self._corrupt(positives, head, entity)
        bad = np.flatnonzero(self.contains(out))
        for _ in range(_REJECTION_ROUNDS):
            if bad.size == 0:
                return out
            head = rng.random(bad.size) < 0.5
            entity = rng.integers(0, self.E, bad.size)
            out[bad] = self._corrupt(positives[bad], head, entity)
            bad = bad[self.contains(out[bad])]
        for i in bad:
            out[i] = self._enumerate(positives[i], rng)
        return out

    def draw(self, rng: np.random.Generator, count: int) -> Tuple[np.ndarray, np.ndarray]:
        """`count` train triples (uniform, with replacement) and one corruption
        of each: (positives [count, 3], corruptions [count, 3])."""
        positives = self.triples[rng.integers(0, len(self), count)]
        return positives, self.corruptions(positives, rng)


def rewards(status: torch.Tensor, depth: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """Per episode: 1 - 0.01 * depth for a PROVED train triple, -0.5 for a
    PROVED corruption, else 0 (float32, on the inputs' device)."""
    proved = status == PROVED
    positive = positive.bool()
    out = torch.zeros(status.shape, dtype=torch.float32, device=status.device)
    out = torch.where(proved & positive, 1.0 - PROVED_REWARD_PER_DEPTH * depth.float(), out)
    return torch.where(proved & ~positive, torch.full_like(out, CORRUPTION_PROVED_REWARD), out)


def advantages(reward: torch.Tensor, triple: torch.Tensor,
               groups: Optional[int] = None) -> torch.Tensor:
    """reward minus the mean reward of the other episodes of the same triple
    (`triple`: each episode's triple index; a triple with one episode has
    baseline 0). `groups`, when the caller knows it, is a number above every
    triple index (the trainer's 2Q): it spares reading the largest index back
    from the device, and changes no value."""
    triple = triple.long()
    if groups is None:
        groups = int(triple.max().item()) + 1 if triple.numel() else 0
    total = torch.zeros(groups, dtype=reward.dtype, device=reward.device)
    total = total.index_add(0, triple, reward)
    count = torch.zeros(groups, dtype=reward.dtype, device=reward.device)
    count = count.index_add(0, triple, torch.ones_like(reward))
    others = count[triple] - 1
    baseline = torch.where(others > 0, (total[triple] - reward) / others.clamp(min=1),
                           torch.zeros_like(reward))
    return reward - baseline


def weighted_steps(advantage: torch.Tensor, step_episode: torch.Tensor,
                   step_count: torch.Tensor) -> torch.Tensor:
    """The indices (int64, ascending) of the steps whose term of
    `reinforce_loss` can be nonzero: their episode's advantage is not 0
    and they chose among more than one derived state. Every other term is
    exactly 0 with a zero gradient (advantage 0; or log pi = 0 = log
    softmax of one logit, whose gradient is softmax - one-hot = 0), so the
    loss and its gradient over these steps alone are the same numbers to
    rounding (the sums lose zero terms), and the learner encodes only the
    states they name (Policy.log_prob's `steps`)."""
    mask = (advantage[step_episode.long()] != 0) & (step_count > 1)
    return torch.nonzero(mask).squeeze(1)


def reinforce_loss(logp: torch.Tensor, step_episode: torch.Tensor, advantage: torch.Tensor,
                   episodes: int) -> torch.Tensor:
    """-sum_episodes advantage * sum_steps log pi(a_t) / episodes, for the
    steps' log-probabilities `logp` [T] (with autograd) of episodes
    `step_episode` [T]."""
    weight = advantage.to(logp.dtype)[step_episode.long()]
    return -(weight * logp).sum() / max(int(episodes), 1)
