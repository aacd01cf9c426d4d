"""proofc.train: REINFORCE on a policy program, rollouts from proofc, the learner in PyTorch.

One `proofc.Evaluator` is opened for the run (the valid split's first
`valid_queries` queries, 100 corruptions per query and side, seed 0, facts =
train.tsv: the README's checkpoint choice) and serves both halves: its
`rollouts()` runs the sampled episodes of each update on its device and
returns the trajectories there, and its `evaluate()` scores the checkpoints
(greedy, as `proofc run`). The learner is `proofc.torch.Policy` on the same
device: `log_prob(trajectories, steps)` re-encodes, with autograd, the states
named by the steps whose loss term can be nonzero (recipe.weighted_steps),
and recipe.py turns outcomes into the loss (docs/training.md).

Determinism: with `updates`, every draw comes from seeded generators -- the
train triples and corruptions from numpy's PCG64(seed), the actions from the
engine's counter-based generator keyed by (seed, episode, step) with the
episode numbers advancing by the update's episode count -- and nothing reads
the clock but the log's timings, so two runs on one device write the same
file. With `budget` the run stops after the update that ends past the budget
of training seconds (scoring excluded), so the result depends on the speed.
"""

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np
import torch

from .. import safetensors
from .._evaluator import Evaluator
from ..errors import Error, escape
from ..torch import Policy, load as load_policy
from ..vocabulary import read_split
from . import recipe, search
from .checkpoints import Schedule, ScoredWeights, best_index, weights_digest
from .imitation import IMITATION_WEIGHT, Imitation
from .options import TrainOptions, check_paths
from .progress import Progress

LOG_VERSION = 3  # 3: a checkpoint's same_weights_as
VALID_CORRUPTIONS = 100
VALID_SEED = 0
GRAD_CLIP = 5.0
ADAM_BETAS = (0.9, 0.999)
IMITATION_SHARE = 0.2  # of variant il's budget
# Where a variant's time goes (its log entry's `timings`, docs/training.md):
# disjoint parts, all but scoring summing to its train_seconds.
TIMINGS = ("search", "imitation_batches", "imitation_steps", "draws", "rollouts", "learner",
           "scoring")


@dataclass
class TrainResult:
    """What a run kept: the chosen checkpoint's weights (CPU tensors, the
    saved file's), its update number and valid MRR, and the run's log (the
    JSON written to `log`)."""
    weights: Dict[str, torch.Tensor]
    update: int
    valid_mrr: float
    log: Dict[str, Any] = field(repr=False)
    out: str = ""
    checkpoint: str = ""  # its name, variant:point (e.g. "rl:rl32", "il:imitation")


def _initial_policy(evaluator: Evaluator, options: TrainOptions, data: str) -> Policy:
    expected = {name: tuple(shape) for name, (shape, _) in
                evaluator.expected_tensors().items()}
    where = f"@{evaluator.program['name']}"
    try:
        policy = Policy.for_evaluator(evaluator, seed=options.seed if options.init is None
                                      else None)
    except Error as e:
        raise Error(f"{where}: proofc train trains the mlp-dot policy of spec §4, whose "
                    f"tensors this program does not take: {e}") from None
    if options.init is not None:
        loaded = load_policy(options.init, data=data)
        got = {k: tuple(v.shape) for k, v in loaded.state_dict().items()}
        for name in sorted(set(got) | set(expected)):
            if got.get(name) != expected.get(name):
                has = list(got[name]) if name in got else "no such tensor"
                needs = list(expected[name]) if name in expected else "no such tensor"
                raise Error(f"--init {escape(options.init)}: tensor '{name}' has shape {has}, "
                            f"but {where} on {escape(data)} needs {needs}")
        policy.load_state_dict(loaded.state_dict())
    return policy


def _write_text_atomically(path: str, text: str):
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _deterministic_torch(device: str):
    """On CUDA, torch's deterministic algorithms for the run (the backward
    of the learner's gathers accumulates with atomics otherwise), restored
    after; cuBLAS gets a fixed workspace unless the environment chose one
    (read when cuBLAS starts). The CPU's kernels are deterministic as they
    are."""
    if not device.startswith("cuda"):
        yield
        return
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    enabled = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)


