"""The bench's results: rows, ratios, agreement, the JSON document and the
text table (schema in bench/README.md). Pure functions, no I/O but
write_json, so that the formatting is tested without a GPU
(bench/test_bench.py).

A row is one (implementation, workload, B): a dict with the keys of
ROW_KEYS (None where not measured). The JSON document is
{"schema": "proofc-bench-results", "version": 1, ...}.
"""

import json
import math
import os
import statistics
from typing import Dict, Iterable, List, Optional

from .fileio import write_atomically

SCHEMA, VERSION = "proofc-bench-results", 1
MIB = 1024.0 * 1024.0

ROW_KEYS = (
    "impl",             # "proofc", "proofc-host", "torch-cond", "torch-nocond", ...
    "workload",         # "v10" or "large"
    "B",                # slots
    "status",           # "ok", "failed", "timeout", "skipped"
    "reason",           # why not ok (one line), else None
    "candidates",
    "wall_s",           # steady wall time: median over the timed runs/passes
    "wall_runs_s",      # every timed run/pass (list)
    "ms_per_candidate",
    "candidates_per_s",
    "steps", "steps_source",
    "compile_cold_s", "compile_warm_s", "compile_source",
    "peak_mem_bytes", "peak_mem_source",
    "gpu_used_delta_bytes",  # nvidia-smi memory.used peak minus before (context included)
    "phases",           # {"policy_s", "engine_s", "rest_s"} or None
    "cudagraphs",       # torch: "captured" or "skipped: <reason>"; else None
    "extra",            # anything else worth keeping (dict)
    "metrics",          # {"mrr", "hits10", "proved", "failed", "truncated", "mean_depth"}
    "logs",             # file names in the logs tarball
)


def new_row(impl: str, workload: str, B: int) -> Dict:
    row = {key: None for key in ROW_KEYS}
    row.update(impl=impl, workload=workload, B=B, status="ok", logs=[], extra={})
    return row


def finish_row(row: Dict) -> Dict:
    """Derived columns from candidates and the timed runs."""
    runs = [t for t in (row.get("wall_runs_s") or []) if t is not None]
    if runs and row.get("wall_s") is None:
        row["wall_s"] = statistics.median(runs)
    wall, n = row.get("wall_s"), row.get("candidates")
    if wall is not None and n:
        row["ms_per_candidate"] = 1000.0 * wall / n
        row["candidates_per_s"] = n / wall if wall > 0 else None
    return row


def ratio_entry(name: str, workload: str, B: int, numerator: Optional[Dict],
                denominator: Optional[Dict]) -> Dict:
    """numerator wall / denominator wall (e.g. torch / proofc: > 1 means proofc is faster)."""
    def wall(row):
        return row.get("wall_s") if row and row.get("status") == "ok" else None
    a, b = wall(numerator), wall(denominator)
    value = a / b if a is not None and b else None
    return {"name": name, "workload": workload, "B": B,
            "numerator": _label(numerator), "denominator": _label(denominator),
            "numerator_wall_s": a, "denominator_wall_s": b, "ratio": value}


def _ran(rows: List[Dict], impls: List[str], workload: str) -> List[Dict]:
    """The rows of `impls` on `workload` that ran (status ok, a wall time)."""
    return [r for r in rows if r["impl"] in impls and r["workload"] == workload
            and r.get("status") == "ok" and r.get("wall_s")]


def fastest(rows: List[Dict], impls: List[str], workload: str) -> Optional[Dict]:
    """The row of `impls` on `workload` with the least wall time among those
    that ran (None when none did)."""
    ran = _ran(rows, impls, workload)
    return min(ran, key=lambda r: r["wall_s"]) if ran else None


def fastest_at_edge(rows: List[Dict], impl: str, workload: str) -> Optional[str]:
    """A note when `impl`'s fastest B on `workload` was not bracketed: it is
    the only B that ran, or the smallest or the largest of those that ran,
    so its own fastest B may lie beyond them (None when it was bracketed or
    nothing ran). A headline ratio against such a row is a bound, not a
    measurement: the cond-free torch port was fastest at 4096 on the H200s
    and at 2048 on an H100 (bench/RESULTS.md, 2026-12-05)."""
    ran = _ran(rows, [impl], workload)
    if not ran:
        return None
    best = min(ran, key=lambda r: r["wall_s"])
    batches = sorted(r["B"] for r in ran)
    if len(batches) == 1:
        where = "the only B it ran"
    elif best["B"] == batches[0]:
        where = "the smallest B it ran"
    elif best["B"] == batches[-1]:
        where = "the largest B it ran"
    else:
        return None
    return (f"{impl} on {workload} is fastest at B={best['B']}, {where}: its own fastest B "
            f"may lie beyond those run, so a ratio against it is a bound (run more B)")


