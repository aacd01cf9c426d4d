"""Rollout throughput: proofc's rollouts against the PyTorch port's (issue 27).

The workload of examples/train_loop.py's REINFORCE update as it stood
before issue 27 (the port's engine from bench/torch, the policy
proofc.torch.Policy): per call, Q train triples and one corruption of each
(2Q triples, seeded), EPISODES sampled episodes per triple (2Q x EPISODES
episodes), actions drawn from softmax(logits), at most D steps. The same
batches, in the same order, go to

  - proofc: one proofc.Evaluator (bundle, dataset, device bound once),
    ``Evaluator.rollouts(weights, triples, positive, episodes=EPISODES,
    seed=..., episode_base=...)``, the trajectories as tensors on the
    device (the table of distinct states and the per-step lists included:
    that output is part of what is timed);
  - the port: ``PortRollouts.run`` (bench/training/port_trainer.py, the
    port trainer's rollouts, as examples/train_loop.py ran them: derive
    with bench/torch/engine.py, the policy's logits, torch.multinomial,
    every step's tensors kept for the learner), on --torch-device (cuda by default: the port's
    fastest; cpu is how examples/train_loop.py ran it).

Each side gets one untimed warm-up call, then --calls timed calls (wall
time, a device synchronize before and after). Per side: episodes/s and
proof steps/s (a step = one action of one episode; the port's steps are
the same count: every live episode takes one action per iteration), and
proofc's own run time (``run_seconds``: the device's episodes without the
Python binding). Prints a table (Markdown) and, with --json, every number.

  PYTHONPATH=<build>/python python3 bench/rollouts/rollouts_bench.py \\
      BUNDLE_OR_PROGRAM DATA WEIGHTS [--device cuda] [--triples 64]
      [--calls 10] [--torch-device cuda] [--json OUT.json]

bench/rollouts/run.sh runs it on the GPU machine (kinship, V10 bundle,
B = 256).
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # bench.torch: the port's loader and engine

import proofc  # noqa: E402
from proofc import safetensors  # noqa: E402
from proofc import torch as proofc_torch  # noqa: E402
from bench.torch import data as port_data  # noqa: E402
from bench.training.port_trainer import PortRollouts  # noqa: E402
from proofc.training.recipe import PROVED  # noqa: E402

EPISODES = 4


def sample_batch(ds, train_set, q, rng):
    """examples/train_loop.py's: Q train triples and one corruption each."""
    positives = [rng.choice(ds.train) for _ in range(q)]
    negatives = []
    for h, r, t in positives:
        while True:
            e = rng.randrange(ds.num_entities)
            c = (e, r, t) if rng.random() < 0.5 else (h, r, e)
            if c not in train_set:
                break
        negatives.append(c)
    return positives, negatives


def sync(device):
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def timed(fn, calls, device):
    """fn(i) once untimed, then `calls` timed calls: (seconds list, results)."""
    fn(0)
    seconds, results = [], []
    for i in range(1, calls + 1):
        sync(device)
        start = time.perf_counter()
        results.append(fn(i))
        sync(device)
        seconds.append(time.perf_counter() - start)
    return seconds, results


