#!/usr/bin/env python3
"""How many step policy tiles V10's computed steps take, as built and
without the parent's row (docs/performance.md, "Not kept" after row 49).

The V10 workload (kinship, 100 test queries, 100 corruptions) runs on the
host backend as greedy episodes; the steps the memo computes (the start
states and each key's first occurrence, workload_stats.py's keys) with
k > 1 are counted in tiles: ceil(k / 15) as built (a one-warp tile holds
the parent and 15 children), ceil(k / 16) where the parent's encoding is
known (the slot's own step before computed it as a child, or the step is a
start step whose state was encoded once), and k / 16 with rows packed
across slots.

  PYTHONPATH=build/python /usr/bin/python3 bench/proto/tile_counts.py \\
      BUNDLE.pcb DATA_DIR WEIGHTS.safetensors [--threads 2]

Printed on 2026-12-02 (bundle v10 at B=8192, kinship's trained weights):
70,910 steps, 4,432,354 children, k at the 10/25/50/75/90th percentiles
64/64/64/68/70, mean 62.5; after the start, the step before computed by
the slot itself with k > 1: 50,890, a memo hit with k > 1: 477, k = 1:
798; tiles 338,020 as built, 324,689 with the own step's parent, 305,944
with the start states' too, 305,556 at ceil(k / 16) everywhere, 277,022
packed.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload_stats import v10_arguments, v10_computed_steps  # noqa: E402,E501


def main():
    o = v10_arguments(__doc__)
    _, _, st, steps = v10_computed_steps(o.bundle, o.data, o.weights,
                                         o.threads)
    k, start = st["k"], st["start"]
    computed = np.zeros(len(k), bool)
    computed[steps] = True
    ks = k[steps].astype(np.int64)
    # The step before a computed step that is not a start step is the same
    # episode's (the rollouts list an episode's steps in order).
    later = ~start[steps]
    before = steps[later] - 1
    own = computed[before] & (k[before] > 1)
    after_hit = ~computed[before] & (k[before] > 1)
    known_own = np.zeros(len(steps), bool)
    known_own[np.nonzero(later)[0]] = own
    known_all = known_own | start[steps]

    def tiles(known):
        return int(np.where(known, -(-ks // 16), -(-ks // 15)).sum())

    pct = np.percentile(ks, [10, 25, 50, 75, 90]).astype(int).tolist()
    print(f"{len(ks)} steps, {ks.sum()} children, k percentiles "
          f"10/25/50/75/90 {pct}, mean {ks.mean():.1f}")
    print(f"after the start, the step before: own with k > 1 {own.sum()}, "
          f"a memo hit with k > 1 {after_hit.sum()}, "
          f"k = 1 {(k[before] == 1).sum()}")
    print(f"tiles: as built {tiles(np.zeros(len(ks), bool))}, own parent "
          f"{tiles(known_own)}, and start states {tiles(known_all)}, "
          f"ceil(k / 16) {tiles(np.ones(len(ks), bool))}, packed "
          f"{ks.sum() / 16:.0f}")


if __name__ == "__main__":
    main()
