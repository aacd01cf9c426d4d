"""Spec §7 agreement of two outcome TSVs (proofc's format, any backend).

    python3 -m bench.torch.compare A.tsv B.tsv [--report-a A.json] [--report-b B.json]

Rows are matched by (query, mode, entity); both files must list the same
candidates. Passes when >= 99.9% of candidates agree on status and depth and
every metric (MRR, Hits@1/3/10 for head, tail and both; counts as fractions
aside, mean depth) recomputed from each file differs by at most 1e-3. The
positive of a (query, mode) group is its first row in file order, as written
by proofc and by bench.torch.evaluate. With the two JSON reports (proofc's
`timings.run_seconds`, this port's `timings.steady_seconds`) the time ratio is
printed too. Exit status 0: agree, 1: disagree, 2: unreadable input.
"""

import argparse
import json
import math
import sys
from typing import Dict, List, Tuple

# docs/report-schema.md: version 1 is recognized by its header alone; every
# later version starts with "#proofc-outcomes <version>", then its header.
# Versions 2 and 3 keep version 1's columns first, in their order (all this
# reads).
HEADER = ["query", "mode", "entity", "status", "depth", "logp"]
HEADER_LINE = "\t".join(HEADER)
HEADERS = {
    1: HEADER,
    2: HEADER + ["head", "relation", "tail", "optimistic_rank", "pessimistic_rank", "realistic_rank"],
    3: HEADER + ["head", "relation", "tail", "optimistic_rank", "pessimistic_rank", "realistic_rank",
                 "score", "list_size"],
}
VERSION_PREFIX = "#proofc-outcomes "
STATUSES = ("proved", "failed", "truncated")
MIN_AGREEMENT = 0.999
METRIC_TOLERANCE = 1e-3


class InputError(Exception):
    pass


Row = Tuple[str, int, float]  # status, depth, logp


def read_outcomes(path: str) -> Tuple[List[Tuple[str, str, str]], Dict[Tuple[str, str, str], Row]]:
    """Keys in file order and the row of each key."""
    order, rows = [], {}
    with open(path, encoding="utf-8", newline="\n") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    version, first = 1, 0
    if lines and lines[0].startswith(VERSION_PREFIX):
        text = lines[0][len(VERSION_PREFIX):].rstrip("\r")
        if text not in ("2", "3"):
            raise InputError(f"{path}:1: outcomes version '{text}' is not one this reader knows (1, 2, 3)")
        version, first = int(text), 1
    elif lines and lines[0].startswith("#"):
        raise InputError(f"{path}:1: expected '{VERSION_PREFIX}<version>' or the version 1 header")
    header = HEADERS[version]
    if len(lines) <= first or lines[first].rstrip("\r").split("\t") != header:
        raise InputError(f"{path}:{first + 1}: expected the version {version} header line {chr(9).join(header)!r}")
    for number, line in enumerate(lines[first + 1:], start=first + 2):
        fields = line.rstrip("\r").split("\t")
        if len(fields) != len(header):
            raise InputError(f"{path}:{number}: expected {len(header)} TAB-separated fields, found {len(fields)}")
        query, mode, entity, status, depth, logp = fields[:6]
        if mode not in ("head", "tail"):
            raise InputError(f"{path}:{number}: mode '{mode}' is not head or tail")
        if status not in STATUSES:
            raise InputError(f"{path}:{number}: status '{status}' is not one of {', '.join(STATUSES)}")
        try:
            row = (status, int(depth), float(logp))
        except ValueError:
            raise InputError(f"{path}:{number}: depth '{depth}' or logp '{logp}' is not a number") from None
        key = (query, mode, entity)
        if key in rows:
            raise InputError(f"{path}:{number}: candidate (query {query}, {mode}, {entity}) listed twice")
        order.append(key)
        rows[key] = row
    return order, rows


