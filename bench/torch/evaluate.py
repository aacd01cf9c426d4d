"""The V10-style PyTorch evaluation: B slots, one compiled step, slot recycling.

    python3 -m bench.torch.evaluate --data DIR --weights W [--queries N]
        [--corruptions K] [--batch B] [--variant cond|nocond|eager]
        [--outcomes out.tsv] [--json out.json]

The step works on pre-allocated slot buffers. It is compiled with
torch.compile(mode="reduce-overhead", fullgraph=True) into a CUDA graph;
each call is preceded by torch.compiler.cudagraph_mark_step_begin() and its
outputs (graph-owned memory) are copied back into the buffers with
torch._foreach_copy_ (the buffer-copy pattern). Finished slots take the next
candidate of their column of the transposed pool.

Variants:
  cond    the V10 step: the slot buffers hold G and its derived list; a step
          picks the action, transitions, writes finished outcomes, recycles,
          runs the engine on the transitioned states, and runs it again for
          the recycled slots' initial states under
          torch.cond(needs_reset.any(), engine_for_reset, noop).
  nocond  recycle first, then one engine call per step on the slots' states.
  eager   the nocond step, not compiled (runs on torch 1.13 and on the CPU).
"""

import argparse
import json
import logging
import math
import os
import statistics
import sys
import time
from typing import Dict, List

import torch

from . import data as kgdata
from .engine import EngineShape, EngineTensors, build_engine, derive, initial_states
from .policy import PolicyTensors, WeightsError, load_policy, select
from ..fileio import write_atomically

PROVED, FAILED, TRUNCATED = 0, 1, 2
STATUS_NAMES = ("proved", "failed", "truncated")  # runtime/src/outputs/Metrics.cpp statusName
FRESH, IDLE = -2, -1  # slot candidate markers: never loaded / pool column exhausted


