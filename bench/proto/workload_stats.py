#!/usr/bin/env python3
"""The workload statistics a floor needs (docs/performance.md, "The floor").

A floor counts the rows the policy must encode, with and without the step
memo, and the engine's work: per slot-step the length k of the derived list
(k + 1 rows when k > 1, none when the step has one choice) and the step
memo's key (docs/gpu-kernels.md: the state, plus the candidate's (h, t)
where the step is "relevant"). This program measures them on the host
backend for a sample of a whole-split, every-corruption workload: the
complete candidate lists (both modes, every filtered corruption, the
positive first) of Q test queries drawn at random, each candidate run as a
greedy episode (`Evaluator.rollouts(..., episodes=1, sampled=False)`: spec
§5's proof loop with spec §4's action, the evaluation's own steps).

Memo sharing grows with the pool, so the distinct keys are also counted
after the first 1, 2, 4, ... queries of the sample: the growth says how far
the sample's hit rate is from the whole split's (docs/performance.md says
how it is extrapolated).

  PYTHONPATH=build/python /usr/bin/python3 bench/proto/workload_stats.py \
      BUNDLE.pcb DATA_DIR WEIGHTS.safetensors --queries 4 [--seed 0] \
      [--threads 2] [--json out.json]
"""
import argparse
import json
import random
import sys
import time

import numpy as np


def candidate_lists(data, queries, seed):
    """[(query index, triples [n, 3] int64)], both modes per query, every
    filtered corruption, the positive first (spec §6's lists)."""
    from proofc.vocabulary import read_split, read_vocabulary
    vocab = read_vocabulary(data)
    ent = {n: i for i, n in enumerate(vocab.entities)}
    rel = {n: i for i, n in enumerate(vocab.relations)}
    ids = lambda t: (ent[t[0]], rel[t[1]], ent[t[2]])
    known = set()
    for split in ("train", "valid", "test"):
        known.update(ids(t) for t in read_split(data, split))
    test = [ids(t) for t in read_split(data, "test")]
    picked = sorted(random.Random(seed).sample(range(len(test)), queries))
    E = len(vocab.entities)
    lists = []
    for qi in picked:
        h, r, t = test[qi]
        rows = [(h, r, t)] + [(e, r, t) for e in range(E)
                              if e != h and (e, r, t) not in known]
        rows += [(h, r, t)] + [(h, r, e) for e in range(E)
                               if e != t and (h, r, e) not in known]
        lists.append((qi, np.array(rows, dtype=np.int64)))
    return lists, len(test)


