"""Where a training run scores its weights, and which checkpoint it keeps.

The README's checkpoint choice (../shared/weights/README.md): the initial
weights (update 0), `points` evenly spaced points of the run and its end are
scored by filtered valid MRR; the best is saved. With a number of updates N
the points are the updates ceil(N * k / (points + 1)) for k = 1..points, then
N (duplicates dropped when N is small); with a budget of T seconds they are the
first updates that end past T * k / (points + 1) seconds of training, then the
last update. Ties go to the earliest checkpoint (the fewer updates).
"""

import math
from typing import List, Optional, Sequence


def update_points(updates: int, points: int) -> List[int]:
    """The updates after which a run of `updates` updates scores its weights
    (besides update 0), ascending, ending with `updates`."""
    marks = {math.ceil(updates * k / (points + 1)) for k in range(1, points + 1)}
    marks.add(updates)
    return sorted(m for m in marks if m > 0)


def time_points(budget: float, points: int) -> List[float]:
    """The training seconds past which a budgeted run scores its weights (the
    end of the budget excluded: the last update is always scored)."""
    return [budget * k / (points + 1) for k in range(1, points + 1)]


class Schedule:
    """Says after each update whether to score now: by update counts when the
    run has a number of updates, else by training time."""

    def __init__(self, updates: Optional[int], budget: Optional[float], points: int):
        self.updates, self.budget = updates, budget
        self._marks = update_points(updates, points) if updates is not None else []
        self._times = time_points(budget, points) if updates is None else []

    def due(self, update: int, seconds: float, last: bool) -> bool:
        """After update `update` (1-based) at `seconds` of training; `last`
        when the run stops after it."""
        if last or update in self._marks:
            return True
        if self._times and seconds >= self._times[0]:
            while self._times and seconds >= self._times[0]:
                self._times.pop(0)
            return True
        return False


def best_index(mrrs: Sequence[float]) -> int:
    """The index of the largest MRR, the first of equal ones."""
    if not mrrs:
        raise ValueError("best_index: no checkpoints")
    best = 0
    for i, mrr in enumerate(mrrs):
        if mrr > mrrs[best]:
            best = i
    return best
