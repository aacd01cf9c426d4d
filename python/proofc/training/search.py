"""The shortest-proof search of the imitation warm start (variant `il` of ../shared/weights/README.md).

A bounded best-first search over the engine itself (spec §3's step, the
candidate's own fact never used), from the start state of every train triple,
level by level; the runtime's ProofSearch (proofc/runtime/ProofSearch.h)
does the work, this module draws its ties:

- every state of a level is expanded, a piece of whole triples at a time;
- a derived list that is [TRUE] ends that triple's search: its proof is the
  path to the first such state in the level's order (the states of a level
  are ordered by their number of goal atoms, ties in a seeded random order),
  so it is a shortest proof within the bounds;
- of the other derived states, [FALSE], states seen before by the same
  triple's search (at this level or an earlier one) and states that cannot
  reach TRUE within `max_depth` steps (depth + goal atoms > max_depth: each
  step removes at most one goal) are dropped; "seen before" means kept for
  expansion at an earlier level, or derived earlier at this level;
- per triple at most `keep` states go on to the next level, those with the
  fewest goal atoms first, ties broken by a uniform draw from numpy's
  PCG64(seed).

The result is a function of the triples, the dataset, the rules and the seed.
`proof_steps()` turns the proofs into the imitation's steps (imitation.py).
"""

from dataclasses import dataclass
from typing import List, Optional

import numpy as np

PAD = -1


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """Each row of a C-contiguous int32 [n, w] array as one np.void value,
    so that np.unique compares whole rows."""
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def start_states(triples: np.ndarray, A: int) -> np.ndarray:
    """canon([(r, h, t)]) of each triple (h, r, t) [N, 3]: int32 [N, A, 3]."""
    triples = np.asarray(triples, dtype=np.int32).reshape(-1, 3)
    out = np.zeros((triples.shape[0], A, 3), dtype=np.int32)
    out[:, :, 0] = PAD
    out[:, 0] = triples[:, [1, 0, 2]]
    return out


@dataclass
class Proofs:
    """The search's result: for triple i, `paths[i]` lists the actions
    (indices into each step's derived list) of its proof from the start
    state, or is None when no proof was found within the bounds."""
    paths: List[Optional[List[int]]]
    levels: int

    @property
    def found(self) -> int:
        return sum(p is not None for p in self.paths)


# The most states one expansion derives. A level is expanded a piece of whole
# triples at a time (each keeps at most `keep` states a level), so that one
# expansion's derived lists (at most S states each) stay within ~35 MB at
# V10's S = 120, A = 6 whatever the dataset: expanding whole levels at once
# took family's second level to 102 M derived states and more than 22 GB
# (docs/training.md).
PIECE_STATES = 1 << 12


def search(evaluator, triples: np.ndarray, *, seed: int = 0, keep: int = 64,
           max_depth: int = 6, piece_states: int = PIECE_STATES) -> Proofs:
    """Shortest proofs of every triple [N, 3] (head, relation, tail ids) over
    `evaluator`'s engine, dataset and facts (module docstring). The runtime's
    ProofSearch expands the states, collects and keeps them; this loop draws
    the ties, piece after piece, level after level: one stream of numpy's
    PCG64(seed), whose draws are those of one draw per level over all the
    triples, so the result does not depend on `piece_states`."""
    triples = np.asarray(triples, dtype=np.int32).reshape(-1, 3)
    rng = np.random.default_rng(seed)
    run = evaluator.proof_search(triples, keep=keep, max_depth=max_depth,
                                 piece_states=piece_states)
    while run.next_level():
        for piece in range(run.pieces):
            run.select(piece, rng.random(run.expand(piece)))
    return Proofs(run.paths(), run.levels)


@dataclass
class ProofSteps:
    """The proofs' steps with more than one derived state, in the layout of
    docs/rollouts.md (what `Policy.log_prob` reads): a state table
    `states` [U, A, 3], per step `step_state` [T], `step_derived` [T, S]
    (-1 past `step_count`), `step_count` [T], `step_action` [T]; and
    `step_triple` [T], the triple each step belongs to."""
    states: np.ndarray
    step_state: np.ndarray
    step_derived: np.ndarray
    step_count: np.ndarray
    step_action: np.ndarray
    step_triple: np.ndarray

    def __len__(self) -> int:
        return int(self.step_state.shape[0])


def proof_steps(evaluator, triples: np.ndarray, proofs: Proofs, *,
                piece_states: int = PIECE_STATES) -> ProofSteps:
    """Replays every proof through `evaluator.derive` (the proofs' states at
    one step index together, piece_states at a time) and keeps the steps
    whose derived list has more than one state, with their lists."""
    triples = np.asarray(triples, dtype=np.int32).reshape(-1, 3)
    A = int(evaluator.program["A"])
    S = int(evaluator.program["S"])
    which = [i for i, p in enumerate(proofs.paths) if p]
    state = start_states(triples[which], A)
    table: List[np.ndarray] = []  # rows of every kept step: s_t, then D(s_t)
    steps = []  # (triple, count, action, offset into the concatenated rows)
    rows_so_far = 0
    live = list(range(len(which)))
    t = 0
    while live:
        next_live = []
        for lo in range(0, len(live), max(1, piece_states)):
            part = live[lo:lo + max(1, piece_states)]
            out = evaluator.derive(state[part], triples[[which[j] for j in part]])
            count = np.asarray(out["count"], dtype=np.int64)
            kids = np.asarray(out["states"], dtype=np.int32)
            offsets = np.cumsum(count) - count
            for pos, j in enumerate(part):
                path = proofs.paths[which[j]]
                a, k, o = path[t], int(count[pos]), int(offsets[pos])
                if not 0 <= a < k:
                    raise AssertionError(f"search: proof of triple {which[j]} replays to "
                                         f"action {a} of {k} at step {t}")
                if k > 1:
                    table.append(state[j][None].copy())
                    table.append(kids[o:o + k])
                    steps.append((which[j], k, a, rows_so_far))
                    rows_so_far += 1 + k
                state[j] = kids[o + a]
                if t + 1 < len(path):
                    next_live.append(j)
        live = next_live
        t += 1
    T = len(steps)
    derived = np.full((T, S), -1, dtype=np.int32)
    if T == 0:
        empty = np.zeros(0, dtype=np.int32)
        return ProofSteps(np.zeros((0, A, 3), np.int32), empty, derived, empty, empty, empty)
    rows = np.concatenate(table)
    uniq, inverse = np.unique(_row_keys(rows.reshape(rows.shape[0], -1)), return_inverse=True)
    states = np.frombuffer(uniq.tobytes(), dtype=np.int32).reshape(-1, A, 3).copy()
    inverse = inverse.ravel().astype(np.int32)
    step_state = np.empty(T, np.int32)
    step_count = np.empty(T, np.int32)
    step_action = np.empty(T, np.int32)
    step_triple = np.empty(T, np.int32)
    for s, (tri, k, a, o) in enumerate(steps):
        step_state[s] = inverse[o]
        derived[s, :k] = inverse[o + 1:o + 1 + k]
        step_count[s], step_action[s], step_triple[s] = k, a, tri
    return ProofSteps(states, step_state, derived, step_count, step_action, step_triple)
