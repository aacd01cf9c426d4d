#!/usr/bin/env python3
"""How many goals the policy's rows hold (docs/performance.md, "Not kept",
2026-12-04: the atoms past the warp's goals skipped).

A state's padding follows its last goal (spec §2), so an embedding that
stops at a row's goals skips the rest. This counts, on the host backend,
the goals of every row the step policy encodes (each step with k > 1: the
parent and its k children, the memo ignored) for the sample of
`workload_stats.py` (the complete candidate lists of Q test queries, each
candidate a greedy episode, `workload_stats.greedy_rollouts`), and the largest count of the two rows a warp
of the tensor-core policy embeds together (a tile: the parent and 15
children, rows 2i and 2i + 1 of it in one warp) and of a whole tile.

  PYTHONPATH=build/python /usr/bin/python3 bench/proto/goal_counts.py \\
      BUNDLE.pcb DATA_DIR WEIGHTS.safetensors --queries 4 [--seed 0]
"""
import json
import sys

import numpy as np

from workload_stats import greedy_rollouts, open_sample, sample_parser


def main():
    o = sample_parser(__doc__).parse_args()
    lists, _, ev, A = open_sample(o)
    rows = np.zeros(A + 1, np.int64)   # rows by goals
    pairs = np.zeros(A + 1, np.int64)  # a warp's two rows by their larger count
    tiles = np.zeros(A + 1, np.int64)  # a tile's row pairs by its largest count
    for qi, triples in lists:
        for c0 in range(0, len(triples), o.chunk):
            traj = greedy_rollouts(ev, o.weights, triples[c0:c0 + o.chunk])
            states = traj["states"].reshape(-1, A, 3)
            # The highest atom with p >= 0, plus one (padding follows it).
            real = states[:, :, 0] >= 0
            goals = np.where(real.any(1), A - np.argmax(real[:, ::-1], 1), 0)
            k = traj["step_count"].astype(np.int64)
            parent, derived = traj["step_state"], traj["step_derived"]
            for j in np.nonzero(k > 1)[0]:
                n = goals[np.concatenate([[parent[j]], derived[j][:k[j]]])]
                rows += np.bincount(n, minlength=A + 1)
                for t0 in range(0, len(n) - 1, 15):
                    tile = np.concatenate([[n[0]], n[1 + t0:16 + t0]])
                    if len(tile) % 2:
                        tile = np.append(tile, tile[-1])
                    pair = tile.reshape(-1, 2).max(1)
                    pairs += np.bincount(pair, minlength=A + 1)
                    tiles[tile.max()] += len(pair)
        print(f"test query #{qi} done", file=sys.stderr)
    mean = lambda h: float((h * np.arange(A + 1)).sum() / h.sum())
    print(json.dumps(dict(
        bundle=o.bundle, data=o.data, queries=[qi for qi, _ in lists], A=A,
        rows=int(rows.sum()), rows_by_goals=rows.tolist(), mean_goals=mean(rows),
        warp_pairs_by_max=pairs.tolist(), mean_warp_max=mean(pairs),
        mean_tile_max=mean(tiles),
        atoms_kept_by_warp=mean(pairs) / A), indent=1))


if __name__ == "__main__":
    main()
