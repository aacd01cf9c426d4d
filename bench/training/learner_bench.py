#!/usr/bin/env python3
"""The learner's cost in one REINFORCE update, every step against the weighted steps only.

proofc train's update spends most of its time in the learner, not in the
rollouts (bench/RESULTS.md, "Time to quality"). This takes one update's
batch the way the trainer draws it (Q train triples and one corruption of
each, `--episodes` sampled episodes per triple, the given weights) and times
the learner's forward and backward pass

  - over every step: Policy.log_prob(traj), the whole state table encoded;
  - over the weighted steps: recipe.weighted_steps(...) and
    Policy.log_prob(traj, steps=...), the states those steps name encoded
    (what proofc train does since issue 27's last stop);

each with torch's deterministic algorithms on (as proofc train runs on
CUDA) and off; the median of --repeats after two warm-up passes. Prints
the batch's sizes, the share of episodes with a nonzero advantage and one
line per case.

  PYTHONPATH=<build>/python python3 bench/training/learner_bench.py \\
      BUNDLE_OR_PROGRAM DATA WEIGHTS [--device cuda] [--triples 512]

On the GPU machine (after bench/prepare.sh here; carry .deps and .gpudata):
scripts/gpu-build.sh LOG proofc_python, then
PYTHONPATH=build-gpu-device/python PROOFC_BIN_DIR=build-gpu-device/bin
python3 bench/training/learner_bench.py .gpudata/bundles/v10-b4096.pcb
.gpudata/data/kinship .gpudata/weights/kinship.safetensors.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # as proofc train sets it

import torch  # noqa: E402

import proofc  # noqa: E402
from proofc.torch import load  # noqa: E402
from proofc.training import recipe  # noqa: E402
from proofc.vocabulary import read_split  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program", help="the eval program (.mlir) or a bundle (.pcb)")
    ap.add_argument("data", help="dataset directory")
    ap.add_argument("weights", help="the policy's weights (safetensors)")
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--triples", type=int, default=512, help="Q (default 512, the GPU default)")
    ap.add_argument("--episodes", type=int, default=4, help="episodes per triple (default 4)")
    ap.add_argument("--repeats", type=int, default=9, help="timed passes per case (default 9)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    ev = proofc.Evaluator(args.program, args.data, split="valid", queries=1,
                          device=args.device)
    device = torch.device(ev.device)
    policy = load(args.weights, data=args.data).to(device)
    triples = recipe.TrainTriples.from_names(read_split(args.data, "train"), ev.entities,
                                             ev.relations)
    Q = args.triples
    positives, corruptions = triples.draw(np.random.default_rng(args.seed), Q)
    batch = torch.from_numpy(np.concatenate([positives, corruptions]))
    positive = torch.arange(2 * Q) < Q
    traj = ev.rollouts(policy.state_dict(), batch, positive, episodes=args.episodes,
                       seed=args.seed, sampled=True)
    reward = recipe.rewards(traj.status, traj.depth, traj.positive)
    advantage = recipe.advantages(reward, traj.triple, groups=2 * Q)
    weighted = recipe.weighted_steps(advantage, traj.step_episode, traj.step_count)
    listed = int((traj.step_derived >= 0).sum())
    print(f"{ev.device}: {traj.episodes} episodes, {traj.steps} steps, {traj.num_states} "
          f"distinct states, {listed} listed derived states; episodes with a nonzero "
          f"advantage {float((advantage != 0).float().mean()):.3f}; weighted steps "
          f"{weighted.numel()} of {traj.steps}")

    def sync():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def learner(only_weighted: bool):
        policy.zero_grad(set_to_none=True)
        if only_weighted:
            steps = recipe.weighted_steps(advantage, traj.step_episode, traj.step_count)
            logp = policy.log_prob(traj, steps=steps)
            loss = recipe.reinforce_loss(logp, traj.step_episode[steps], advantage,
                                         traj.episodes)
        else:
            logp = policy.log_prob(traj)
            loss = recipe.reinforce_loss(logp, traj.step_episode, advantage, traj.episodes)
        loss.backward()
        sync()

    was = torch.are_deterministic_algorithms_enabled()
    try:
        for deterministic in (True, False):
            torch.use_deterministic_algorithms(deterministic, warn_only=True)
            for only_weighted in (False, True):
                learner(only_weighted)
                learner(only_weighted)
                seconds = []
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    learner(only_weighted)
                    seconds.append(time.perf_counter() - start)
                print(f"learner, {'weighted steps' if only_weighted else 'every step   '}, "
                      f"deterministic algorithms {'on ' if deterministic else 'off'}: median "
                      f"{1e3 * statistics.median(seconds):.2f} ms")
    finally:
        torch.use_deterministic_algorithms(was)
    return 0


if __name__ == "__main__":
    sys.exit(main())
