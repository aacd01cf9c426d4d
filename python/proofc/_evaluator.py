"""proofc.Evaluator: the extension's Evaluator, taking a program as well.

The C++ class (``proofc._core.Evaluator``, python/src/Evaluator.h) binds a
bundle. This subclass also takes a ``.mlir`` path or the program's text and
compiles it first with ``proofc.program.compile`` (which runs ``proofc
compile`` and caches the bundle).
"""
import os

from proofc import _core
from proofc.results import Result


def _bundle_for(program_or_bundle):
    """The bundle path for the first argument, compiling a program."""
    if isinstance(program_or_bundle, str) and "eval.program" in program_or_bundle:
        source = program_or_bundle  # the program's text
    else:
        try:
            path = os.fspath(program_or_bundle)
        except TypeError:
            raise TypeError(
                "program_or_bundle: pass a bundle or .mlir path (str or "
                "os.PathLike) or the program's .mlir text, not a "
                f"{type(program_or_bundle).__name__}") from None
        if isinstance(path, bytes) or not path.endswith(".mlir"):
            return path
        source = path
    try:
        from proofc import program
    except ImportError as e:
        raise _core.Error(
            "program_or_bundle: compiling a .mlir program needs "
            "proofc.program, which this installation lacks; compile it "
            "with `proofc compile PROGRAM.mlir -o PROGRAM.pcb` and pass the "
            f"bundle ({e})") from None
    return program.compile(source)


def _host_array(value, name):
    """`value` (a numpy array, a torch tensor on any device, a list) as a
    numpy array; integer ids are checked to fit int32 before the binding
    casts them."""
    import numpy as np
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    if array.dtype.kind in "iu" and array.size and (
            array.min() < -2**31 or array.max() >= 2**31):
        raise ValueError(f"{name}: an id does not fit int32")
    return array


# The keywords' defaults, SessionOptions' (C++): one set for the runtime,
# the command line and Python (docs/options.md).
_D = _core.DEFAULTS


class Evaluator(_core.Evaluator):
    """Evaluates weight sets of one program on one dataset's candidates.

    ``program_or_bundle``: a bundle written by ``proofc compile`` (``.pcb``),
    a ``.mlir`` program path, or the program's text (compiled by
    ``proofc.program.compile``). ``data``: the dataset directory. The
    candidates: ``split`` ("train", "valid" or "test"), the first ``queries``
    queries (None: all), ``corruptions`` per query and side (0 or None:
    every filtered corruption), sampled with ``seed``; ``facts``: "train" or
    "train+valid". ``device``: "auto", "cpu", "cuda" or "cuda:N".
    ``devices``: several GPUs of this host, "all", "0,1" or a sequence of
    CUDA ordinals (as ``--devices``; give host tensors then).
    ``workers_per_device``: device workers per GPU, each its own backend,
    so that one's host work between blocks overlaps another's run (0: auto,
    2 on CUDA, 1 on the CPU; as ``--workers-per-device``). CUDA tensors
    must be on the evaluator's own device: one on another GPU is refused
    with a ValueError naming it. The rest,
    their defaults (``proofc._core.DEFAULTS``) and their ranges
    (``proofc._core.LIMITS``) are those of ``proofc run`` (docs/options.md);
    a keyword of the wrong type is a TypeError, one out of range a
    ValueError, each naming the keyword.

    ``evaluate(weights, progress=None)`` takes a mapping name -> tensor
    (numpy arrays, torch tensors on the CPU or on this evaluator's GPU) or
    a safetensors path and returns the report as a ``proofc.results.Result``
    (a dict, with ``["outcomes"]`` holding one numpy array per candidate
    column, plus attribute access and PyKEEN's ``get_metric``,
    ``to_flat_dict`` and ``to_df``; filled when first needed, the metrics,
    timings and outcomes alone); ``as_torch=True``: its ``outcomes`` as
    torch tensors on this evaluator's device.
    """

    def __init__(self, program_or_bundle, data, *, split=_D["split"],
                 queries=_D["queries"], corruptions=_D["corruptions"],
                 seed=_D["seed"], facts=_D["facts"], device=_D["device"],
                 devices=_D["devices"],
                 workers_per_device=_D["workers_per_device"],
                 threads=_D["threads"], cond=_D["cond"], unroll=_D["unroll"],
                 memo_entries=_D["memo_entries"], max_pool=_D["max_pool"],
                 shared_lists=_D["shared_lists"], hits=_D["hits"],
                 per_relation=_D["per_relation"],
                 bootstrap=_D["bootstrap"],
                 bootstrap_seed=_D["bootstrap_seed"]):
        super().__init__(
            _bundle_for(program_or_bundle), data=data, split=split,
            queries=queries, corruptions=corruptions, seed=seed, facts=facts,
            device=device, devices=devices,
            workers_per_device=workers_per_device, threads=threads, cond=cond,
            unroll=unroll,
            memo_entries=memo_entries, max_pool=max_pool,
            shared_lists=shared_lists, hits=hits,
            per_relation=per_relation, bootstrap=bootstrap,
            bootstrap_seed=bootstrap_seed)

    def evaluate(self, *args, as_torch=False, **kwargs):
        report = super().evaluate(*args, **kwargs)
        return Result(report, self.device, as_torch=as_torch)

    def rollouts(self, weights, triples, positive, *, episodes=4, seed=0,
                 episode_base=0, temperature=1.0, sampled=True):
        """Runs ``episodes`` episodes of every triple with these weights
        and returns their trajectories (``proofc.rollouts.Trajectories``,
        docs/rollouts.md): torch tensors on this evaluator's device (numpy
        arrays when torch is not installed).

        ``weights``: as for ``evaluate`` (a mapping name -> tensor or a
        safetensors path). ``triples``: [N, 3] integer (head, relation,
        tail) ids of this evaluator's dataset; ``positive``: [N] bool, 1 for
        a train triple, 0 for a corruption (carried to the output). Episode
        ``n * episodes + k`` of the call has the global id ``episode_base +
        n * episodes + k``, which with ``seed`` keys its draws
        (docs/sampling.md): the same arguments give the same trajectories.
        ``sampled=False``: the greedy action of evaluation (spec §4),
        ``temperature`` unused. The session's facts (``facts``) are the
        knowledge base.
        """
        from proofc.rollouts import Trajectories
        raw = super().rollouts(weights, _host_array(triples, "triples"),
                               _host_array(positive, "positive"),
                               episodes=episodes, seed=seed,
                               episode_base=episode_base,
                               temperature=temperature, sampled=sampled)
        return Trajectories(raw, self.device, temperature=temperature,
                            sampled=sampled, seed=seed,
                            episode_base=episode_base)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        if self.closed:
            return "<proofc.Evaluator (closed)>"
        p, o = self.program, self.options
        return (f"<proofc.Evaluator @{p['name']} on "
                f"{os.path.basename(os.path.normpath(o['data']))} "
                f"{o['split']}: {self.num_candidates} candidates, "
                f"{self.device}>")