def _mix64(h):
    """murmur3's 64-bit finalizer (fmix64), elementwise on uint64."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


def key64(words):
    """A 64-bit hash of each row of int words: the words chained through
    fmix64, so that two distinct rows collide with probability ~2^-64
    (~n^2/2^65 for n rows). A weighted sum of the words, even with odd
    weights, is not such a hash: with weights c(2i + 1), the multiples of
    one constant that an earlier version used, the sum is c times a small
    integer and distinct states of small ids collide by the thousand
    (kinship's V10 steps: 8,745 hashes for 73,604 distinct keys)."""
    w = np.asarray(words).astype(np.int64).astype(np.uint64)
    h = np.full(w.shape[0], 0x9E3779B97F4A7C15, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(w.shape[1]):
            h = _mix64(h ^ w[:, i])
    return h


def greedy_rollouts(ev, weights, triples):
    """Each candidate of `triples` as one greedy episode (spec §5's loop
    with spec §4's action: the evaluation's own steps): the trajectories'
    tensors (proofc/rollouts.py) as numpy arrays, by name."""
    traj = ev.rollouts(weights, triples, np.zeros(len(triples), np.uint8),
                       episodes=1, sampled=False)
    arr = lambda x: np.asarray(x.cpu() if hasattr(x, "cpu") else x)
    names = ("states", "depth", "status", "step_count", "step_episode",
             "step_state", "step_derived")
    return {name: arr(getattr(traj, name)) for name in names}


def chunk_stats(ev, weights, triples, A):
    """Per step of each greedy episode: k, whether it is the start step,
    its memo key, its state g [A * 3] and episode ep; per episode: depth
    and status."""
    traj = greedy_rollouts(ev, weights, triples)
    states = traj["states"].reshape(-1, A * 3)
    depth, status = traj["depth"], traj["status"]
    k = traj["step_count"].astype(np.int64)
    ep = traj["step_episode"]
    g = states[traj["step_state"]]
    start = np.zeros(len(k), bool)
    start[np.concatenate([[0], np.cumsum(depth)[:-1]])] = True
    # Relevant (memo.cu): the candidate's own fact (r, h, t) unifies with the
    # state's first goal: same predicate, each constant argument equal to the
    # candidate's, a goal p(V, V) only when h = t.
    h, r, t = (triples[ep, i] for i in range(3))
    p, a0, a1 = g[:, 0], g[:, 1], g[:, 2]
    relevant = ((p == r) & ((a0 < 0) | (a0 == h)) & ((a1 < 0) | (a1 == t)) &
                ~((a0 < 0) & (a0 == a1) & (h != t)))
    ht = np.where(relevant[:, None], np.stack([h, t], 1), -1)
    keys = key64(np.concatenate([g, ht], axis=1))
    return dict(k=k, start=start, keys=keys, depth=depth, status=status, g=g,
                ep=ep)


def _study_parser(doc):
    """BUNDLE DATA_DIR WEIGHTS [--threads N]: what every host study takes."""
    a = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    a.add_argument("bundle")
    a.add_argument("data")
    a.add_argument("weights")
    a.add_argument("--threads", type=int, default=2)
    return a


def v10_arguments(doc):
    """The command line of the V10 studies (distinct_rows.py,
    tile_counts.py): BUNDLE DATA_DIR WEIGHTS [--threads N]."""
    return _study_parser(doc).parse_args()


def sample_parser(doc):
    """The command line of the studies of a sample of whole candidate
    lists (this script, goal_counts.py), before their own options:
    BUNDLE DATA_DIR WEIGHTS [--queries Q] [--seed S] [--threads N]
    [--chunk C]."""
    a = _study_parser(doc)
    a.add_argument("--queries", type=int, default=4)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--chunk", type=int, default=8192)
    return a


def open_sample(o):
    """sample_parser's arguments opened: the sample's (test query index,
    triples) lists, the test queries, a host Evaluator, the bundle's A."""
    import proofc  # here, so that key64 imports without the built package
    lists, test_queries = candidate_lists(o.data, o.queries, o.seed)
    ev = proofc.Evaluator(o.bundle, o.data, device="cpu", threads=o.threads)
    with open(o.bundle) as f:
        A = json.load(f)["program"]["shape"]["A"]
    return lists, test_queries, ev, A


def v10_computed_steps(bundle, data, weights, threads):
    """V10's workload (100 test queries, 100 corruptions) on the host
    backend: (evaluator, candidate triples, chunk_stats of every step, the
    indices of the steps the memo computes with k > 1: the start steps and
    each key's first occurrence)."""
    import proofc
    ev = proofc.Evaluator(bundle, data, device="cpu", threads=threads,
                          queries=100, corruptions=100)
    cand, queries = ev.candidates, np.asarray(ev.queries)
    triples = queries[np.asarray(cand["query"])].astype(np.int64)
    mode, entity = np.asarray(cand["mode"]), np.asarray(cand["entity"])
    triples[mode == 0, 0] = entity[mode == 0]
    triples[mode == 1, 2] = entity[mode == 1]
    st = chunk_stats(ev, weights, triples, ev.program["A"])
    k, keys, start = st["k"], st["keys"], st["start"]
    computed = start.copy()
    _, first = np.unique(keys[~start], return_index=True)
    computed[np.nonzero(~start)[0][first]] = True
    computed &= k > 1
    return ev, triples, st, np.nonzero(computed)[0]


def main():
    a = sample_parser(__doc__)
    a.add_argument("--json")
    o = a.parse_args()
    started = time.time()
    lists, test_queries, ev, A = open_sample(o)
    total = dict(candidates=0, steps=0, start_steps=0, k_sum=0, k_gt1=0,
                 rows=0, rows_start=0, proved=0, failed=0, truncated=0)
    # The step policy's one-warp tiles the memo's computed steps take
    # (tile_counts.py's counts): a tile the parent and 15 children as
    # built; 16 children where the parent's encoding is known, from the
    # slot's own computed step before, or also for a start state.
    tiles = dict(built=0, own_parent=0, start_parents=0, packed=0)
    seen, keyed_rows, growth = set(), 0, []
    derived_start = derived_keys = 0
    for n, (qi, triples) in enumerate(lists, start=1):
        for c0 in range(0, len(triples), o.chunk):
            s = chunk_stats(ev, o.weights, triples[c0:c0 + o.chunk], A)
            rows = np.where(s["k"] > 1, s["k"] + 1, 0)
            total["candidates"] += len(s["depth"])
            total["steps"] += len(s["k"])
            total["start_steps"] += int(s["start"].sum())
            total["k_sum"] += int(s["k"].sum())
            total["k_gt1"] += int((s["k"] > 1).sum())
            total["rows"] += int(rows.sum())
            total["rows_start"] += int(rows[s["start"]].sum())
            derived_start += int(s["k"][s["start"]].sum())
            for i, name in enumerate(("proved", "failed", "truncated")):
                total[name] += int((s["status"] == i).sum())
            # The memo's misses: a key's first occurrence in the sample.
            rest = ~s["start"]
            keys, first = np.unique(s["keys"][rest], return_index=True)
            new = ~np.isin(keys, np.fromiter(seen, np.uint64, len(seen))) \
                if seen else np.ones(len(keys), bool)
            computed = s["start"].copy()
            computed[np.nonzero(rest)[0][first[new]]] = True
            computed &= s["k"] > 1
            before = np.roll(computed, 1)  # step j - 1: the same episode
            known_own = before & ~s["start"]
            known_all = known_own | s["start"]
            kc = s["k"][computed]
            t15, t16 = -(-kc // 15), -(-kc // 16)
            tiles["built"] += int(t15.sum())
            tiles["own_parent"] += int(np.where(known_own[computed], t16, t15).sum())
            tiles["start_parents"] += int(np.where(known_all[computed], t16, t15).sum())
            tiles["packed"] += int(-(-kc.sum() // 16))
            seen.update(keys[new].tolist())
            keyed_rows += int(rows[rest][first[new]].sum())
            derived_keys += int(s["k"][rest][first[new]].sum())
        if n & (n - 1) == 0 or n == len(lists):
            growth.append(dict(queries=n, candidates=total["candidates"],
                               distinct_keys=len(seen),
                               computed_steps=total["start_steps"] + len(seen),
                               rows_memo=total["rows_start"] + keyed_rows))
        print(f"query {n}/{len(lists)} (test #{qi}): {total['candidates']} "
              f"candidates, {total['steps']} steps, {len(seen)} keys, "
              f"{time.time() - started:.0f} s", file=sys.stderr)
    t = total
    out = dict(bundle=o.bundle, data=o.data, weights=o.weights,
               sample=dict(queries=[qi for qi, _ in lists], seed=o.seed,
                           of_test_queries=test_queries),
               totals=t, distinct_keys=len(seen),
               mean_depth=t["steps"] / t["candidates"],
               mean_k=t["k_sum"] / t["steps"],
               k_gt1_fraction=t["k_gt1"] / t["steps"],
               rows_per_candidate=t["rows"] / t["candidates"],
               computed_steps=t["start_steps"] + len(seen),
               rows_memo=t["rows_start"] + keyed_rows,
               derived_memo=derived_start + derived_keys,
               tiles=tiles, growth=growth, seconds=time.time() - started)
    text = json.dumps(out, indent=1)
    print(text)
    if o.json:
        with open(o.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
