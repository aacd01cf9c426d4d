"""proofc.results: what ``Evaluator.evaluate`` returns, with PyKEEN's access.

A researcher's code is written against PyKEEN's ``MetricResults``
(``get_metric("both.realistic.inverse_harmonic_mean_rank")``,
``to_flat_dict()``, ``to_df()``) and wants the outcomes as arrays or
tensors; earlier code indexes the report dict (``r["metrics"]["both"]``).
``Result`` is that dict (a ``dict`` subclass: every key, ``json``, equality
and item access unchanged) with attribute access and PyKEEN's methods on
top. docs/python.md documents it; the keys are docs/report-schema.md's.
"""
import math

__all__ = ["Result", "Outcomes", "View"]

# PyKEEN's side and rank-type names, and its default for a shorter key.
SIDES = ("head", "tail", "both")
RANK_TYPES = ("optimistic", "pessimistic", "realistic")
# Short names PyKEEN's metric lookup accepts for the same metric.
SYNONYMS = {
    "mr": "arithmetic_mean_rank",
    "mean_rank": "arithmetic_mean_rank",
    "mrr": "inverse_harmonic_mean_rank",
    "mean_reciprocal_rank": "inverse_harmonic_mean_rank",
    "amr": "adjusted_arithmetic_mean_rank",
    "adjusted_mean_rank": "adjusted_arithmetic_mean_rank",
    "amri": "adjusted_arithmetic_mean_rank_index",
    "adjusted_mean_rank_index": "adjusted_arithmetic_mean_rank_index",
    "gmr": "geometric_mean_rank",
    "igmr": "inverse_geometric_mean_rank",
    "hmr": "harmonic_mean_rank",
}


class View:
    """Attribute access to a nested dict of the report: ``v.both.mrr``.

    Item access, ``in``, ``len`` and iteration work as on the dict; a nested
    dict comes back as a View, everything else as it is. ``to_dict()`` is
    the dict itself.
    """

    __slots__ = ("_data", "_path")

    def __init__(self, data, path):
        self._data = data
        self._path = path

    def __getattr__(self, name):
        if name.startswith("_"):  # never a report key; keeps copy/pickle sane
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(
                f"{self._path} has no key {name!r} (it has: "
                f"{', '.join(map(str, self._data))})") from None

    def __getitem__(self, key):
        value = self._data[key]
        return View(value, f"{self._path}.{key}") if isinstance(value, dict) else value

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __dir__(self):
        return [k for k in self._data if isinstance(k, str) and k.isidentifier()]

    def __eq__(self, other):
        return self._data == (other._data if isinstance(other, View) else other)

    def keys(self):
        return self._data.keys()

    def to_dict(self):
        return self._data

    def __repr__(self):
        return f"View({self._path}: {self._data!r})"


class Outcomes:
    """The per-candidate columns, in candidate order (docs/python.md).

    ``o.status``, ``o["status"]``: numpy arrays, or torch tensors on the
    evaluator's device when the result was asked for them. ``torch(device)``
    and ``numpy()`` convert every column.
    """

    __slots__ = ("_columns", "_device")

    def __init__(self, columns, device="cpu"):
        self._columns = dict(columns)
        self._device = device

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._columns[name]
        except KeyError:
            raise AttributeError(
                f"outcomes have no column {name!r} (they have: "
                f"{', '.join(self._columns)})") from None

    def __getitem__(self, name):
        return self._columns[name]

    def __contains__(self, name):
        return name in self._columns

    def __iter__(self):
        return iter(self._columns)

    def __len__(self):
        """The number of candidates (every column's length)."""
        for column in self._columns.values():
            return len(column)
        return 0

    def __dir__(self):
        return list(self._columns) + ["torch", "numpy", "columns"]

    @property
    def columns(self):
        """The column names."""
        return tuple(self._columns)

    def torch(self, device=None):
        """Every column as a torch tensor on ``device`` (default: the
        evaluator's, ``"cpu"`` or ``"cuda:N"``)."""
        import numpy as np
        import torch

        device = self._device if device is None else device
        out = {}
        for name, column in self._columns.items():
            if not isinstance(column, torch.Tensor):
                # The evaluator's arrays are read-only: the tensor gets its
                # own copy (torch has no read-only tensors).
                column = torch.from_numpy(np.array(column, copy=True))
            out[name] = column.to(device)
        return Outcomes(out, device)

    def numpy(self):
        """Every column as a numpy array (on the host)."""
        import numpy as np

        out = {}
        for name, column in self._columns.items():
            if hasattr(column, "detach"):  # a torch tensor
                column = column.detach().cpu().numpy()
            out[name] = np.asarray(column)
        return Outcomes(out, self._device)

    def to_dict(self):
        """``{name: column}``."""
        return dict(self._columns)

    def __repr__(self):
        return (f"<proofc.results.Outcomes: {len(self)} candidates, "
                f"columns {', '.join(self._columns)}>")


