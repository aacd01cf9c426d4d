#!/usr/bin/env python3
"""The port trainer: REINFORCE with the PyTorch port's rollouts, as the shipped weights were trained.

This is the baseline of issue 27's time-to-quality measurement: what
examples/train_loop.py ran before `proofc train` existed (commit ac5ef14),
revived as a bench program so that both trainers' learning curves can be
measured on one machine. The rollouts are sampled with bench/torch's §3
engine (bench/torch/engine.py) and proofc.torch.Policy (torch.multinomial
over softmax(logits), one engine call and one policy call per proof step,
on --device); the learner is the same Policy. Everything else is `proofc
train --variant rl`'s, reused rather than copied:

- the batches (proofc.training.recipe.TrainTriples.draw from numpy's
  PCG64(seed): Q train triples and one corruption each), the rewards, the
  baseline and advantages, and the loss (recipe.rewards, recipe.advantages,
  recipe.reinforce_loss; the loss is accumulated step by step, as the port
  did, which is the same gradient), Adam (3e-3, betas 0.9/0.999), gradient
  norm clipped at 5, an update with no nonzero advantage skipped by Adam;
- the defaults: Q = 512 on CUDA and 64 on the CPU, 4 episodes per triple,
  the program's D steps at most (proofc.training.options);
- the initial weights (proofc init-weights --seed SEED);
- the checkpoints: proofc.training.checkpoints.Schedule, i.e. the early
  geometric series (updates 1, 2, 3, 4, 6, 8, 11, ...) and K evenly spaced
  points of the budget (4 on CUDA, 6 on the CPU) and the last update, each
  scored by ONE proofc.Evaluator (valid split, the first 300 queries, 100
  corruptions, seed 0, greedy: the README's checkpoint choice);
- the budget: training seconds (rollouts and learner), scoring excluded;
  the run stops after the update that ends past it.

Writes the best checkpoint's weights (--out, with init-weights' metadata),
and a JSON document (--json) with the learning curve: per checkpoint the
wall seconds since the start (scoring included), the training seconds, the
updates, the episodes and the valid MRR; the run's timings (draws,
rollouts, learner, scoring); with --test, the chosen checkpoint's test MRR
by the README's protocol (bench/training/scoring.py).

The actions come from a torch.Generator seeded with SEED on the device, so
with --updates a run repeats on one device; with --budget the updates that
fit depend on the machine.

    PYTHONPATH=build/python:. python3 -m bench.training.port_trainer \\
        BUNDLE_OR_MLIR --data DIR --budget 120 --device cpu \\
        --out port.safetensors --json port.json [--test]
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)  # bench.torch: the port's loader and engine

import proofc  # noqa: E402
from proofc import safetensors  # noqa: E402
from proofc.torch import Policy  # noqa: E402
from proofc.training import recipe  # noqa: E402
from proofc.training.checkpoints import Schedule, best_index  # noqa: E402
from proofc.training.options import TrainOptions  # noqa: E402
from proofc.training.trainer import (ADAM_BETAS, GRAD_CLIP, VALID_CORRUPTIONS,  # noqa: E402
                                     VALID_SEED)
from proofc.vocabulary import read_split  # noqa: E402
from bench.torch import data as port_data  # noqa: E402
from bench.torch import engine as port_engine  # noqa: E402
from bench.training.scoring import mrrs_on_test  # noqa: E402

CURVE_VERSION = 1
FAILED = 1  # any status but recipe.PROVED earns no reward


def _sync(device: torch.device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class PortRollouts:
    """Sampled episodes of spec §5 on the port's engine (no gradient): per
    step the live episodes' rows, states, derived lists, counts and actions;
    per episode its status (PROVED or not) and depth."""

    def __init__(self, data: str, program: dict, entities, device: torch.device):
        ds = port_data.load_dataset(data)
        if list(ds.entities) != list(entities):
            raise SystemExit("port_trainer: the port's entity ids differ from proofc's")
        self.A, self.D = program["A"], program["D"]
        self.shape, self.kb = port_engine.build_engine(ds, self.A, program["S"], False, device)
        self.device = device

    def run(self, policy: Policy, triples: torch.Tensor, generator: torch.Generator):
        N, R = triples.shape[0], self.shape.R
        G = port_engine.initial_states(triples, self.kb.pad_atom, self.A)
        live = torch.ones(N, dtype=torch.bool, device=self.device)
        depth = torch.zeros(N, dtype=torch.int64, device=self.device)
        proved = torch.zeros(N, dtype=torch.bool, device=self.device)
        steps = []
        with torch.no_grad():
            for _ in range(self.D):
                rows = torch.nonzero(live).flatten()
                if rows.numel() == 0:
                    break
                derived, count = port_engine.derive(self.kb, self.shape, G[rows], triples[rows])
                logits = policy(G[rows], derived, count, compact=True)
                action = torch.multinomial(torch.softmax(logits, -1), 1,
                                           generator=generator).squeeze(1)
                steps.append((rows, G[rows], derived, count, action))
                G[rows] = derived[torch.arange(rows.numel(), device=self.device), action]
                depth[rows] += 1
                first = G[rows, 0, 0]
                proved[rows] = first == R
                live[rows] = first < R  # TRUE is R, FALSE is R + 1
        status = torch.where(proved, recipe.PROVED, FAILED)
        return steps, status, depth


class PortTrainer:
    """One run: the evaluator (valid scoring), the policy and Adam, the
    port's rollouts, the checkpoint schedule, the curve and the timings."""

    def __init__(self, args):
        self.args = args
        self.o = TrainOptions(updates=args.updates, budget=args.budget, seed=args.seed,
                              device=args.device, triples_per_update=args.triples_per_update,
                              episodes=args.episodes, lr=args.lr, checkpoints=args.checkpoints,
                              valid_queries=args.valid_queries, variant="rl").check()
        self.ev = proofc.Evaluator(args.program, args.data, split="valid",
                                   queries=args.valid_queries, corruptions=VALID_CORRUPTIONS,
                                   seed=VALID_SEED, device=args.device)
        self.o.resolve(self.ev.device)
        self.device = torch.device(self.ev.device)
        self.policy = Policy.for_evaluator(self.ev, seed=args.seed).to(self.device)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=self.o.lr,
                                          betas=ADAM_BETAS)
        self.triples = recipe.TrainTriples.from_names(read_split(args.data, "train"),
                                                      self.ev.entities, self.ev.relations)
        self.rollouts = PortRollouts(args.data, self.ev.program, self.ev.entities, self.device)
        self.rng = np.random.default_rng(self.o.seed)
        self.generator = torch.Generator(device=self.device).manual_seed(self.o.seed)
        self.update = 0
        self.train_seconds = 0.0
        self.timings = {"draws": 0.0, "rollouts": 0.0, "learner": 0.0, "scoring": 0.0}
        self.curve = []
        self.best_weights = None
        self.started = time.monotonic()  # again by run(): the curve's clock starts there

    def episodes(self) -> int:
        return self.update * 2 * self.o.triples_per_update * self.o.episodes

    def score(self):
        start = time.monotonic()
        with torch.no_grad():
            mrr = float(self.ev.evaluate(self.policy.state_dict())["metrics"]["both"]["mrr"])
        self.timings["scoring"] += time.monotonic() - start
        self.curve.append({"seconds": round(time.monotonic() - self.started, 3),
                           "train_seconds": round(self.train_seconds, 3),
                           "update": self.update, "episodes": self.episodes(),
                           "valid_mrr": mrr})
        if best_index([c["valid_mrr"] for c in self.curve]) == len(self.curve) - 1:
            self.best_weights = {k: v.detach().to("cpu", copy=True)
                                 for k, v in self.policy.state_dict().items()}
        print(f"port trainer: update {self.update} ({self.train_seconds:.1f} s of training): "
              f"valid MRR {mrr:.4f}", file=sys.stderr, flush=True)

    def step(self):
        Q, E = self.o.triples_per_update, self.o.episodes
        t0 = time.monotonic()
        positives, corruptions = self.triples.draw(self.rng, Q)
        batch = torch.from_numpy(np.concatenate([positives, corruptions])).to(self.device)
        triple = torch.arange(2 * Q, device=self.device).repeat_interleave(E)
        t1 = time.monotonic()
        steps, status, depth = self.rollouts.run(self.policy, batch[triple], self.generator)
        _sync(self.device)
        t2 = time.monotonic()
        count = 2 * Q * E
        reward = recipe.rewards(status, depth, triple < Q)
        advantage = recipe.advantages(reward, triple, groups=2 * Q)
        self.optimizer.zero_grad(set_to_none=True)
        stepped = False
        for rows, G, derived, n, action in steps:
            keep = advantage[rows] != 0
            if not bool(keep.any()):
                continue
            logits = self.policy(G[keep], derived[keep], n[keep], compact=True)
            logp = torch.log_softmax(logits, -1).gather(1, action[keep].unsqueeze(1)).squeeze(1)
            recipe.reinforce_loss(logp, rows[keep], advantage, count).backward()
            stepped = True
        if stepped:
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), GRAD_CLIP)
        self.optimizer.step()
        _sync(self.device)
        t3 = time.monotonic()
        self.timings["draws"] += t1 - t0
        self.timings["rollouts"] += t2 - t1
        self.timings["learner"] += t3 - t2
        self.train_seconds += t3 - t0
        self.update += 1

    def run(self):
        o = self.o
        self.started = time.monotonic()  # as proofc train's: after loading, before init's score
        schedule = Schedule(o.updates, o.budget if o.updates is None else None, o.checkpoints,
                            early=True)
        self.score()
        while True:
            self.step()
            last = (o.updates is not None and self.update >= o.updates) or \
                (o.budget is not None and self.train_seconds >= o.budget)
            if schedule.due(self.update, self.train_seconds, last):
                self.score()
            if last:
                break

    def record(self) -> dict:
        chosen = best_index([c["valid_mrr"] for c in self.curve])
        return {
            "version": CURVE_VERSION,
            "trainer": "port",
            "program": self.ev.program["name"],
            "data": self.args.data,
            "device": self.ev.device,
            "options": self.o.as_dict(),
            "valid_queries": int(len(self.ev.queries)),
            "updates": self.update,
            "episodes": self.episodes(),
            "train_seconds": round(self.train_seconds, 3),
            "episodes_per_second": self.episodes() / self.train_seconds
            if self.train_seconds > 0 else None,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "curve": self.curve,
            "chosen": dict(self.curve[chosen]),
        }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("program", help="the eval program (.mlir) or its bundle (.pcb)")
    p.add_argument("--data", required=True)
    p.add_argument("--out", help="the best checkpoint's weights (safetensors)")
    p.add_argument("--json", help="the learning curve and timings (JSON)")
    p.add_argument("--budget", type=float, help="training seconds (scoring excluded)")
    p.add_argument("--updates", type=int, help="REINFORCE updates (with --budget: whichever first)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--triples-per-update", type=int, help="Q (default 512 on CUDA, 64 on the CPU)")
    p.add_argument("--episodes", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--checkpoints", type=int, help="evenly spaced points (4 CUDA, 6 CPU)")
    p.add_argument("--valid-queries", type=int, default=300)
    p.add_argument("--test", action="store_true",
                   help="score the chosen checkpoint on the test split (the README's protocol)")
    args = p.parse_args(argv)
    try:
        trainer = PortTrainer(args)
        with trainer.ev:
            trainer.run()
            record = trainer.record()
    except proofc.Error as e:
        raise SystemExit(f"port_trainer: {e}")
    record["seconds"] = round(time.monotonic() - trainer.started, 3)
    if args.out:
        safetensors.write(args.out, trainer.best_weights,
                          safetensors.weights_metadata(record["program"], args.data))
        record["output"] = args.out
    if args.test:
        record["test_mrr"] = mrrs_on_test(args.program, args.data, [trainer.best_weights],
                                       args.device)[0]
    text = json.dumps(record, indent=2) + "\n"
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text)
    c = record["chosen"]
    print(f"port trainer: {record['updates']} updates, {record['episodes']} episodes in "
          f"{record['train_seconds']:.1f} s; best valid MRR {c['valid_mrr']:.4f} (update "
          f"{c['update']})" + (f", test MRR {record['test_mrr']:.4f}" if args.test else ""),
          file=sys.stderr)


if __name__ == "__main__":
    main()