def _label(row: Optional[Dict]) -> Optional[str]:
    return f"{row['impl']} {row['workload']} B={row['B']}" if row else None


def document(environment: Dict, options: Dict, workloads: Dict, rows: List[Dict],
             ratios: List[Dict], agreement: List[Dict], notes: List[str],
             started: str, finished: Optional[str], elapsed_s: float) -> Dict:
    return {"schema": SCHEMA, "version": VERSION, "started": started, "finished": finished,
            "elapsed_s": elapsed_s, "environment": environment, "options": options,
            "workloads": workloads, "rows": rows, "ratios": ratios, "agreement": agreement,
            "notes": notes}


def _finite(x):
    """JSON has no NaN/Infinity: write them as null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def write_json(path: str, doc: Dict) -> None:
    """Atomically (a reader sees the old or the new file, never a torn one)."""
    write_atomically(path, json.dumps(_finite(doc), indent=2, sort_keys=False,
                                      allow_nan=False) + "\n")


# --- the text table ---------------------------------------------------------

def _num(x, fmt: str) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return format(x, fmt)


def _mib(x) -> str:
    return "-" if x is None else f"{x / MIB:.0f}"


def _phase(row: Dict, key: str) -> str:
    phases = row.get("phases") or {}
    return _num(phases.get(key), ".3f")


TABLE_COLUMNS = (
    ("impl", lambda r: r["impl"]),
    ("workload", lambda r: r["workload"]),
    ("B", lambda r: str(r["B"])),
    ("cands", lambda r: _num(r.get("candidates"), "d")),
    ("wall_s", lambda r: _num(r.get("wall_s"), ".3f")),
    ("ms/cand", lambda r: _num(r.get("ms_per_candidate"), ".5f")),
    ("cand/s", lambda r: _num(r.get("candidates_per_s"), ",.0f")),
    ("steps", lambda r: _num(r.get("steps"), "d")),
    ("compile_cold_s", lambda r: _num(r.get("compile_cold_s"), ".2f")),
    ("compile_warm_s", lambda r: _num(r.get("compile_warm_s"), ".2f")),
    ("mem_MiB", lambda r: _mib(r.get("peak_mem_bytes"))),
    ("smi_MiB", lambda r: _mib(r.get("gpu_used_delta_bytes"))),
    ("policy_s", lambda r: _phase(r, "policy_s")),
    ("engine_s", lambda r: _phase(r, "engine_s")),
    ("rest_s", lambda r: _phase(r, "rest_s")),
    ("note", lambda r: _note(r)),
)


def _note(row: Dict) -> str:
    if row.get("status") != "ok":
        return f"{row['status'].upper()}: {row.get('reason') or ''}".strip()
    parts = []
    if row.get("cudagraphs"):
        parts.append(f"cudagraphs {row['cudagraphs']}")
    if row.get("reason"):
        parts.append(row["reason"])
    return "; ".join(parts)


def align(rows: List[List[str]]) -> str:
    """Left-aligned columns separated by two spaces (no `column` needed)."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(width)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def format_table(rows: Iterable[Dict], ratios: Iterable[Dict], agreement: Iterable[Dict],
                 notes: Iterable[str] = ()) -> str:
    header = [name for name, _ in TABLE_COLUMNS]
    body = [[get(r) for _, get in TABLE_COLUMNS] for r in rows]
    lines = [align([header] + body)]
    ratios, agreement, notes = list(ratios), list(agreement), list(notes)
    if ratios:
        lines.append("")
        lines.append(align([["ratio", "value", "numerator", "denominator"]] + [
            [r["name"], "-" if r["ratio"] is None else f"{r['ratio']:.2f}x",
             f"{r['numerator'] or '-'} ({_num(r['numerator_wall_s'], '.3f')} s)",
             f"{r['denominator'] or '-'} ({_num(r['denominator_wall_s'], '.3f')} s)"]
            for r in ratios]))
    if agreement:
        lines.append("")
        lines.append(align([["agreement (spec §7)", "candidates", "same status+depth",
                             "max |d metric|", "result"]] + [
            [f"{a['a']} vs {a['b']}", _num(a.get("candidates"), "d"),
             "-" if a.get("fraction") is None else f"{100 * a['fraction']:.3f}%",
             _num(a.get("worst_metric_diff"), ".2e"), _verdict(a)]
            for a in agreement]))
    if notes:
        lines.append("")
        lines.extend(f"note: {n}" for n in notes)
    return "\n".join(lines)


def _verdict(a: Dict) -> str:
    if a.get("error"):
        return f"ERROR: {a['error']}"
    return "PASS" if a.get("ok") else "FAIL"
