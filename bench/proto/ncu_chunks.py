#!/usr/bin/env python3
"""Where a kernel's warps wait, by stretches of its machine code.

Reads Nsight Compute's source page as CSV (`ncu --import R.ncu-rep --page
source --csv --print-source sass`), keeps one kernel's first profiled launch
(the page repeats the listing per launch) and prints, for each stretch of
CHUNK consecutive SASS instructions: its share of the warp-stall samples,
its share of the executed warp instructions and its most frequent opcodes;
then the stall reasons over the whole kernel. The stretches are how
docs/performance.md splits the step policy kernel into embedding, layers,
layer norms and selection (the opcodes say which is which: LDG.E.128 and
FFMA/FMNMX the embedding, HMMA the layers, DFMA the selection).

  ncu --import policy.ncu-rep --page source --csv --print-source sass \\
      > policy-sass.csv
  /usr/bin/python3 bench/proto/ncu_chunks.py policy-sass.csv [--kernel proofc_policy] [--chunk 50]
"""
import argparse
import collections
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    ap.add_argument("--kernel", default="proofc_policy")
    ap.add_argument("--chunk", type=int, default=50)
    args = ap.parse_args()
    kernel, header, rows = None, None, []
    with open(args.csv, newline="") as f:
        for r in csv.reader(f):
            if r and r[0] == "Kernel Name":
                if rows:  # the first launch's listing is enough
                    break
                kernel, header = r[1], None
            elif r and r[0] == "Address":
                header = r
            elif header and kernel == args.kernel:
                rows.append(dict(zip(header, r)))
    if not rows:
        sys.exit(f"ncu_chunks: no SASS rows of kernel {args.kernel} in {args.csv}")
    samples = "Warp Stall Sampling (All Samples)"
    total = sum(number(r[samples]) for r in rows) or 1.0
    executed = sum(number(r["Instructions Executed"]) for r in rows) or 1.0
    print(f"{args.kernel}: {len(rows)} SASS instructions, {total:.0f} stall samples, "
          f"{executed:.0f} warp instructions executed")
    print("first  samples  executed  opcodes")
    for c in range(0, len(rows), args.chunk):
        part = rows[c:c + args.chunk]
        s = sum(number(r[samples]) for r in part)
        e = sum(number(r["Instructions Executed"]) for r in part)
        ops = collections.Counter()
        for r in part:
            words = r["Source"].split()
            if words:
                ops[words[1] if words[0].startswith("@") and len(words) > 1 else words[0]] += 1
        top = " ".join(f"{op}:{n}" for op, n in ops.most_common(5))
        print(f"{c:5d}  {100 * s / total:6.1f}%  {100 * e / executed:7.1f}%  {top}")
    reasons = [k for k in header if k.startswith("stall_") and "Not Issued" not in k]
    sums = {k: sum(number(r[k]) for r in rows) for k in reasons}
    print("stall reasons: " + ", ".join(
        f"{k[6:]} {100 * v / total:.1f}%" for k, v in sorted(sums.items(), key=lambda kv: -kv[1])[:8]))


if __name__ == "__main__":
    main()