class _Checkpoints:
    """Scores weights with the evaluator (a checkpoint) and keeps the best
    of the whole run (every variant)."""

    def __init__(self, evaluator: Evaluator, progress: Progress):
        self.ev, self.progress = evaluator, progress
        self.started = time.monotonic()
        self.eval_seconds = 0.0
        self.list: List[Dict[str, Any]] = []
        self.best_weights: Optional[Dict[str, torch.Tensor]] = None
        self.scored = ScoredWeights()

    def score(self, policy: Policy, entry: Dict[str, Any], what: Optional[str] = None):
        start = time.monotonic()
        weights = {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items()}
        digest = weights_digest({k: v.numpy() for k, v in weights.items()})
        earlier = self.scored.find(digest)
        if earlier is None:
            with torch.no_grad():
                report = self.ev.evaluate(policy.state_dict())
            mrr = float(report["metrics"]["both"]["mrr"])
            self.scored.add(digest, entry["name"], mrr)
        else:
            mrr = earlier[1]  # the same weights score the same (checkpoints.py)
        self.eval_seconds += time.monotonic() - start
        same_as = earlier[0] if earlier else None
        entry = dict(entry, valid_mrr=mrr, seconds=round(time.monotonic() - self.started, 3),
                     same_weights_as=same_as, chosen=False)
        self.list.append(entry)
        best = best_index([c["valid_mrr"] for c in self.list]) == len(self.list) - 1
        if best:
            self.best_weights = weights
        self.progress.checkpoint(entry["update"], mrr, entry["episodes"],
                                 entry["train_seconds"], best, what, same_as=same_as)


