#!/usr/bin/env python3
"""Compares scale-out records (measure.py) against the first: the report's
metrics, rank_metrics and pykeen must be equal exactly (every float's bits:
JSON round-trips doubles exactly), and prints the scaling table.

  compare.py ONE.json OTHER.json...   (exit 1 when a result differs)

The GPU run is the reports' run_seconds: summed over MPI ranks and over the
device workers of each (--devices, --workers-per-device, 2 a GPU by
default), whose runs overlap; so e2e / run falls below 1 with several
workers, and the efficiency is taken from the end-to-end times.
"""
import json
import sys


def main():
    records = [json.load(open(p)) for p in sys.argv[1:]]
    base = records[0]
    ok = True
    t1 = base["wall_seconds"]
    print("| run | GPUs | candidates | end to end (s) | GPU run (s, summed over ranks and workers) | e2e / run |"
          " efficiency T1/(N*TN) | host max RSS (GiB) | GPU peak (MiB) | identical |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in records:
        same = r.get("results") == base.get("results") and r.get("rc") == 0
        ok &= same
        gpus = r.get("gpus", 1)
        run = (r.get("timings") or {}).get("run_seconds")
        eff = t1 / (gpus * r["wall_seconds"])
        peaks = ", ".join(f"{k}: {v - r['gpu_idle_mib'].get(k, 0)}"
                          for k, v in r["gpu_peak_mib"].items())
        print(f"| {r['name']} | {gpus} | {r.get('candidates')} | {r['wall_seconds']:.1f} | "
              f"{run if run is None else round(run, 1)} | "
              f"{r.get('end_to_end_over_run', float('nan')):.3f} | {eff:.3f} | "
              f"{r['max_rss_gib']:.2f} | {peaks} | {'yes' if same else 'NO'} |")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