# The top-level keys a Result makes without the rest of the report (its
# dict is made whole at the first other access): what an in-loop caller
# reads every epoch.
_ALONE = ("metrics", "timings", "outcomes")
_UNSET = object()


class Result(dict):
    """The report of one evaluation (docs/report-schema.md) and its outcomes.

    A ``dict`` as before (``r["metrics"]["both"]["mrr"]``), plus:

    - attribute access to every top-level key: ``r.metrics.both.mrr``,
      ``r.rank_metrics.both.realistic.mean_rank``, ``r.timings.run_seconds``
      (nested dicts as ``View``s); ``r.pykeen`` is the flat PyKEEN map;
    - ``r.outcomes``: an ``Outcomes`` (``r.outcomes.status`` ...), numpy
      arrays, or torch tensors on the evaluator's device when evaluated with
      ``as_torch=True`` (or after ``r.to_torch()``);
    - PyKEEN's ``get_metric(key)``, ``to_flat_dict()`` and ``to_df()``;
      ``to_dict()``, the plain dict.

    Made from an evaluation (a ``proofc._core.EvaluationResult``), the dict
    is filled when first needed: ``r["metrics"]``, ``r["timings"]`` and the
    outcomes are made alone, anything else (another key, iteration,
    ``len``, ``==``, ``json``, a copy) makes the whole report once, the
    objects already handed out kept. The runtime makes PyKEEN's metric set
    and the report's text only then (docs/embedding.md), so a loop that
    reads the MRR pays for neither.
    """

    def __init__(self, report, device="cpu", as_torch=False):
        self._device = device
        self._as_torch = as_torch
        self._outcomes = _UNSET
        if isinstance(report, dict):
            super().__init__(report)
            self._source = None
        else:
            super().__init__()
            self._source = report
            # Never empty: json's C encoder takes an empty dict as "{}"
            # without asking for its items.
            dict.__setitem__(self, "metrics", report.section("metrics"))

    def _whole(self):
        """Fills the dict with the whole report (once), in the report's key
        order, "outcomes" last; what was made alone is kept."""
        source = self._source
        if source is not None:
            made = dict(dict.items(self))
            whole = source.report()
            whole = {k: made.get(k, v) for k, v in whole.items()}
            whole["outcomes"] = (made["outcomes"] if "outcomes" in made
                                 else source.outcomes())
            dict.clear(self)
            dict.update(self, whole)
            self._source = None  # only once it is whole
        return self

    def __getitem__(self, key):
        if self._source is not None and not dict.__contains__(self, key):
            if key == "outcomes":
                dict.__setitem__(self, key, self._source.outcomes())
            elif key in _ALONE:
                dict.__setitem__(self, key, self._source.section(key))
            else:
                self._whole()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __contains__(self, key):
        if dict.__contains__(self, key):
            return True
        if self._source is not None and key in _ALONE:
            return True  # an evaluation's report always has them
        return dict.__contains__(self._whole(), key)

    # Iteration, len, keys/values/items, ==, repr, changes and copies: dict's
    # own on the whole report, set below the class (_on_the_whole).

    def __ior__(self, other):
        dict.__ior__(self._whole(), other)
        return self

    __hash__ = None

    def clear(self):
        self._source = None
        dict.clear(self)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            value = self[name]
        except KeyError:
            raise AttributeError(
                f"the result has no key {name!r} (it has: "
                f"{', '.join(self)})") from None
        return View(value, name) if isinstance(value, dict) else value

    def __dir__(self):
        return sorted(set(dir(type(self))) | {k for k in self if k.isidentifier()})

    @property
    def outcomes(self):
        """The per-candidate columns (``Outcomes``)."""
        if self._outcomes is _UNSET:
            columns = self.get("outcomes")
            if isinstance(columns, dict):
                self._outcomes = Outcomes(columns, self._device)
                if self._as_torch:
                    self._outcomes = self._outcomes.torch()
            else:
                self._outcomes = None
        if self._outcomes is None:
            raise AttributeError("the result has no outcomes")
        return self._outcomes

    @property
    def pykeen(self):
        """The flat map ``<side>.<rank type>.<metric>`` -> value (None where
        empty), docs/report-schema.md."""
        return self["pykeen"]

    @property
    def device(self):
        """Where ``to_torch()`` puts the outcomes: the evaluator's device."""
        return self._device

    def to_torch(self, device=None):
        """A copy whose outcomes are torch tensors on ``device`` (default:
        the evaluator's)."""
        out = Result(self.to_dict(), self._device)
        out._outcomes = self.outcomes.torch(device)
        return out

    def to_dict(self):
        """The plain dict ``evaluate`` returned before (``"outcomes"``: numpy
        arrays)."""
        return dict(self)

    def to_flat_dict(self):
        """PyKEEN's ``MetricResults.to_flat_dict()``: every key of the
        ``pykeen`` block, ``"both.realistic.inverse_harmonic_mean_rank"`` ->
        value (None where the metric is empty)."""
        return dict(self["pykeen"])

    def get_metric(self, name):
        """One value of the ``pykeen`` block by PyKEEN's key string.

        ``"<side>.<rank type>.<metric>"``, e.g.
        ``"both.realistic.inverse_harmonic_mean_rank"`` or
        ``"tail.optimistic.hits_at_10"``; as in PyKEEN, a missing side is
        ``both`` and a missing rank type ``realistic``
        (``"inverse_harmonic_mean_rank"``, ``"head.hits_at_1"``,
        ``"pessimistic.arithmetic_mean_rank"``), and ``mrr``, ``mr``,
        ``amri``, ``hits@k`` are understood. None where the metric is empty
        (no pairs). Raises KeyError for a metric the report does not have.
        """
        if not isinstance(name, str):
            raise TypeError(f"get_metric: a key string, not a {type(name).__name__}")
        parts = name.split(".")
        if len(parts) == 1:
            side, rank_type, metric = "both", "realistic", parts[0]
        elif len(parts) == 2:
            if parts[0] in SIDES:
                side, rank_type, metric = parts[0], "realistic", parts[1]
            else:
                side, rank_type, metric = "both", parts[0], parts[1]
        elif len(parts) == 3:
            side, rank_type, metric = parts
        else:
            raise KeyError(f"get_metric: {name!r} is not <side>.<rank type>.<metric>")
        if side not in SIDES:
            raise KeyError(f"get_metric: {name!r}: side {side!r} is not one of "
                           f"{', '.join(SIDES)}")
        if rank_type not in RANK_TYPES:
            raise KeyError(f"get_metric: {name!r}: rank type {rank_type!r} is not "
                           f"one of {', '.join(RANK_TYPES)}")
        metric = metric.lower().replace(" ", "_")
        metric = SYNONYMS.get(metric, metric)
        if metric.startswith("hits@"):
            metric = "hits_at_" + metric[len("hits@"):]
        key = f"{side}.{rank_type}.{metric}"
        flat = self["pykeen"]
        if key not in flat:
            hits = self.get("rank_metrics", {}).get("hits")
            raise KeyError(
                f"get_metric: {name!r}: the report has no {key!r}"
                + (f" (Hits@k for k in {hits} only)" if metric.startswith(("hits_at_", "z_hits_at_", "adjusted_hits_at_")) and hits else "")
                + (" (PyKEEN defines it for realistic ranks only)"
                   if rank_type != "realistic" and f"{side}.realistic.{metric}" in flat else ""))
        return flat[key]

    def to_df(self):
        """PyKEEN's ``to_df()``: a pandas DataFrame with the columns Side,
        Type, Metric and Value, one row per key of the ``pykeen`` block
        (NaN where empty). Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError(
                "Result.to_df needs pandas, which this Python lacks "
                f"({e}); to_flat_dict() gives the same values") from None
        rows = []
        for key, value in self["pykeen"].items():
            side, rank_type, metric = key.split(".", 2)
            rows.append((side, rank_type, metric,
                         math.nan if value is None else value))
        return pd.DataFrame(rows, columns=["Side", "Type", "Metric", "Value"])

    def __reduce__(self):
        return (Result, (dict(self), self._device))


def _on_the_whole(name):
    """dict's method `name`, called on the whole report (Result._whole)."""
    method = getattr(dict, name)

    def forwarded(self, *args, **kwargs):
        return method(self._whole(), *args, **kwargs)

    forwarded.__name__, forwarded.__doc__ = name, method.__doc__
    forwarded.__qualname__ = f"Result.{name}"
    return forwarded


# Everything but the lone keys reads or changes the whole report.
for _name in ("__iter__", "__reversed__", "__len__", "keys", "values", "items", "__eq__",
              "__ne__", "__repr__", "__setitem__", "__delitem__", "__or__", "__ror__",
              "copy", "pop", "popitem", "setdefault", "update"):
    setattr(Result, _name, _on_the_whole(_name))
del _name