class _Variant:
    """One variant of the recipe (`rl`, or `il`: search, imitation, then
    REINFORCE with the imitation loss added), from the initial weights."""

    def __init__(self, name: str, evaluator: Evaluator, initial: Dict[str, torch.Tensor],
                 triples: recipe.TrainTriples, options: TrainOptions,
                 checkpoints: _Checkpoints, progress: Progress):
        self.name, self.ev, self.triples, self.o = name, evaluator, triples, options
        self.checkpoints, self.progress = checkpoints, progress
        device = torch.device(evaluator.device)
        self.policy = Policy.for_evaluator(evaluator, seed=0).to(device)
        self.policy.load_state_dict(initial)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=options.lr,
                                          betas=ADAM_BETAS)
        # One stream per purpose, so that the variants and phases draw
        # independently of each other's lengths (rl's stays PCG64(seed)).
        self.rng = np.random.default_rng(options.seed)
        self.imitation_rng = np.random.default_rng([options.seed, 1])
        self.imitation: Optional[Imitation] = None
        self.imitation_steps = 0
        self.episode_base = 0
        self.update = 0
        self.train_seconds = 0.0
        self.timings = dict.fromkeys(TIMINGS, 0.0)
        self.summary: Dict[str, Any] = {"variant": name}
        # Episodes since the last checkpoint (train, train proved, corruptions,
        # corruptions proved), summed on the device and read when scoring.
        self._since = torch.zeros(4, dtype=torch.int64, device=device)

    def _episodes(self) -> int:
        return self.update * 2 * self.o.triples_per_update * self.o.episodes

    def score(self, point: str, what: Optional[str] = None):
        start = time.monotonic()
        train, train_proved, corruptions, corruptions_proved = self._since.tolist()
        self.checkpoints.score(self.policy, {
            "variant": self.name,
            "name": f"{self.name}:{point}",
            "update": self.update,
            "imitation_steps": self.imitation_steps,
            "episodes": self._episodes(),
            "train_proved": train_proved / train if train else None,
            "corruptions_proved": corruptions_proved / corruptions if corruptions else None,
            "train_seconds": round(self.train_seconds, 3),
        }, what)
        self._since.zero_()
        self.timings["scoring"] += time.monotonic() - start

    def _sync(self):
        """Waits for the device's queued work (CUDA), once per update or
        imitation step, so that the host's clock times it (the next
        rollouts would wait for it anyway)."""
        if self.policy.pred_emb.device.type == "cuda":
            torch.cuda.synchronize(self.policy.pred_emb.device)

    def _imitation_loss(self) -> torch.Tensor:
        start = time.monotonic()
        batch = self.imitation.batch(self.imitation_rng, self.o.imitation_batch)
        self.timings["imitation_batches"] += time.monotonic() - start
        return Imitation.loss(self.policy, batch)

    def warm_start(self, budget: Optional[float]):
        """Variant il's search and imitation (imitation.py, search.py)."""
        start = time.monotonic()
        found = search.search(self.ev, self.triples.triples, seed=self.o.seed)
        steps = search.proof_steps(self.ev, self.triples.triples, found)
        seconds = time.monotonic() - start
        self.train_seconds += seconds
        self.timings["search"] += seconds
        self.summary["search"] = {"triples": len(self.triples), "proofs": found.found,
                                  "proof_steps": len(steps), "seconds": round(seconds, 3)}
        self.progress.note(f"search: a proof for {found.found} of {len(self.triples)} train "
                           f"triples, {len(steps)} steps to imitate ({seconds:.1f} s)")
        if len(steps) == 0:
            return
        self.imitation = Imitation(steps, self.ev.device)
        count = self.o.imitation_count()
        # 20 % of the budget for the imitation itself, after the search.
        limit = self.train_seconds + IMITATION_SHARE * budget if budget is not None else None
        first = last = None  # the first and the last batch's loss, read at the end
        while (count is None or self.imitation_steps < count) and \
                (limit is None or self.train_seconds < limit):
            start = time.monotonic()
            batches = self.timings["imitation_batches"]
            self.optimizer.zero_grad(set_to_none=True)
            loss = self._imitation_loss()
            loss.backward()
            self.optimizer.step()
            last = loss.detach()
            first = last if first is None else first
            self.imitation_steps += 1
            self._sync()
            seconds = time.monotonic() - start
            self.train_seconds += seconds
            self.timings["imitation_steps"] += \
                seconds - (self.timings["imitation_batches"] - batches)
        self.summary["imitation"] = {"steps": self.imitation_steps,
                                     "batch": self.o.imitation_batch,
                                     "first_loss": None if first is None else float(first),
                                     "last_loss": None if last is None else float(last)}
        self.score("imitation", "the end of imitation")

    def step(self) -> float:
        """One REINFORCE update (recipe.py), with the imitation loss added
        (weight 0.5) when the variant imitates; returns its seconds, the sum
        of the parts it adds to the timings."""
        Q, episodes = self.o.triples_per_update, self.o.episodes
        t0 = time.monotonic()
        positives, corruptions = self.triples.draw(self.rng, Q)
        batch = torch.from_numpy(np.concatenate([positives, corruptions]))
        positive = torch.arange(2 * Q) < Q
        t1 = time.monotonic()
        traj = self.ev.rollouts(self.policy.state_dict(), batch, positive, episodes=episodes,
                                seed=self.o.seed, episode_base=self.episode_base,
                                temperature=1.0, sampled=True)
        t2 = time.monotonic()
        batches = self.timings["imitation_batches"]
        count = 2 * Q * episodes
        self.episode_base += count
        reward = recipe.rewards(traj.status, traj.depth, traj.positive)
        advantage = recipe.advantages(reward, traj.triple, groups=2 * Q)
        self.optimizer.zero_grad(set_to_none=True)
        loss = None
        steps = recipe.weighted_steps(advantage, traj.step_episode, traj.step_count)
        if steps.numel():
            logp = self.policy.log_prob(traj, steps=steps)
            loss = recipe.reinforce_loss(logp, traj.step_episode[steps], advantage, count)
        if self.imitation is not None:
            imitation = IMITATION_WEIGHT * self._imitation_loss()
            loss = imitation if loss is None else loss + imitation
        if loss is not None:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), GRAD_CLIP)
        self.optimizer.step()
        proved = (traj.status == recipe.PROVED)
        is_positive = traj.positive.bool()
        self._since += torch.stack([is_positive.sum(), (proved & is_positive).sum(),
                                    (~is_positive).sum(), (proved & ~is_positive).sum()])
        self.update += 1
        self._sync()
        t3 = time.monotonic()
        self.timings["draws"] += t1 - t0
        self.timings["rollouts"] += t2 - t1
        self.timings["learner"] += t3 - t2 - (self.timings["imitation_batches"] - batches)
        return t3 - t0

    def run(self):
        o = self.o
        budget = o.variant_budget()
        self.progress.variant = self.name if len(o.variants()) > 1 or self.name == "il" \
            else None
        self.score("init")
        if self.name == "il":
            self.warm_start(budget)
        offset = self.train_seconds  # REINFORCE's schedule counts its own seconds
        schedule = Schedule(o.updates, budget - offset if o.updates is None else None,
                            o.checkpoints, early=o.early_checkpoints)
        while True:
            self.train_seconds += self.step()
            last = (o.updates is not None and self.update >= o.updates) or \
                (budget is not None and self.train_seconds >= budget)
            self.progress.update(self.update, self._episodes(), self.train_seconds)
            if schedule.due(self.update, self.train_seconds - offset, last):
                self.score(f"rl{self.update}")
            if last:
                break
        self.summary.update(updates=self.update, episodes=self._episodes(),
                            imitation_steps=self.imitation_steps,
                            train_seconds=round(self.train_seconds, 3),
                            timings={k: round(v, 3) for k, v in self.timings.items()})


