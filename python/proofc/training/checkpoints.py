"""Where a training run scores its weights, and which checkpoint it keeps.

The README's checkpoint choice (../shared/weights/README.md) scores the
initial weights (update 0), `points` evenly spaced points of the run and its
end by filtered valid MRR and saves the best. That schedule was made for runs
of about 20 to 500 updates per budget (the PyTorch port's speed); proofc makes
~100 updates/s on the CPU, and on countries_s2 the valid MRR peaks after ~30
updates and collapses after 200, long before the first evenly spaced point of
a 120 s run. So the default adds an early, geometric series: the updates
round(2^(j/2)) for j = 0, 1, 2, ... (1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45,
64, ...), a function of the update count only. It costs about 2 log2(N)
scorings for N updates, a bounded share of a long run, and finds an early
peak within a factor sqrt(2) of its update count (docs/training.md).

With a number of updates N the points are the updates ceil(N * k / (points
+ 1)) for k = 1..points, the early series up to N, and N (duplicates
dropped); with a budget of T seconds they are the first updates that end past
T * k / (points + 1) seconds of training, the early series, and the last
update. Ties go to the earliest checkpoint (the fewer updates).

A score is a function of the weights (the evaluator's queries, corruptions
and seed are fixed for the run, and its outcomes depend on nothing else), so
weights already scored are not scored again: `ScoredWeights` remembers each
scored checkpoint by a digest of its tensors. Such repeats are common: every
variant starts from the same initial weights, and an update whose advantages
are all 0 leaves the weights as they were (a REINFORCE run that proves
nothing yet scores the same weights at each point of the early series).
"""

import hashlib
import math
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

EARLY_RATIO_LOG2 = 0.5  # the early series' ratio: sqrt(2)


def early_points(limit: Optional[int] = None, count: int = 64) -> List[int]:
    """The early series round(2^(j/2)), ascending without duplicates, up to
    `limit` (inclusive) or its first `count` distinct values."""
    marks: List[int] = []
    j = 0
    while len(marks) < count:
        m = int(math.floor(2.0 ** (j * EARLY_RATIO_LOG2) + 0.5))
        j += 1
        if limit is not None and m > limit:
            break
        if not marks or m != marks[-1]:
            marks.append(m)
    return marks


def update_points(updates: int, points: int, early: bool = False) -> List[int]:
    """The updates after which a run of `updates` updates scores its weights
    (besides update 0), ascending, ending with `updates`."""
    marks = {math.ceil(updates * k / (points + 1)) for k in range(1, points + 1)}
    marks.add(updates)
    if early:
        marks.update(early_points(updates))
    return sorted(m for m in marks if m > 0)


def time_points(budget: float, points: int) -> List[float]:
    """The training seconds past which a budgeted run scores its weights (the
    end of the budget excluded: the last update is always scored)."""
    return [budget * k / (points + 1) for k in range(1, points + 1)]


class Schedule:
    """Says after each update whether to score now: by update counts when the
    run has a number of updates, else by training time; the early series
    (when `early`) in both cases."""

    def __init__(self, updates: Optional[int], budget: Optional[float], points: int,
                 early: bool = True):
        self.updates, self.budget = updates, budget
        if updates is not None:
            self._marks = set(update_points(updates, points, early))
        else:
            self._marks = set(early_points() if early else [])
        self._times = time_points(budget, points) if updates is None else []

    def due(self, update: int, seconds: float, last: bool) -> bool:
        """After update `update` (1-based) at `seconds` of training; `last`
        when the run stops after it."""
        due = last or update in self._marks
        if self._times and seconds >= self._times[0]:
            while self._times and seconds >= self._times[0]:
                self._times.pop(0)
            due = True
        return due


def best_index(mrrs: Sequence[float]) -> int:
    """The index of the largest MRR, the first of equal ones."""
    if not mrrs:
        raise ValueError("best_index: no checkpoints")
    best = 0
    for i, mrr in enumerate(mrrs):
        if mrr > mrrs[best]:
            best = i
    return best


def weights_digest(tensors: Mapping[str, np.ndarray]) -> bytes:
    """A digest of named arrays: each name, dtype, shape and the bytes of
    its values, in name order. Equal digests mean equal weights to within a
    collision of BLAKE2b-256."""
    h = hashlib.blake2b(digest_size=32)
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name])
        for part in (name, a.dtype.str, repr(a.shape)):
            data = part.encode()
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
        h.update(a.nbytes.to_bytes(8, "little"))
        h.update(a.tobytes())
    return h.digest()


class ScoredWeights:
    """The checkpoints scored so far, by the digest of their weights: which
    earlier checkpoint had these weights, and its valid MRR."""

    def __init__(self):
        self._by_digest: Dict[bytes, Tuple[str, float]] = {}

    def find(self, digest: bytes) -> Optional[Tuple[str, float]]:
        """(name, MRR) of the first checkpoint scored with these weights."""
        return self._by_digest.get(digest)

    def add(self, digest: bytes, name: str, mrr: float):
        self._by_digest.setdefault(digest, (name, mrr))