class Prover(torch.nn.Module):
    """All constant tensors (index, rules, folded weights, candidates, pool)
    as buffers; forward(*slot_buffers) -> the new slot buffers."""

    def __init__(self, eshape: EngineShape, etensors: EngineTensors, policy: PolicyTensors,
                 triples: torch.Tensor, pool: torch.Tensor, D: int, use_cond: bool):
        super().__init__()
        self.eshape, self.D, self.use_cond = eshape, D, use_cond
        self.N = triples.shape[0]
        self.M = pool.shape[1] - 1  # last pool column is all IDLE
        self.L = len(policy.mlp_w)
        for name, value in etensors._asdict().items():
            self.register_buffer("e_" + name, value)
        for name in ("pred_proj", "arg0_proj", "arg1_proj", "atom_bias"):
            self.register_buffer("p_" + name, getattr(policy, name))
        for name in ("mlp_w", "mlp_b", "ln_w", "ln_b"):
            for l, value in enumerate(getattr(policy, name)):
                self.register_buffer(f"p_{name}_{l}", value)
        self.register_buffer("triples", triples)
        self.register_buffer("pool", pool)

    def engine_tensors(self) -> EngineTensors:
        return EngineTensors(*[getattr(self, "e_" + f) for f in EngineTensors._fields])

    def policy_tensors(self) -> PolicyTensors:
        lists = {n: [getattr(self, f"p_{n}_{l}") for l in range(self.L)]
                 for n in ("mlp_w", "mlp_b", "ln_w", "ln_b")}
        return PolicyTensors(self.p_pred_proj, self.p_arg0_proj, self.p_arg1_proj,
                             self.p_atom_bias, **lists)

    def constant_tensors(self) -> List[torch.Tensor]:
        return list(self.buffers())

    # --- pieces shared by both steps ---------------------------------------

    def _select(self, G, Dl, count):
        k = self.eshape
        # Eager only: encode just the valid derived states (data-dependent
        # shapes, so never in the compiled step, where padding is masked).
        return select(self.policy_tensors(), G, Dl, count, k.E, k.R, k.A,
                      compact=not _compiling())

    def _transition(self, cand, G, Dl, action, depth, logp, lp, ptr, status, depth_out, logp_out):
        """G <- Dl[action], terminal check (§5), outcomes, recycling."""
        B, A, k = cand.shape[0], self.eshape.A, self.eshape
        active = cand >= 0
        G1 = torch.gather(Dl, 1, action.view(B, 1, 1, 1).expand(B, 1, A, 3)).squeeze(1)
        depth1, logp1 = depth + 1, logp + lp
        head = G1[:, 0, 0]
        proved, failed = head == k.TRUE, head == k.FALSE
        done = active & (proved | failed | (depth1 >= self.D))
        code = torch.where(proved, torch.full_like(head, PROVED),
                           torch.where(failed, torch.full_like(head, FAILED),
                                       torch.full_like(head, TRUNCATED)))
        where_out = torch.where(done, cand, torch.full_like(cand, self.N))  # N: dump slot
        status = status.scatter(0, where_out, code)
        depth_out = depth_out.scatter(0, where_out, depth1)
        logp_out = logp_out.scatter(0, where_out, logp1)
        # Recycling: a finished (or never loaded) slot takes the next candidate
        # of its column of the transposed pool.
        load = done | (cand == FRESH)
        ptr1 = ptr + load.to(ptr.dtype)
        nxt = torch.gather(self.pool, 1, ptr1.clamp(max=self.M).unsqueeze(1)).squeeze(1)
        cand1 = torch.where(load, nxt, cand)
        G_init = initial_states(self.triples[cand1.clamp(min=0)], self.e_pad_atom, A)
        G_next = torch.where(load.view(B, 1, 1), G_init,
                             torch.where(active.view(B, 1, 1), G1, G))
        zero_i = torch.zeros_like(depth1)
        depth2 = torch.where(load, zero_i, torch.where(active, depth1, depth))
        logp2 = torch.where(load, torch.zeros_like(logp1), torch.where(active, logp1, logp))
        reset = load & (nxt >= 0)
        return G1, cand1, G_next, depth2, logp2, ptr1, status, depth_out, logp_out, reset

    # --- the steps ----------------------------------------------------------

    def forward(self, *bufs):
        return self.step_cond(*bufs) if self.use_cond else self.step_nocond(*bufs)

    def step_nocond(self, cand, G, depth, logp, ptr, status, depth_out, logp_out):
        Dl, count = derive(self.engine_tensors(), self.eshape, G,
                           self.triples[cand.clamp(min=0)])
        action, lp = self._select(G, Dl, count)
        (_, cand1, G_next, depth2, logp2, ptr1, status, depth_out, logp_out,
         _) = self._transition(cand, G, Dl, action, depth, logp, lp, ptr, status, depth_out,
                               logp_out)
        return cand1, G_next, depth2, logp2, ptr1, status, depth_out, logp_out

    def step_cond(self, cand, G, Dl, count, depth, logp, ptr, status, depth_out, logp_out):
        action, lp = self._select(G, Dl, count)
        (G1, cand1, G_next, depth2, logp2, ptr1, status, depth_out, logp_out,
         reset) = self._transition(cand, G, Dl, action, depth, logp, lp, ptr, status, depth_out,
                                   logp_out)
        eng = self.engine_tensors()
        # The engine on the transitioned states (finished slots: ignored) ...
        D_main, c_main = derive(eng, self.eshape, G1, self.triples[cand.clamp(min=0)])
        # ... and, only when some slot was recycled, on the new initial states.
        new_triples = self.triples[cand1.clamp(min=0)]
        operands = (reset, G_next, new_triples, D_main, c_main) + tuple(eng)
        D1, count1 = self._cond(reset.any(), operands)
        return cand1, G_next, D1, count1, depth2, logp2, ptr1, status, depth_out, logp_out

    def _engine_for_reset(self, reset, G_next, new_triples, D_main, c_main, *eng):
        D_r, c_r = derive(EngineTensors(*eng), self.eshape, G_next, new_triples)
        B = reset.shape[0]
        return (torch.where(reset.view(B, 1, 1, 1), D_r, D_main),
                torch.where(reset, c_r, c_main))

    def _noop(self, reset, G_next, new_triples, D_main, c_main, *eng):
        return D_main.clone(), c_main.clone()  # cond branches may not alias inputs

    def _cond(self, pred, operands):
        if hasattr(torch, "cond") and _compiling():
            return torch.cond(pred, self._engine_for_reset, self._noop, operands)
        return (self._engine_for_reset if bool(pred) else self._noop)(*operands)


