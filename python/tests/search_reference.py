"""The numpy search that proofc.training.search used until 2026-12-05: the
tests' reference for the runtime's ProofSearch (ProofSearch.h), which must
find the same proofs. Each level goes to the engine in one
`Evaluator.derive` call and is filtered, deduplicated (np.unique over whole
rows) and cut to `keep` states per triple with numpy; the ties are one
draw of numpy's PCG64(seed) per level. Simple and slow (kinship's search
4 GB and ~20 s, family's past 22 GB): use it on small inputs."""

from typing import List, Optional

import numpy as np

from proofc.training.search import PAD, Proofs, _row_keys, start_states


def search(evaluator, triples: np.ndarray, *, seed: int = 0, keep: int = 64,
           max_depth: int = 6) -> Proofs:
    """Shortest proofs of every triple [N, 3] (head, relation, tail ids) over
    `evaluator`'s engine, dataset and facts (module docstring)."""
    triples = np.asarray(triples, dtype=np.int32).reshape(-1, 3)
    N = triples.shape[0]
    A = int(evaluator.program["A"])
    R = len(evaluator.relations)
    rng = np.random.default_rng(seed)
    # The search tree: node n was reached from node parent[n] by action[n].
    parent: List[np.ndarray] = [np.full(N, -1, dtype=np.int64)]
    action: List[np.ndarray] = [np.full(N, -1, dtype=np.int64)]
    nodes = N
    front = start_states(triples, A)
    front_triple = np.arange(N, dtype=np.int64)
    front_node = np.arange(N, dtype=np.int64)
    visited = _row_keys(np.concatenate([front_triple[:, None].astype(np.int32),
                                        front.reshape(N, -1)], axis=1))
    proof_node = np.full(N, -1, dtype=np.int64)
    levels = 0
    for level in range(max_depth):
        if front.shape[0] == 0:
            break
        levels = level + 1
        out = evaluator.derive(front, triples[front_triple])
        count = np.asarray(out["count"], dtype=np.int64)
        kids = np.asarray(out["states"], dtype=np.int32)
        kid_parent = np.repeat(np.arange(front.shape[0]), count)
        starts = np.cumsum(count) - count
        kid_action = np.arange(kids.shape[0]) - np.repeat(starts, count)
        kid_triple = front_triple[kid_parent]
        kid_node = nodes + np.arange(kids.shape[0])
        parent.append(front_node[kid_parent])
        action.append(kid_action)
        nodes += kids.shape[0]
        pred = kids[:, 0, 0]
        # Proofs: the first [TRUE] of each triple in the level's order.
        is_true = pred == R
        if is_true.any():
            t_idx = np.flatnonzero(is_true)
            tri, first = np.unique(kid_triple[t_idx], return_index=True)
            proof_node[tri] = kid_node[t_idx[first]]
        done = proof_node >= 0
        atoms = (kids[:, :, 0] != PAD).sum(axis=1)
        ok = (pred < R) & ~done[kid_triple] & (level + 1 + atoms <= max_depth)
        idx = np.flatnonzero(ok)
        if idx.size == 0:
            break
        rows = np.concatenate([kid_triple[idx, None].astype(np.int32),
                               kids[idx].reshape(idx.size, -1)], axis=1)
        keys = _row_keys(rows)
        _, first = np.unique(np.concatenate([visited, keys]), return_index=True)
        fresh = np.sort(first[first >= visited.size]) - visited.size
        idx, keys = idx[fresh], keys[fresh]
        # Per triple the `keep` states with the fewest atoms, ties random.
        tie = rng.random(idx.size)
        order = np.lexsort((tie, atoms[idx], kid_triple[idx]))
        idx, keys = idx[order], keys[order]
        tri = kid_triple[idx]
        group_start = np.searchsorted(tri, tri, side="left")
        kept = np.arange(idx.size) - group_start < keep
        idx = idx[kept]
        visited = np.concatenate([visited, keys[kept]])
        front = kids[idx]
        front_triple = kid_triple[idx]
        front_node = kid_node[idx]
    parent_all = np.concatenate(parent)
    action_all = np.concatenate(action)
    paths: List[Optional[List[int]]] = []
    for i in range(N):
        n = int(proof_node[i])
        if n < 0:
            paths.append(None)
            continue
        path = []
        while parent_all[n] >= 0:
            path.append(int(action_all[n]))
            n = int(parent_all[n])
        paths.append(path[::-1])
    return Proofs(paths, levels)