def row(name, seconds, episodes, steps, extra=""):
    total = sum(seconds)
    return {"name": name, "calls": len(seconds),
            "median_call_ms": statistics.median(seconds) * 1e3,
            "episodes_per_s": episodes / total, "steps_per_s": steps / total,
            "episodes": episodes, "steps": steps, "note": extra}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("program", help="a bundle (.pcb) or program (.mlir)")
    p.add_argument("data")
    p.add_argument("weights")
    p.add_argument("--device", default="cuda", help="proofc's device")
    p.add_argument("--torch-device", default="cuda",
                   help="the port's device (cuda, cpu, or none to skip it)")
    p.add_argument("--triples", type=int, default=64,
                   help="train triples per call (and as many corruptions)")
    p.add_argument("--calls", type=int, default=10)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--json", help="write every number here")
    a = p.parse_args()

    ds = port_data.load_dataset(a.data)
    train_set = set(ds.train)
    rng = random.Random(0)
    batches = [sample_batch(ds, train_set, a.triples, rng) for _ in range(a.calls + 1)]
    trained = safetensors.read(a.weights)
    rows = []

    # proofc
    opened = time.perf_counter()
    ev = proofc.Evaluator(a.program, a.data, split="valid", queries=1,
                          corruptions=1, device=a.device)
    open_s = time.perf_counter() - opened
    on = ev.device
    weights = {k: torch.from_numpy(v).to(on) for k, v in trained.items()}
    run_s = []

    def proofc_call(i):
        pos, neg = batches[i]
        triples = torch.tensor(pos + neg, dtype=torch.int32)
        positive = torch.tensor([1] * len(pos) + [0] * len(neg), dtype=torch.uint8)
        traj = ev.rollouts(weights, triples, positive, episodes=EPISODES, seed=0,
                           episode_base=i * len(triples) * EPISODES,
                           temperature=a.temperature, sampled=True)
        if i:
            run_s.append(traj.run_seconds)
        return traj.episodes, traj.steps, int((traj.status == 0).sum())

    seconds, results = timed(proofc_call, a.calls, on)
    episodes = sum(r[0] for r in results)
    steps = sum(r[1] for r in results)
    rows.append(row(f"proofc ({on})", seconds, episodes, steps,
                    f"evaluator opened in {open_s:.1f} s"))
    rows.append(row(f"proofc ({on}), run_seconds only", run_s, episodes, steps,
                    "the backend's episodes, without the binding"))
    proofc_proved = sum(r[2] for r in results) / max(episodes, 1)

    # the port
    port_proved = None
    if a.torch_device != "none":
        dev = torch.device(a.torch_device)
        port = PortRollouts(a.data, ev.program, ev.entities, dev)
        policy = proofc_torch.load(a.weights, A=port.A, data=a.data).to(dev)
        generator = torch.Generator(device=dev).manual_seed(0)

        def port_call(i):
            pos, neg = batches[i]
            triples = torch.tensor(pos + neg, dtype=torch.int64,
                                   device=dev).repeat_interleave(EPISODES, 0)
            _, status, depth = port.run(policy, triples, generator)
            # Each live episode takes one action an iteration: its depth.
            return triples.shape[0], int(depth.sum()), int((status == PROVED).sum())

        seconds, results = timed(port_call, a.calls, dev)
        episodes = sum(r[0] for r in results)
        rows.append(row(f"PyTorch port ({dev})", seconds, episodes,
                        sum(r[1] for r in results)))
        port_proved = sum(r[2] for r in results) / max(episodes, 1)

    lines = [f"rollouts: {os.path.basename(a.data)}, {2 * a.triples} triples x "
             f"{EPISODES} episodes per call, {a.calls} calls, temperature "
             f"{a.temperature:g}", "",
             "| rollouts | median call ms | episodes/s | proof steps/s | vs port | note |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    port = next((r for r in rows if r["name"].startswith("PyTorch")), None)
    for r in rows:
        ratio = f"x{r['steps_per_s'] / port['steps_per_s']:.1f}" if port else "-"
        lines.append(f"| {r['name']} | {r['median_call_ms']:.2f} | "
                     f"{r['episodes_per_s']:,.0f} | {r['steps_per_s']:,.0f} | "
                     f"{ratio} | {r['note']} |")
    lines += ["", f"proved episodes: proofc {proofc_proved:.3f}"
              + (f", port {port_proved:.3f}" if port_proved is not None else "")
              + " (trained weights: these should be close; the draws differ)",
              "targets (issue 27): >= 1,000,000 proof steps/s for proofc, >= x100 the port"]
    print("\n".join(lines))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "proofc_proved": proofc_proved,
                       "port_proved": port_proved, "args": vars(a)}, f, indent=2)


if __name__ == "__main__":
    main()
