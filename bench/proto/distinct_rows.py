#!/usr/bin/env python3
"""How many of the rows the memoized floor encodes are distinct states
(docs/performance.md, "Not kept": a cache of encodings keyed by the state).

The V10 workload (kinship, 100 test queries, 100 corruptions) runs on the
host backend as greedy episodes; the steps no earlier step answers (the
start states and each memo key's first occurrence, workload_stats.py's
keys) with k > 1 are derived again (`Evaluator.derive`), and their parents
and children, the rows the policy encodes, are counted and hashed.

  PYTHONPATH=build/python /usr/bin/python3 bench/proto/distinct_rows.py \\
      BUNDLE.pcb DATA_DIR WEIGHTS.safetensors [--threads 2]

Printed on 2026-11-29 (bundle v10 at B=256, kinship's trained weights):
70,910 computed steps with k > 1, 4,503,264 rows, 4,096,527 distinct.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload_stats import key64  # noqa: E402


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("bundle")
    a.add_argument("data")
    a.add_argument("weights")
    a.add_argument("--threads", type=int, default=2)
    o = a.parse_args()
    import proofc
    ev = proofc.Evaluator(o.bundle, o.data, device="cpu", threads=o.threads,
                          queries=100, corruptions=100)
    cand, queries = ev.candidates, np.asarray(ev.queries)
    triples = queries[np.asarray(cand["query"])].astype(np.int64)
    mode, entity = np.asarray(cand["mode"]), np.asarray(cand["entity"])
    triples[mode == 0, 0] = entity[mode == 0]
    triples[mode == 1, 2] = entity[mode == 1]
    A = ev.program["A"]
    traj = ev.rollouts(o.weights, triples, np.zeros(len(triples), np.uint8),
                       episodes=1, sampled=False)
    arr = lambda x: np.asarray(x.cpu() if hasattr(x, "cpu") else x)
    states = arr(traj.states).reshape(-1, A * 3)
    depth, k = arr(traj.depth), arr(traj.step_count).astype(np.int64)
    ep = arr(traj.step_episode)
    g = states[arr(traj.step_state)]
    start = np.zeros(len(k), bool)
    start[np.concatenate([[0], np.cumsum(depth)[:-1]])] = True
    # The memo's key (workload_stats.py): the state, plus (h, t) where the
    # candidate's own fact unifies with the first goal.
    h, r, t = (triples[ep, i] for i in range(3))
    p, a0, a1 = g[:, 0], g[:, 1], g[:, 2]
    relevant = ((p == r) & ((a0 < 0) | (a0 == h)) & ((a1 < 0) | (a1 == t)) &
                ~((a0 < 0) & (a0 == a1) & (h != t)))
    ht = np.where(relevant[:, None], np.stack([h, t], 1), -1)
    keys = key64(np.concatenate([g, ht], axis=1))
    computed = start.copy()
    _, first = np.unique(keys[~start], return_index=True)
    computed[np.nonzero(~start)[0][first]] = True
    computed &= k > 1
    steps = np.nonzero(computed)[0]
    derived = ev.derive(g[steps].reshape(-1, A, 3), triples[ep[steps]])
    children = arr(derived["states"]).reshape(-1, A * 3)
    rows = np.concatenate([key64(children), key64(g[steps])])
    print(f"{len(steps)} computed steps with k > 1, {len(rows)} rows "
          f"({len(children)} children), {len(np.unique(rows))} distinct")


if __name__ == "__main__":
    main()