_DEFAULTS = TrainOptions()  # the keywords' defaults, written once in options.py


def train(program, data, out, *, updates: Optional[int] = None, budget: Optional[float] = None,
          seed: int = _DEFAULTS.seed, device: str = _DEFAULTS.device,
          triples_per_update: Optional[int] = None, episodes: int = _DEFAULTS.episodes,
          lr: float = _DEFAULTS.lr, checkpoints: Optional[int] = None,
          valid_queries: int = _DEFAULTS.valid_queries, log: Optional[str] = None,
          progress: bool = True, init: Optional[str] = None, variant: str = _DEFAULTS.variant,
          imitation_steps: Optional[int] = None, imitation_batch: Optional[int] = None,
          early_checkpoints: bool = _DEFAULTS.early_checkpoints) -> TrainResult:
    """Trains the §4 policy of `program` (a `.mlir` path, its text or a
    `.pcb` bundle) on the dataset directory `data` with the README's
    recipe (variant `rl`, `il` or `both`) and writes the best checkpoint to
    `out` (safetensors, with the weights metadata of `proofc init-weights`).
    docs/training.md has the options; `updates` and/or `budget` (training
    seconds) set the length; `log` names a JSON file for the checkpoints'
    log."""
    options = TrainOptions(updates=updates, budget=budget, seed=seed, device=device,
                           triples_per_update=triples_per_update, episodes=episodes, lr=lr,
                           checkpoints=checkpoints, valid_queries=valid_queries,
                           init=init, variant=variant, imitation_steps=imitation_steps,
                           imitation_batch=imitation_batch,
                           early_checkpoints=early_checkpoints).check()
    check_paths(data, out, log)
    data, out = os.fspath(data), os.fspath(out)
    log = os.fspath(log) if log is not None else None
    evaluator = Evaluator(program, data, split="valid", queries=options.valid_queries,
                          corruptions=VALID_CORRUPTIONS, seed=VALID_SEED, device=options.device)
    with evaluator:
        options.resolve(evaluator.device)
        policy = _initial_policy(evaluator, options, data).to(torch.device(evaluator.device))
        triples = recipe.TrainTriples.from_names(read_split(data, "train"), evaluator.entities,
                                                 evaluator.relations)
        bar = Progress(progress, options.updates, options.variant_budget())
        checkpoints = _Checkpoints(evaluator, bar)
        initial = {k: v.detach().clone() for k, v in policy.state_dict().items()}
        variants = []
        try:
            with _deterministic_torch(evaluator.device):
                for name in options.variants():
                    variants.append(_Variant(name, evaluator, initial, triples, options,
                                             checkpoints, bar))
                    variants[-1].run()
        finally:
            bar.close()
        program_name = evaluator.program["name"]
        scored_queries = int(len(evaluator.queries))
        device_used = evaluator.device
    entries = checkpoints.list
    chosen = best_index([c["valid_mrr"] for c in entries])
    entries[chosen]["chosen"] = True
    train_seconds = sum(v.train_seconds for v in variants)
    record = {
        "version": LOG_VERSION,
        "program": program_name,
        "data": data,
        "device": device_used,
        "options": options.as_dict(),
        "train_triples": len(triples),
        "valid_queries": scored_queries,
        "updates": sum(v.update for v in variants),
        "episodes": sum(v.summary["episodes"] for v in variants),
        "variants": [v.summary for v in variants],
        "checkpoints": entries,
        "chosen": {"name": entries[chosen]["name"], "update": entries[chosen]["update"],
                   "valid_mrr": entries[chosen]["valid_mrr"]},
        "output": out,
        "seconds": round(time.monotonic() - checkpoints.started, 3),
        "train_seconds": round(train_seconds, 3),
        "eval_seconds": round(checkpoints.eval_seconds, 3),
    }
    log_text = json.dumps(record, indent=2) + "\n"
    safetensors.write(out, checkpoints.best_weights,
                      safetensors.weights_metadata(program_name, data))
    if log is not None:
        try:
            _write_text_atomically(log, log_text)
        except OSError as e:
            raise Error(f"--log {escape(log)}: cannot write: {e.strerror or e}") from None
    return TrainResult(checkpoints.best_weights, record["chosen"]["update"],
                       record["chosen"]["valid_mrr"], record, out, record["chosen"]["name"])
