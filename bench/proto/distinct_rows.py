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
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload_stats import key64, v10_arguments, v10_computed_steps  # noqa: E402,E501


def main():
    o = v10_arguments(__doc__)
    ev, triples, st, steps = v10_computed_steps(o.bundle, o.data, o.weights,
                                                o.threads)
    A = ev.program["A"]
    g, ep = st["g"], st["ep"]
    derived = ev.derive(g[steps].reshape(-1, A, 3), triples[ep[steps]])
    children = np.asarray(derived["states"]).reshape(-1, A * 3)
    rows = np.concatenate([key64(children), key64(g[steps])])
    print(f"{len(steps)} computed steps with k > 1, {len(rows)} rows "
          f"({len(children)} children), {len(np.unique(rows))} distinct")


if __name__ == "__main__":
    main()
