"""The shortest-proof search of the imitation warm start (variant `il` of ../shared/weights/README.md).

A bounded best-first search over the engine itself (`Evaluator.derive`, spec
§3, the candidate's own fact never used), from the start state of every train
triple at once, level by level:

- every state of a level is expanded (one `derive` call for all triples);
- a derived list that is [TRUE] ends that triple's search: its proof is the
  path to the first such state in the level's order (the states of a level
  are ordered by their number of goal atoms, ties in a seeded random order),
  so it is a shortest proof within the bounds;
- of the other derived states, [FALSE], states seen before by the same
  triple's search (at this level or an earlier one) and states that cannot
  reach TRUE within `max_depth` steps (depth + goal atoms > max_depth: each
  step removes at most one goal) are dropped; "seen before" means kept for
  expansion at this level or an earlier one;
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


# The most states one derive call expands. A level is expanded a piece at a
# time, pieces of whole triples (each keeps at most `keep` states a level),
# so that a call's derived lists (at most S states each) stay within ~35 MB
# at V10's S = 120, A = 6 whatever the dataset: expanding whole levels at
# once took family's second level to 102 M derived states and more than
# 22 GB, and kinship's search to 4 GB (docs/training.md). Smaller pieces
# were no slower on kinship (2,000 to 32,768 states: 3.8 to 5.4 s).
PIECE_STATES = 1 << 12


@dataclass
class _Piece:
    """The search's state for a fixed range of triples: the states to expand
    at the next level, their triples and tree nodes, and the keys (triple,
    state) of every state kept for expansion so far by triples still
    searching, with their triples. The piece's triples are lo, lo + 1, ...;
    its front is grouped by triple in ascending order."""
    lo: int
    front: np.ndarray
    front_triple: np.ndarray
    front_node: np.ndarray
    visited: np.ndarray
    visited_triple: np.ndarray


def search(evaluator, triples: np.ndarray, *, seed: int = 0, keep: int = 64,
           max_depth: int = 6, piece_states: int = PIECE_STATES) -> Proofs:
    """Shortest proofs of every triple [N, 3] (head, relation, tail ids) over
    `evaluator`'s engine, dataset and facts (module docstring). The triples
    are searched in pieces of max(1, piece_states // keep) triples; the
    result does not depend on the pieces (each triple's search is its own,
    and the pieces draw the ties in turn, in the order of one whole draw)."""
    triples = np.asarray(triples, dtype=np.int32).reshape(-1, 3)
    N = triples.shape[0]
    A = int(evaluator.program["A"])
    R = len(evaluator.relations)
    rng = np.random.default_rng(seed)
    # The search tree's kept states: node n was reached from node parent[n]
    # by action[n]; the N start states are the nodes 0..N-1.
    parent: List[np.ndarray] = [np.full(N, -1, dtype=np.int64)]
    action: List[np.ndarray] = [np.full(N, -1, dtype=np.int64)]
    nodes = N
    # A proof: the node whose derived list holds the triple's first [TRUE],
    # and that state's index in it.
    proof_parent = np.full(N, -1, dtype=np.int64)
    proof_action = np.full(N, -1, dtype=np.int64)
    size = max(1, min(N, piece_states // max(1, keep)))  # triples a piece
    pieces: List[_Piece] = []
    for lo in range(0, N, size):
        hi = min(N, lo + size)
        front = start_states(triples[lo:hi], A)
        front_triple = np.arange(lo, hi, dtype=np.int64)
        visited = _row_keys(np.concatenate([front_triple[:, None].astype(np.int32),
                                            front.reshape(hi - lo, -1)], axis=1))
        pieces.append(_Piece(lo, front, front_triple, front_triple.copy(), visited,
                             front_triple.copy()))
    levels = 0
    for level in range(max_depth):
        if not any(p.front.shape[0] for p in pieces):
            break
        levels = level + 1
        for p in pieces:
            if p.front.shape[0] == 0:
                continue
            out = evaluator.derive(p.front, triples[p.front_triple])
            count = np.asarray(out["count"], dtype=np.int64)
            kids = np.asarray(out["states"], dtype=np.int32)
            kid_parent = np.repeat(np.arange(p.front.shape[0]), count)
            starts = np.cumsum(count) - count
            kid_action = np.arange(kids.shape[0]) - np.repeat(starts, count)
            kid_triple = p.front_triple[kid_parent]
            pred = kids[:, 0, 0]
            # Proofs: the first [TRUE] of each triple in the level's order.
            is_true = pred == R
            if is_true.any():
                t_idx = np.flatnonzero(is_true)
                tri, first = np.unique(kid_triple[t_idx], return_index=True)
                proof_parent[tri] = p.front_node[kid_parent[t_idx[first]]]
                proof_action[tri] = kid_action[t_idx[first]]
            atoms = (kids[:, :, 0] != PAD).sum(axis=1)
            ok = (pred < R) & (proof_parent[kid_triple] < 0) & (level + 1 + atoms <= max_depth)
            idx = np.flatnonzero(ok)
            keys = _row_keys(np.concatenate([kid_triple[idx, None].astype(np.int32),
                                             kids[idx].reshape(idx.size, 3 * A)], axis=1))
            if idx.size:
                # The states neither kept before nor derived before in this
                # level's order.
                _, first = np.unique(np.concatenate([p.visited, keys]), return_index=True)
                fresh = np.sort(first[first >= p.visited.size]) - p.visited.size
                idx, keys = idx[fresh], keys[fresh]
            if idx.size:
                # Per triple the `keep` states with the fewest atoms, ties random.
                tie = rng.random(idx.size)
                order = np.lexsort((tie, atoms[idx], kid_triple[idx]))
                idx, keys = idx[order], keys[order]
                tri = kid_triple[idx]
                group_start = np.searchsorted(tri, tri, side="left")
                kept = np.arange(idx.size) - group_start < keep
                idx, keys = idx[kept], keys[kept]
            parent.append(p.front_node[kid_parent[idx]])
            action.append(kid_action[idx])
            p.front = kids[idx]
            p.front_triple = kid_triple[idx]
            p.front_node = nodes + np.arange(idx.size, dtype=np.int64)
            nodes += idx.size
            # Only the triples that go on can meet their visited states again.
            searching = np.zeros(size, dtype=bool)
            searching[p.front_triple - p.lo] = True
            still = searching[p.visited_triple - p.lo]
            p.visited = np.concatenate([p.visited[still], keys])
            p.visited_triple = np.concatenate([p.visited_triple[still], p.front_triple])
    parent_all = np.concatenate(parent)
    action_all = np.concatenate(action)
    paths: List[Optional[List[int]]] = []
    for i in range(N):
        if proof_parent[i] < 0:
            paths.append(None)
            continue
        path = [int(proof_action[i])]
        n = int(proof_parent[i])
        while parent_all[n] >= 0:
            path.append(int(action_all[n]))
            n = int(parent_all[n])
        paths.append(path[::-1])
    return Proofs(paths, levels)


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