def _compiling() -> bool:
    compiler = getattr(torch, "compiler", None)
    return compiler is not None and compiler.is_compiling()


def make_pool(N: int, B: int, device) -> torch.Tensor:
    """The transposed pool: slot b runs candidates b, b+B, b+2B, ...; [B, M+1]
    with IDLE after each column's last candidate."""
    M = -(-N // B)
    ids = torch.arange(M * B, dtype=torch.int64).view(M, B).t().contiguous()
    ids = torch.where(ids < N, ids, torch.full_like(ids, IDLE))
    return torch.cat((ids, torch.full((B, 1), IDLE, dtype=torch.int64)), dim=1).to(device)


def fresh_buffers(prover: Prover, B: int, device) -> List[torch.Tensor]:
    k, N = prover.eshape, prover.N
    i64 = dict(dtype=torch.int64, device=device)
    cand = torch.full((B,), FRESH, **i64)
    G = torch.full((B, k.A, 3), 0, **i64)
    G[:, :, 0] = -1
    depth = torch.zeros(B, **i64)
    logp = torch.zeros(B, dtype=torch.float32, device=device)
    ptr = torch.full((B,), -1, **i64)
    status = torch.full((N + 1,), -1, **i64)
    depth_out = torch.zeros(N + 1, **i64)
    logp_out = torch.zeros(N + 1, dtype=torch.float32, device=device)
    if not prover.use_cond:
        return [cand, G, depth, logp, ptr, status, depth_out, logp_out]
    Dl = torch.full((B, k.S, k.A, 3), 0, **i64)
    Dl[..., 0] = -1
    count = torch.ones(B, **i64)
    return [cand, G, Dl, count, depth, logp, ptr, status, depth_out, logp_out]


def copy_back(bufs: List[torch.Tensor], outs) -> None:
    if hasattr(torch, "_foreach_copy_"):
        torch._foreach_copy_(bufs, list(outs))
    else:  # torch 1.13
        for b, o in zip(bufs, outs):
            b.copy_(o)


def configure_dynamo(allow_recompile: bool) -> None:
    """The step has fixed shapes: a changed shape must not quietly turn into a
    dynamic-shape recompile, and (unless allowed) any recompile is an error
    rather than a silent per-step cost."""
    cfg = torch._dynamo.config
    cfg.automatic_dynamic_shapes = False
    cfg.assume_static_by_default = True
    if not allow_recompile:
        cfg.error_on_recompile = True


class SkipReasons(logging.Handler):
    """Collects Inductor's "skipping cudagraphs due to ..." messages."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.reasons: List[str] = []

    def emit(self, record):
        message = record.getMessage()
        if "skipping cudagraphs" in message and message not in self.reasons:
            self.reasons.append(message.splitlines()[0])


def capture_cudagraph_skips() -> SkipReasons:
    """Turns on the torch log artifact that carries the skip reason
    (`cudagraphs` in torch >= 2.6, `perf_hints` before) and listens to it."""
    from torch._logging._internal import log_registry
    names = [n for n in ("cudagraphs", "perf_hints") if n in log_registry.artifact_names]
    if names and not os.environ.get("TORCH_LOGS"):
        torch._logging.set_logs(**{n: True for n in names})
    handler = SkipReasons()
    for name in ("torch", "torch._inductor"):
        logging.getLogger(name).addHandler(handler)
    return handler


def dynamo_stats() -> Dict:
    from torch._dynamo.utils import counters
    return {"unique_graphs": int(counters["stats"].get("unique_graphs", 0)),
            "graph_breaks": int(sum(counters["graph_break"].values())),
            "cudagraph_skips": int(counters["inductor"].get("cudagraph_skips", 0))}


def run_pass(step, bufs, initial, compiled: bool, check_every: int, max_steps: int) -> int:
    """One full evaluation; returns the number of steps."""
    copy_back(bufs, initial)
    steps = 0
    while True:
        for _ in range(check_every):
            if compiled:
                torch.compiler.cudagraph_mark_step_begin()
            copy_back(bufs, step(*bufs))
            steps += 1
        if not bool((bufs[0] != IDLE).any()):
            return steps
        if steps > max_steps:
            raise RuntimeError(f"evaluation did not finish within {max_steps} steps")


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def compute_metrics(cs: kgdata.CandidateSet, status: List[int], depth: List[int],
                    logp: List[float]) -> Dict:
    score = [lp if st == PROVED else -math.inf for st, lp in zip(status, logp)]
    sets = {m: {"mrr": 0.0, "hits1": 0.0, "hits3": 0.0, "hits10": 0.0, "pairs": 0}
            for m in ("head", "tail", "both")}
    for _, mode, begin, end in cs.groups:
        pos = score[begin]
        greater = sum(1 for i in range(begin + 1, end) if score[i] > pos)
        geq = sum(1 for i in range(begin + 1, end) if score[i] >= pos)
        rank = ((1 + greater) + (1 + geq)) / 2.0
        for name in (kgdata.MODE_NAMES[mode], "both"):
            m = sets[name]
            m["mrr"] += 1.0 / rank
            m["hits1"] += rank <= 1
            m["hits3"] += rank <= 3
            m["hits10"] += rank <= 10
            m["pairs"] += 1
    for m in sets.values():
        for key in ("mrr", "hits1", "hits3", "hits10"):
            m[key] = m[key] / m["pairs"] if m["pairs"] else 0.0
    n = len(status)
    return {**sets, "candidates": n,
            "proved": status.count(PROVED), "failed": status.count(FAILED),
            "truncated": status.count(TRUNCATED),
            "mean_depth": sum(depth) / n if n else 0.0}



def outcomes_tsv(ds: kgdata.Dataset, cs: kgdata.CandidateSet, status, depth, logp) -> str:
    """proofc's format (runtime/src/outputs/Report.cpp writeOutcomesTsv)."""
    lines = ["query\tmode\tentity\tstatus\tdepth\tlogp"]
    for i in range(len(status)):
        lines.append(f"{cs.query[i]}\t{kgdata.MODE_NAMES[cs.mode[i]]}\t{ds.entities[cs.entity[i]]}\t"
                     f"{STATUS_NAMES[status[i]]}\t{depth[i]}\t{logp[i]:.9g}")
    return "\n".join(lines) + "\n"


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m bench.torch.evaluate", description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="dataset directory (spec §1.1)")
    ap.add_argument("--weights", required=True, help="mlp-dot policy safetensors (spec §4)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--queries", type=int, default=-1, help="first N queries (default: all)")
    ap.add_argument("--corruptions", type=int, default=100, help="K (<= 0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--facts", choices=("train", "train+valid"), default="train")
    ap.add_argument("--batch", type=int, default=256, help="B slots")
    ap.add_argument("-A", "--atoms", type=int, default=6)
    ap.add_argument("-S", "--states", type=int, default=120)
    ap.add_argument("-D", "--depth", type=int, default=20)
    ap.add_argument("--variant", choices=("cond", "nocond", "eager"), default="cond")
    ap.add_argument("--no-compile", action="store_true",
                    help="run the cond/nocond step structure eagerly (logic checks on torch 1.x)")
    ap.add_argument("--compile-mode", default="reduce-overhead",
                    help="torch.compile mode (V10: reduce-overhead, i.e. CUDA graphs)")
    ap.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    ap.add_argument("--check-every", type=int, default=16,
                    help="steps between host checks for the end of the pool")
    ap.add_argument("--passes", type=int, default=2,
                    help="full passes; the first includes compilation (warm-up), the "
                         "median of the others is the steady time")
    ap.add_argument("--allow-recompile", action="store_true",
                    help="let Dynamo recompile the step (default: a recompile is an error)")
    ap.add_argument("--outcomes", help="write per-candidate outcomes TSV (proofc's format)")
    ap.add_argument("--json", help="write metrics and timings as JSON")
    args = ap.parse_args(argv)
    if args.batch < 1 or args.atoms < 1 or args.states < 1 or args.depth < 1:
        ap.error("--batch, -A, -S and -D must be at least 1")
    if args.check_every < 1 or args.passes < 1:
        ap.error("--check-every and --passes must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    compiled = args.variant != "eager" and not args.no_compile
    if compiled and not hasattr(torch, "compile"):
        sys.exit(f"error: --variant {args.variant} needs torch >= 2 (this is {torch.__version__}); "
                 f"use --variant eager or --no-compile")

    t0 = time.perf_counter()
    try:
        ds = kgdata.load_dataset(args.data)
        cs = kgdata.build_candidates(ds, args.split, args.corruptions, args.seed, args.queries)
        eshape, etensors = build_engine(ds, args.atoms, args.states, args.facts == "train+valid", device)
        policy = load_policy(args.weights, ds.num_entities, ds.num_relations, args.atoms, device)
    except (kgdata.DataError, WeightsError, OSError, ValueError) as e:
        sys.exit(f"error: {e}")
    N, B = len(cs.triples), args.batch
    if N == 0:
        sys.exit("error: no candidates (empty split?)")
    triples = torch.tensor(cs.triples, dtype=torch.int64, device=device)
    pool = make_pool(N, B, device)
    use_cond = args.variant == "cond"
    prover = Prover(eshape, etensors, policy, triples, pool, args.depth, use_cond).to(device)
    bufs = fresh_buffers(prover, B, device)
    initial = [b.clone() for b in bufs]
    setup_s = time.perf_counter() - t0

    step = prover
    skips = None
    if compiled:
        configure_dynamo(args.allow_recompile)
        skips = capture_cudagraph_skips()
        for tensor in prover.constant_tensors() + bufs:
            torch._dynamo.mark_static_address(tensor)
        step = torch.compile(prover, mode=args.compile_mode, fullgraph=True)
    max_steps = (pool.shape[1] + 1) * (args.depth + 1) + 2 * args.check_every

    # Pass 1 includes compilation; its first step alone is reported as compile time.
    t1 = time.perf_counter()
    if compiled:
        copy_back(bufs, initial)
        torch.compiler.cudagraph_mark_step_begin()
        copy_back(bufs, step(*bufs))
        sync(device)
    compile_s = time.perf_counter() - t1
    first_pass_s, results, steps, pass_seconds = 0.0, None, 0, []
    for pass_index in range(args.passes):
        sync(device)
        if device.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        tp = time.perf_counter()
        steps = run_pass(step, bufs, initial, compiled, args.check_every, max_steps)
        if device.type == "cuda":
            end.record()
            torch.cuda.synchronize(device)
            elapsed = start.elapsed_time(end) / 1000.0
        else:
            elapsed = time.perf_counter() - tp
        if pass_index == 0:
            first_pass_s = time.perf_counter() - tp
        pass_seconds.append(elapsed)
        outs = (bufs[-3][:N].tolist(), bufs[-2][:N].tolist(), bufs[-1][:N].tolist())
        if results is not None and outs != results:
            differing = sum(a != b for x, y in zip(outs, results) for a, b in zip(x, y))
            print(f"warning: pass {pass_index + 1} differs from the previous pass in {differing} "
                  f"outcome fields (the compiled step is not deterministic)", file=sys.stderr)
        results = outs
    # Steady time: the median of the passes after the first (which compiles,
    # warms up and records the CUDA graphs); the first pass alone if only one.
    steady_s = statistics.median(pass_seconds[1:] or pass_seconds)
    status, depth, logp = results
    if min(status) < 0:
        missing = status.index(-1)
        sys.exit(f"error: candidate {missing} never finished (internal error)")

    metrics = compute_metrics(cs, status, depth, logp)
    # Inductor counts the graphs it could not capture ("skipping cudagraphs due to ...").
    stats = dynamo_stats() if compiled else {}
    cudagraph_skips = stats.get("cudagraph_skips")
    skip_reasons = skips.reasons if skips else []
    memory = None
    if device.type == "cuda":  # the caching allocator's peaks over the whole run
        memory = {"max_allocated_bytes": int(torch.cuda.max_memory_allocated(device)),
                  "max_reserved_bytes": int(torch.cuda.max_memory_reserved(device))}
    per_cand_ms = 1000.0 * steady_s / N
    report = {
        "schema": "proofc-torch-report", "version": 1,
        "torch": torch.__version__, "device": str(torch.cuda.get_device_name(device))
        if device.type == "cuda" else "cpu",
        "variant": args.variant, "compiled": compiled,
        "compile_mode": args.compile_mode if compiled else None,
        "cudagraph_skips": cudagraph_skips, "cudagraph_skip_reasons": skip_reasons,
        "dynamo": stats or None, "memory": memory,
        "tf32_matmul": bool(torch.backends.cuda.matmul.allow_tf32),
        "dataset": {"dir": args.data, "entities": ds.num_entities, "relations": ds.num_relations,
                    "facts": eshape.NF, "rules": len(ds.rules), "fact_window": eshape.W,
                    "rules_per_pred": eshape.RMAX},
        "shape": {"A": args.atoms, "S": args.states, "D": args.depth, "B": B,
                  "d": int(policy.atom_bias.shape[0]), "L": len(policy.mlp_w)},
        "candidates": {"split": args.split, "corruptions": args.corruptions, "seed": args.seed,
                       "max_queries": args.queries},
        "metrics": metrics,
        "timings": {"setup_seconds": setup_s, "compile_seconds": compile_s,
                    "first_pass_seconds": first_pass_s, "steady_seconds": steady_s,
                    "pass_seconds": pass_seconds, "passes": args.passes, "steps": steps,
                    "ms_per_candidate": per_cand_ms},
    }
    both = metrics["both"]
    print(f"torch {torch.__version__} on {report['device']}, variant {args.variant}"
          f"{' (compiled)' if compiled else ''}, B={B}")
    print(f"candidates {N}: proved {metrics['proved']}, failed {metrics['failed']}, "
          f"truncated {metrics['truncated']}, mean depth {metrics['mean_depth']:.3f}")
    print(f"MRR {both['mrr']:.4f}  Hits@1 {both['hits1']:.4f}  Hits@3 {both['hits3']:.4f}  "
          f"Hits@10 {both['hits10']:.4f}  (head MRR {metrics['head']['mrr']:.4f}, "
          f"tail MRR {metrics['tail']['mrr']:.4f})")
    print(f"setup {setup_s:.2f} s, compile {compile_s:.2f} s, first pass {first_pass_s:.3f} s, "
          f"steady {steady_s:.3f} s ({steps} steps), {per_cand_ms:.4f} ms per candidate")
    if cudagraph_skips or skip_reasons:
        why = f": {skip_reasons[0]}" if skip_reasons else " (see its log: 'skipping cudagraphs due to ...')"
        print(f"note: Inductor skipped CUDA graphs {cudagraph_skips} time(s){why}; this variant ran "
              f"without CUDA graphs")
    if stats:
        print(f"dynamo: {stats['unique_graphs']} graph(s) compiled, {stats['graph_breaks']} graph "
              f"break(s)")
    if memory:
        print(f"memory: max allocated {memory['max_allocated_bytes'] / 2**20:.0f} MiB, max reserved "
              f"{memory['max_reserved_bytes'] / 2**20:.0f} MiB")
    if args.outcomes:
        write_atomically(args.outcomes, outcomes_tsv(ds, cs, status, depth, logp))
    if args.json:
        write_atomically(args.json, json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