def metrics(order, rows) -> Dict[str, float]:
    """§6 metrics from one file (the positive is the first row of a group)."""
    groups: Dict[Tuple[str, str], List[float]] = {}
    for key in order:
        status, _, logp = rows[key]
        groups.setdefault(key[:2], []).append(logp if status == "proved" else -math.inf)
    out: Dict[str, float] = {}
    for name, modes in (("head", ("head",)), ("tail", ("tail",)), ("both", ("head", "tail"))):
        ranks = []
        for (query, mode), scores in groups.items():
            if mode not in modes:
                continue
            pos = scores[0]
            greater = sum(s > pos for s in scores[1:])
            geq = sum(s >= pos for s in scores[1:])
            ranks.append(((1 + greater) + (1 + geq)) / 2.0)
        n = max(len(ranks), 1)
        out[f"{name}.mrr"] = sum(1.0 / r for r in ranks) / n
        for k in (1, 3, 10):
            out[f"{name}.hits{k}"] = sum(r <= k for r in ranks) / n
    depths = [rows[k][1] for k in order]
    out["mean_depth"] = sum(depths) / max(len(depths), 1)
    for status in STATUSES:
        out[f"{status}_fraction"] = sum(rows[k][0] == status for k in order) / max(len(order), 1)
    return out


def seconds(path: str) -> Tuple[str, float]:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    timings = report.get("timings", {})
    for key in ("steady_seconds", "run_seconds"):
        if isinstance(timings.get(key), (int, float)):
            return key, float(timings[key])
    raise InputError(f"{path}: no timings.steady_seconds or timings.run_seconds")


def compare_outcomes(path_a: str, path_b: str) -> Dict:
    """The §7 verdict for two outcome files (raises InputError, OSError)."""
    order_a, rows_a = read_outcomes(path_a)
    order_b, rows_b = read_outcomes(path_b)
    if set(rows_a) != set(rows_b):
        only_a = len(set(rows_a) - set(rows_b))
        only_b = len(set(rows_b) - set(rows_a))
        raise InputError(f"{path_a} and {path_b} list different candidates "
                         f"({only_a} only in the first, {only_b} only in the second)")
    n = len(order_a)
    agree = sum(rows_a[k][:2] == rows_b[k][:2] for k in order_a)
    both_proved = [k for k in order_a if rows_a[k][0] == rows_b[k][0] == "proved"]
    max_dlogp = max((abs(rows_a[k][2] - rows_b[k][2]) for k in both_proved), default=0.0)
    ma, mb = metrics(order_a, rows_a), metrics(order_b, rows_b)
    worst = max(ma, key=lambda key: abs(ma[key] - mb[key]))
    worst_diff = abs(ma[worst] - mb[worst])
    fraction = agree / n if n else 1.0
    return {"candidates": n, "agree": agree, "fraction": fraction,
            "worst_metric": worst, "worst_metric_diff": worst_diff,
            "max_logp_diff_proved": max_dlogp,
            "mrr": [ma["both.mrr"], mb["both.mrr"]], "hits10": [ma["both.hits10"], mb["both.hits10"]],
            "ok": fraction >= MIN_AGREEMENT and worst_diff <= METRIC_TOLERANCE}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m bench.torch.compare", description=__doc__.split("\n")[0])
    ap.add_argument("a", help="outcomes TSV (e.g. proofc run --outcomes)")
    ap.add_argument("b", help="outcomes TSV (e.g. bench.torch.evaluate --outcomes)")
    ap.add_argument("--report-a", help="JSON report of A (for the time ratio)")
    ap.add_argument("--report-b", help="JSON report of B (for the time ratio)")
    args = ap.parse_args(argv)
    try:
        c = compare_outcomes(args.a, args.b)
        timing = None
        if args.report_a and args.report_b:
            timing = (seconds(args.report_a), seconds(args.report_b))
    except (InputError, OSError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    print(f"candidates {c['candidates']}: status+depth agree on {c['agree']} "
          f"({100 * c['fraction']:.3f}%, need >= {100 * MIN_AGREEMENT:.1f}%); largest metric "
          f"difference {c['worst_metric_diff']:.2e} ({c['worst_metric']}, tolerance "
          f"{METRIC_TOLERANCE:g}); largest logp difference on candidates proved by both "
          f"{c['max_logp_diff_proved']:.2e}")
    print(f"MRR {c['mrr'][0]:.4f} vs {c['mrr'][1]:.4f}, Hits@10 {c['hits10'][0]:.4f} vs "
          f"{c['hits10'][1]:.4f}")
    if timing:
        (ka, ta), (kb, tb) = timing
        print(f"time: {ta:.3f} s ({ka}) vs {tb:.3f} s ({kb}): B/A = {tb / ta:.2f}x")
    print("agree (spec §7)" if c["ok"] else "DISAGREE (spec §7)")
    return 0 if c["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
