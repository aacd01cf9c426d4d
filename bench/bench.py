"""The proofc benchmark (issue #4): proofc-run per B on the V10 workload, a
large workload, and the PyTorch port (bench/torch), with ratios and the
spec §7 agreement; one JSON document, per-run logs, and a table printed last.

    python3 -m bench.bench [--device cuda|cpu] [--no-torch] [--no-large] ...

bench/run.sh builds proofc-run on the GPU machine and runs this with the
defaults; --device cpu is the smoke mode (host backend, torch uncompiled).
Everything is timed from the tools' own reports:
  proofc  steady wall = timings.run_seconds of the warm runs (median); compile
          = backend_details.modules_seconds (the wait until the kernels
          the first run needs are compiled, on the tier the run starts on:
          extra.cold_kernels_tier; older runners: kernel_cache
          compile_seconds + load_seconds) of a run with an empty
          PROOFC_CACHE_DIR (cold) and of the next run (warm);
          memory = backend_details.device_bytes (the plan's buffers); steps =
          timings.steps, or from a `--cond host` run when the native loop does
          not count them; phases = backend_details.phases of a separate
          profiled run (PROOFC_PROFILE=1, or `--profile` where proofc-run
          has that flag).
  torch   bench.torch.evaluate's JSON: steady = median of the passes after the
          first (CUDA events), compile = the first step call with an empty
          Inductor cache, memory = torch.cuda.max_memory_allocated.
Every row also gets `gpu_used_delta_bytes`: nvidia-smi's memory.used peak
during the run minus before it (the CUDA context included), when nvidia-smi
exists. The whole run keeps to --budget-s: what would not fit is skipped with
a reason in the row, and the JSON is rewritten after every row.
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
from typing import Dict, List, Optional

from . import results as R
from .torch import compare



# The processes, the time budget and the GPU memory watcher (processes.py);
# the tests reach last_line and run_cmd through this module.
from .processes import (RESERVE_S, ROOT, Budget, Finished,  # noqa: E402,F401
                        GpuMemory, last_line, read_json, run_cmd)


# --- the bench ---------------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.cuda = args.device == "cuda"
        self.work = os.path.abspath(args.work)
        self.logs = os.path.join(self.work, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.budget = Budget(args.budget_s)
        self.started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self.rows: List[Dict] = []
        self.ratios: List[Dict] = []
        self.agreement: List[Dict] = []
        self.notes: List[str] = []
        self.workloads: Dict = {}
        self.environment: Dict = {}
        self.outcomes: Dict[str, str] = {}  # row label -> outcomes TSV
        self.profile_flag = False

    # -- bookkeeping --

    def env(self, **extra) -> Dict[str, str]:
        env = dict(os.environ)
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def save(self, finished: bool = False) -> None:
        doc = R.document(self.environment, vars(self.args), self.workloads, self.rows, self.ratios,
                         self.agreement, self.notes, self.started,
                         datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
                         if finished else None, self.budget.elapsed())
        R.write_json(self.args.json, doc)

    def add(self, row: Dict) -> Dict:
        R.finish_row(row)
        self.rows.append(row)
        self.save()
        state = row["status"] if row["status"] != "ok" else f"{R._num(row.get('wall_s'), '.3f')} s"
        print(f"bench: {row['impl']} {row['workload']} B={row['B']}: {state}"
              f"{'' if row['status'] == 'ok' else ' (' + str(row.get('reason')) + ')'}"
              f" [{self.budget.elapsed():.0f} s]", flush=True)
        return row

    def path(self, name: str) -> str:
        return os.path.join(self.logs, name)

    # -- environment --

    def describe_environment(self) -> None:
        a = self.args
        env = {"device": a.device, "host": platform.node(), "platform": platform.platform(),
               "cpus": os.cpu_count(), "python": sys.version.split()[0]}
        if self.cuda and shutil.which("nvidia-smi"):
            out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                                  "--format=csv,noheader"], capture_output=True, text=True).stdout
            env["gpu"] = out.strip()
        try:
            version = subprocess.run([a.proofc_run, "--version"], capture_output=True, text=True,
                                     timeout=30)
            env["proofc_run"] = version.stdout.strip() or version.stderr.strip()
            helptext = subprocess.run([a.proofc_run, "--help"], capture_output=True, text=True,
                                      timeout=30).stdout
            self.profile_flag = "--profile" in helptext
        except (OSError, subprocess.SubprocessError) as e:
            env["proofc_run"] = f"unavailable: {e}"
        env["proofc_run_profile_flag"] = self.profile_flag
        try:
            env["git"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                        text=True, timeout=10).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            env["git"] = None
        self.environment = env
        self.notes.append("proofc per-phase split: a separate profiled run (PROOFC_PROFILE=1: "
                          "host-driven steps, each kernel timed between CUDA events; the "
                          "sum exceeds the graph's wall time by the launch gaps)")
        self.notes.append("torch rows: no per-phase split (Inductor fuses across the phases)")

    # -- proofc --

    def proofc(self, workload: str, B: int, bundle: str, data: str, weights: str, queries: int,
               corruptions: int, repeats: int, keep_outcomes: bool, variant: str = "",
               run_flags=()) -> Dict:
        """A proofc row; `variant` names one run with `run_flags` added
        (e.g. "nomemo": --memo-entries 0)."""
        a = self.args
        impl = ("proofc" if self.cuda else "proofc-host") + (f"-{variant}" if variant else "")
        row = R.new_row(impl, workload, B)
        tag = f"{impl}-{workload}-b{B}"
        # Cold means both caches empty: proofc's kernel cache and the CUDA
        # driver's JIT cache (CUDA_CACHE_PATH), which would otherwise keep the
        # PTX of an earlier run with the same B.
        cache = os.path.join(self.work, f"kernel-cache-{workload}-b{B}")
        jit_cache = os.path.join(self.work, f"cuda-jit-cache-{workload}-b{B}")
        for d in (cache, jit_cache):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        env = self.env(PROOFC_CACHE_DIR=cache, CUDA_CACHE_PATH=jit_cache)

        def cmd(report, outcomes=None, extra=()):
            c = [a.proofc_run, bundle, "--data", data, "--weights", weights, "--queries", str(queries),
                 "--corruptions", str(corruptions), "--device", a.device, "--quiet",
                 "--report", report]
            if not self.cuda and a.threads:
                c += ["--threads", str(a.threads)]
            if outcomes:
                c += ["--outcomes", outcomes]
            return c + list(run_flags) + list(extra)

        def one(name, outcomes=None, extra=(), sampler=None, run_env=None):
            report = self.path(f"{tag}-{name}.json")
            log = self.path(f"{tag}-{name}.log")
            row["logs"] += [os.path.basename(log), os.path.basename(report)]
            with (sampler or GpuMemory(False)):
                done = run_cmd(cmd(report, outcomes, extra), log, run_env or env,
                               self.budget.left())
            if not done.ok:
                return done, None
            rep = read_json(report)
            if rep is None:
                return Finished(1, done.seconds, False, log), None
            return done, rep

        if self.budget.left() < 5:
            return self.skip(row, "time budget")
        done, cold = one("cold")
        if cold is None:
            row.update(status="timeout" if done.timed_out else "failed", reason=done.why())
            return self.add(row)
        shape_b = cold.get("program", {}).get("shape", {}).get("B")
        if shape_b != B:
            row.update(status="failed", reason=f"{bundle}: program B is {shape_b}, expected {B}")
            return self.add(row)
        process_s = done.seconds
        row["candidates"] = cold["metrics"]["candidates"]
        row["compile_cold_s"], row["compile_source"] = compile_seconds(cold)
        row["metrics"] = short_metrics(cold["metrics"])
        row["extra"]["cold_run_s"] = cold["timings"]["run_seconds"]
        row["extra"]["device"] = cold.get("device")
        # Each module's own compile (they run in parallel): which one the
        # cold start waits for (runners before issue 29: absent).
        modules = (cold.get("backend_details") or {}).get("module_compile_seconds")
        if modules is not None:
            row["extra"]["module_compile_seconds_cold"] = modules
        # The tier the cold run ran on (runtime/src/cuda/CompileTiers.h;
        # runners before it: absent) and, where it started on the quick
        # one, when the optimized kernels were compiled (None: after the run).
        details = cold.get("backend_details") or {}
        if "kernels_tier" in details:
            row["extra"]["cold_kernels_tier"] = details["kernels_tier"]
        if "optimized_modules_seconds" in details:
            row["extra"]["compile_optimized_s"] = details["optimized_modules_seconds"]

        walls, warm_reports = [], []
        sampler = GpuMemory(self.cuda)
        for i in range(repeats):
            if i > 0 and self.budget.left() < process_s * 1.5:
                row["reason"] = f"{i} of {repeats} warm runs (time budget)"
                break
            outcomes = self.path(f"{tag}.tsv") if keep_outcomes and i == 0 else None
            done, rep = one(f"warm{i + 1}", outcomes, sampler=sampler if i == 0 else None)
            if rep is None:
                row.update(status="timeout" if done.timed_out else "failed", reason=done.why())
                return self.add(row)
            warm_reports.append(rep)
            walls.append(rep["timings"]["run_seconds"])
            if outcomes:
                self.outcomes[f"{impl} {workload} B={B}"] = outcomes
                row["logs"].append(os.path.basename(outcomes))
        warm = warm_reports[0]
        row["wall_runs_s"] = walls
        row["compile_warm_s"], _ = compile_seconds(warm)
        row["gpu_used_delta_bytes"] = sampler.delta_bytes()
        details = warm.get("backend_details") or {}
        if "device_bytes" in details:
            row["peak_mem_bytes"] = int(details["device_bytes"])
            row["peak_mem_source"] = "backend_details.device_bytes (the plan's buffers)"
        row["extra"]["total_seconds_warm"] = warm["timings"].get("total_seconds")
        row["extra"]["setup_seconds_warm"] = warm["timings"].get("setup_seconds")
        if details:
            row["extra"]["cond"] = details.get("cond")
            row["extra"]["kernel_cache_warm"] = details.get("kernel_cache")
        steps = warm["timings"].get("steps") or 0
        if steps > 0:
            row["steps"], row["steps_source"] = steps, "timings.steps"

        # The per-phase split: a separate, untimed run (kernels launched one
        # by one between CUDA events: PROOFC_PROFILE=1, or --profile where
        # proofc-run has the flag).
        if self.cuda and self.budget.left() > process_s * 1.5:
            if self.profile_flag:
                done, prof = one("profile", extra=["--profile"])
            else:
                done, prof = one("profile", run_env=dict(env, PROOFC_PROFILE="1"))
            phases = ((prof or {}).get("backend_details") or {}).get("phases")
            if phases:
                row["phases"] = {k: phases.get(k) for k in ("policy_s", "engine_s", "rest_s")}
                if phases.get("fused_s"):
                    # The persistent kernel scores, advances and derives:
                    # one launch, no split between policy and engine.
                    row["phases"] = {"policy_s": None, "engine_s": None,
                                     "rest_s": phases.get("rest_s")}
                    row["reason"] = ("persistent schedule: one kernel runs every "
                                     "slot to the end (no per-phase split; "
                                     "steps = loop iterations)")
                row["extra"]["profile_run_s"] = prof["timings"]["run_seconds"]
            if prof and not row["steps"] and (prof["timings"].get("steps") or 0) > 0:
                row["steps"], row["steps_source"] = prof["timings"]["steps"], "profile run timings.steps"
            if prof is None:
                row["extra"]["profile_error"] = done.why()
        # Steps: the native device loop does not count them; the host-driven
        # loop (the V10 way) does, exactly. Its wall time is kept too.
        if self.cuda and not row["steps"]:
            if self.budget.left() > process_s * 1.5:
                done, host = one("cond-host", extra=["--cond", "host"])
                if host and (host["timings"].get("steps") or 0) > 0:
                    row["steps"], row["steps_source"] = host["timings"]["steps"], "--cond host run"
                    row["extra"]["cond_host_run_s"] = host["timings"]["run_seconds"]
                elif host is None:
                    row["extra"]["cond_host_error"] = done.why()
            else:
                row["extra"]["steps_skipped"] = "time budget"
        return self.add(row)

    def skip(self, row: Dict, reason: str) -> Dict:
        row.update(status="skipped", reason=reason)
        return self.add(row)

    # -- torch --

    def torch(self, variant: str, B: int, data: str, weights: str, queries: int,
              corruptions: int) -> Dict:
        a = self.args
        impl = f"torch-{variant}" + ("" if self.cuda else "(eager)")
        row = R.new_row(impl, "v10", B)
        if self.budget.left() < a.torch_min_s:
            return self.skip(row, f"time budget ({self.budget.left():.0f} s left, "
                                  f"--torch-min-s {a.torch_min_s:.0f})")
        tag = f"torch-{variant}-v10-b{B}"
        cache = os.path.join(self.work, f"inductor-cache-{variant}")
        shutil.rmtree(cache, ignore_errors=True)
        os.makedirs(cache)
        report, outcomes, log = (self.path(f"{tag}.json"), self.path(f"{tag}.tsv"),
                                 self.path(f"{tag}.log"))
        cmd = [a.torch_python, "-m", "bench.torch.evaluate", "--data", data, "--weights", weights,
               "--queries", str(queries), "--corruptions", str(corruptions), "--batch", str(B),
               "--variant", variant, "--passes", str(a.torch_passes), "--device", a.device,
               "--outcomes", outcomes, "--json", report]
        if not self.cuda:
            cmd.append("--no-compile")
        env = self.env(TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"))
        row["logs"] += [os.path.basename(log), os.path.basename(report), os.path.basename(outcomes)]
        sampler = GpuMemory(self.cuda)
        with sampler:
            done = run_cmd(cmd, log, env, self.budget.left())
        rep = read_json(report) if done.ok else None
        if rep is None:
            row.update(status="timeout" if done.timed_out else "failed",
                       reason=done.why() if not done.ok else f"{report}: unreadable")
            return self.add(row)
        self.outcomes[f"{impl} v10 B={B}"] = outcomes
        t = rep["timings"]
        row["candidates"] = rep["metrics"]["candidates"]
        row["wall_s"] = t["steady_seconds"]
        row["wall_runs_s"] = t.get("pass_seconds", [])[1:] or [t["steady_seconds"]]
        row["steps"], row["steps_source"] = t["steps"], "steps per pass (host checks every 16)"
        if rep.get("compiled"):
            row["compile_cold_s"] = t["compile_seconds"]
            row["compile_source"] = "first step call: Dynamo + Inductor, empty Inductor cache"
        memory = rep.get("memory") or {}
        if memory:
            row["peak_mem_bytes"] = memory["max_allocated_bytes"]
            row["peak_mem_source"] = "torch.cuda.max_memory_allocated"
            row["extra"]["max_reserved_bytes"] = memory["max_reserved_bytes"]
        row["gpu_used_delta_bytes"] = sampler.delta_bytes()
        row["metrics"] = short_metrics(rep["metrics"])
        row["cudagraphs"] = cudagraph_state(rep, log)
        partitions = graph_partitions(log)
        if partitions:
            row["extra"]["inductor_graph_partitions"] = partitions
        row["extra"].update({"torch": rep.get("torch"), "first_pass_s": t.get("first_pass_seconds"),
                             "setup_s": t.get("setup_seconds"), "dynamo": rep.get("dynamo"),
                             "compile_mode": rep.get("compile_mode"),
                             "tf32_matmul": rep.get("tf32_matmul"),
                             "process_s": done.seconds})
        # Warm compile: a second process on the Inductor/Triton caches the
        # first one filled (two passes: enough for a second steady time).
        if a.torch_warm and rep.get("compiled") and self.budget.left() > done.seconds * 1.2:
            warm_report = self.path(f"{tag}-warm.json")
            warm_log = self.path(f"{tag}-warm.log")
            warm_cmd = [c if c != report else warm_report for c in cmd if c != outcomes]
            warm_cmd.remove("--outcomes")
            warm_cmd[warm_cmd.index("--passes") + 1] = "2"
            w = run_cmd(warm_cmd, warm_log, env, self.budget.left())
            wrep = read_json(warm_report) if w.ok else None
            row["logs"] += [os.path.basename(warm_log)]
            if wrep:
                row["compile_warm_s"] = wrep["timings"]["compile_seconds"]
                row["extra"]["warm_steady_s"] = wrep["timings"]["steady_seconds"]
                row["extra"]["warm_process_s"] = w.seconds
            else:
                row["extra"]["warm_error"] = w.why()
        elif a.torch_warm and rep.get("compiled"):
            row["extra"]["warm_skipped"] = "time budget"
        return self.add(row)

    # -- comparisons --

    def row_of(self, impl: str, workload: str, B: int) -> Optional[Dict]:
        for r in self.rows:
            if r["impl"] == impl and r["workload"] == workload and r["B"] == B:
                return r
        return None

    def agree(self, a_label: str, b_label: str) -> None:
        a, b = self.outcomes.get(a_label), self.outcomes.get(b_label)
        entry = {"a": a_label, "b": b_label}
        if not a or not b:
            entry["error"] = "no outcomes (run failed or skipped)"
        else:
            try:
                entry.update(compare.compare_outcomes(a, b))
            except (compare.InputError, OSError) as e:
                entry["error"] = str(e)
        self.agreement.append(entry)
        self.save()


def compile_seconds(report: Dict):
    details = report.get("backend_details") or {}
    if "modules_seconds" in details:
        return (details["modules_seconds"],
                "backend_details.modules_seconds (every module, compiled in parallel, and loaded)")
    cache = details.get("kernel_cache")
    if cache:
        return (cache.get("compile_seconds", 0.0) + cache.get("load_seconds", 0.0),
                "backend_details.kernel_cache compile_seconds + load_seconds")
    return report["timings"].get("compile_seconds"), "timings.compile_seconds (bundle read)"


def short_metrics(m: Dict) -> Dict:
    return {"mrr": m["both"]["mrr"], "hits1": m["both"]["hits1"], "hits10": m["both"]["hits10"],
            "proved": m["proved"], "failed": m["failed"], "truncated": m["truncated"],
            "mean_depth": m["mean_depth"]}


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def cudagraph_state(rep: Dict, log: str) -> Optional[str]:
    """"captured", or "skipped: <Inductor's reason>" (report, else the log),
    without the stack trace Inductor appends ("... Found from : <trace>")."""
    if not rep.get("compiled"):
        return None
    reasons = list(rep.get("cudagraph_skip_reasons") or [])
    if not reasons:
        reasons = re.findall(r"(skipping cudagraphs due to [^\n]*)", read_text(log))
    if rep.get("cudagraph_skips") or reasons:
        if not reasons:
            return f"skipped: {rep.get('cudagraph_skips')} skip(s)"
        return "skipped: " + re.sub(r"\.?\s*Found from\s*:.*$", "", reasons[0]).strip()
    return "captured"


def graph_partitions(log: str) -> Optional[str]:
    """Inductor's "Created N graph partitions: ..." line (torch >= 2.9 logs it
    on the cudagraphs artifact), or None."""
    found = re.findall(r"(Created \d+ graph partitions?[^\n]*)", read_text(log))
    return found[0].strip() if found else None


def add_ratios(bench: "Bench", args) -> None:
    """Ratios (torch / proofc: > 1 means proofc is faster) and the spec §7
    agreement checks: at each torch B against proofc at the same B, then the
    headline, each side at its fastest B (the port's passes get faster with
    B as proofc's do: comparing at one B alone flatters whichever side that
    B suits)."""
    impl = "proofc" if bench.cuda else "proofc-host"
    tb0 = args.torch_batches[0]
    # The proofc run the others are checked against: at the port's first B
    # where proofc ran it, else at proofc's first B (a bench whose --batches
    # lack the port's B would otherwise check against no run at all).
    ref = tb0 if tb0 in args.batches else args.batches[0]
    torch_impls = [] if args.no_torch else [f"torch-{v}" + ("" if bench.cuda else "(eager)")
                                            for v in args.torch_variants]
    for tb in args.torch_batches:
        base = bench.row_of(impl, "v10", tb)
        nomemo = bench.row_of(f"{impl}-nomemo", "v10", tb)
        for torch_impl in torch_impls:
            torch_row = bench.row_of(torch_impl, "v10", tb)
            if base is None and torch_row is None:
                continue
            bench.ratios.append(R.ratio_entry(f"{torch_impl} / {impl} (v10, B={tb})", "v10", tb,
                                              torch_row, base))
            if nomemo:
                bench.ratios.append(R.ratio_entry(f"{torch_impl} / {impl}-nomemo (v10, B={tb})",
                                                  "v10", tb, torch_row, nomemo))
            if torch_row and base:
                bench.agree(f"{impl} v10 B={tb}", f"{torch_row['impl']} v10 B={tb}")
            elif torch_row:
                bench.agree(f"{impl} v10 B={ref}", f"{torch_row['impl']} v10 B={tb}")
    fastest_torch = R.fastest(bench.rows, torch_impls, "v10")
    fastest_proofc = R.fastest(bench.rows, [impl], "v10")
    if fastest_torch and fastest_proofc:
        bench.ratios.append(R.ratio_entry(
            f"fastest torch / fastest {impl} (v10: {fastest_torch['impl']} B={fastest_torch['B']}, "
            f"{impl} B={fastest_proofc['B']})", "v10", fastest_proofc["B"], fastest_torch,
            fastest_proofc))
        for side in (fastest_torch["impl"], impl):
            note = R.fastest_at_edge(bench.rows, side, "v10")
            if note:
                bench.notes.append(note)
    nomemo = bench.row_of(f"{impl}-nomemo", "v10", tb0)
    if nomemo:
        bench.ratios.append(R.ratio_entry(f"{impl}-nomemo / {impl} (v10, B={tb0}: the step memo)",
                                          "v10", tb0, nomemo, bench.row_of(impl, "v10", tb0)))
        bench.agree(f"{impl} v10 B={tb0}", f"{impl}-nomemo v10 B={tb0}")
    for B in args.batches:
        if B != ref:
            bench.agree(f"{impl} v10 B={ref}", f"{impl} v10 B={B}")


def parse_args(argv=None):
    env_out = os.environ.get("OUT") or os.path.join(ROOT, ".out")
    ap = argparse.ArgumentParser(prog="python3 -m bench.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda: the benchmark; cpu: smoke mode (host backend, torch uncompiled)")
    ap.add_argument("--proofc-run", default=os.path.join(ROOT, "build-gpu-device", "bin", "proofc-run"))
    ap.add_argument("--gpudata", default=os.path.join(ROOT, ".gpudata"),
                    help="what bench/prepare.sh made (data, weights, bundles, bench-manifest.json)")
    ap.add_argument("--json", default=os.path.join(env_out, "bench-results.json"))
    ap.add_argument("--work", default=os.path.join(ROOT, ".out", "bench-work"),
                    help="per-run logs, reports, outcomes, caches (logs/ is what run.sh packs)")
    ap.add_argument("--budget-s", type=float, default=540.0,
                    help="wall-clock budget of the whole bench; what does not fit is skipped")
    ap.add_argument("--batches", default="256,1024,4096,8192,12288,14336",
                    help="B values of the V10 workload (12288 the fastest since row 51: a B on "
                         "either side of it brackets it, so the headline is not a bound)")
    ap.add_argument("--queries", type=int, default=100, help="V10: first N test queries")
    ap.add_argument("--corruptions", type=int, default=100, help="V10: corruptions per query and mode")
    ap.add_argument("--repeats", type=int, default=3, help="V10: warm proofc runs (median)")
    ap.add_argument("--no-large", action="store_true", help="skip the large workload")
    ap.add_argument("--large-queries", type=int, default=250,
                    help="large workload: first N test queries (full filtered ranking)")
    ap.add_argument("--large-corruptions", type=int, default=0,
                    help="large workload: corruptions (0: every filtered corruption)")
    ap.add_argument("--large-batches", default="1024,4096", help="B values of the large workload")
    ap.add_argument("--large-repeats", type=int, default=1)
    ap.add_argument("--no-memo-off", action="store_true",
                    help="skip the proofc row with the step memo off (--memo-entries 0)")
    ap.add_argument("--no-torch", action="store_true", help="skip the PyTorch port")
    ap.add_argument("--torch-variants", default="cond,nocond")
    ap.add_argument("--torch-batches", default="256,4096",
                    help="B values of the torch port (its fastest B is what the headline ratio "
                         "compares: the port's passes get faster with B, as proofc's do)")
    ap.add_argument("--torch-passes", type=int, default=4,
                    help="passes per torch run: the first compiles/warms up, the median of the rest is steady")
    ap.add_argument("--torch-python", default=sys.executable)
    ap.add_argument("--torch-min-s", type=float, default=150.0,
                    help="do not start a torch variant with less budget left than this")
    ap.add_argument("--no-torch-warm", dest="torch_warm", action="store_false",
                    help="do not rerun each compiled torch variant on its warm Inductor cache "
                         "(the warm compile time)")
    ap.add_argument("--threads", type=int, default=0, help="host backend threads (cpu mode)")
    args = ap.parse_args(argv)
    for name in ("batches", "large_batches", "torch_batches"):
        try:
            values = [int(x) for x in getattr(args, name).split(",") if x]
        except ValueError:
            ap.error(f"--{name.replace('_', '-')}: expected comma-separated integers")
        if not values or min(values) < 1:
            ap.error(f"--{name.replace('_', '-')}: expected positive integers")
        setattr(args, name, values)
    args.torch_variants = [v for v in args.torch_variants.split(",") if v]
    for v in args.torch_variants:
        if v not in ("cond", "nocond"):
            ap.error(f"--torch-variants: unknown variant '{v}' (cond, nocond)")
    if args.repeats < 1 or args.large_repeats < 1 or args.torch_passes < 1:
        ap.error("--repeats, --large-repeats and --torch-passes must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    manifest_path = os.path.join(args.gpudata, "bench-manifest.json")
    manifest = read_json(manifest_path)
    if manifest is None:
        print(f"bench: error: {manifest_path}: missing or not JSON (run bench/prepare.sh here first)",
              file=sys.stderr)
        return 2
    if not os.access(args.proofc_run, os.X_OK):
        print(f"bench: error: --proofc-run {args.proofc_run}: not an executable", file=sys.stderr)
        return 2
    bench = Bench(args)
    bench.describe_environment()
    if manifest.get("git"):  # what was prepared, not the GPU machine's checkout
        bench.environment["git"] = manifest["git"]
    g = lambda rel: os.path.join(args.gpudata, rel)
    v10, large = manifest["v10"], manifest["large"]
    bench.workloads = {
        "v10": {"dataset": v10["dataset"], "split": "test", "queries": args.queries,
                "corruptions": args.corruptions, "modes": "head+tail", "weights": v10["weights_kind"],
                "shape": {"A": 6, "S": 120, "D": 20, "d": 64, "L": 2}, "batches": args.batches},
        "large": {"dataset": large["dataset"], "split": "test", "queries": args.large_queries,
                  "corruptions": args.large_corruptions, "modes": "head+tail",
                  "weights": large["weights_kind"], "batches": args.large_batches,
                  "skipped": args.no_large},
    }
    bench.notes.append(f"large workload: {large['dataset']} with {large['weights_kind']}")
    bench.save()

    # 1. proofc, V10 workload, every B (outcomes kept for the agreement checks).
    for B in args.batches:
        bundle = v10["bundles"].get(str(B))
        if bundle is None:
            bench.skip(R.new_row("proofc" if bench.cuda else "proofc-host", "v10", B),
                       f"no bundle for B={B} in {manifest_path} (BENCH_BATCHES of prepare.sh)")
            continue
        bench.proofc("v10", B, g(bundle), g(v10["data"]), g(v10["weights"]), args.queries,
                     args.corruptions, args.repeats, keep_outcomes=True)
    # 1b. proofc at the torch port's first B with the step memo off (CUDA):
    # what the memo adds, shown beside the ratios it gives.
    tb0 = args.torch_batches[0]
    if bench.cuda and not args.no_memo_off and v10["bundles"].get(str(tb0)):
        bench.proofc("v10", tb0, g(v10["bundles"][str(tb0)]),
                     g(v10["data"]), g(v10["weights"]), args.queries, args.corruptions,
                     args.repeats, keep_outcomes=True, variant="nomemo",
                     run_flags=["--memo-entries", "0"])
    # 2. proofc, the large workload.
    if not args.no_large:
        for B in args.large_batches:
            bundle = v10["bundles"].get(str(B))
            row = R.new_row("proofc" if bench.cuda else "proofc-host", "large", B)
            if bundle is None:
                bench.skip(row, f"no bundle for B={B} in {manifest_path}")
                continue
            bench.proofc("large", B, g(bundle), g(large["data"]), g(large["weights"]),
                         args.large_queries, args.large_corruptions, args.large_repeats,
                         keep_outcomes=False)
    # 3. the PyTorch port, V10 workload, every variant at every torch B.
    if not args.no_torch:
        for variant in args.torch_variants:
            for tb in args.torch_batches:
                bench.torch(variant, tb, g(v10["data"]), g(v10["weights"]), args.queries,
                            args.corruptions)
    else:
        bench.notes.append("torch port skipped (--no-torch)")

    add_ratios(bench, args)
    bench.save(finished=True)

    table = R.format_table(bench.rows, bench.ratios, bench.agreement, bench.notes)
    with open(os.path.join(bench.logs, "table.txt"), "w", encoding="utf-8") as f:
        f.write(table + "\n")
    failed = [r for r in bench.rows if r["status"] in ("failed", "timeout")]
    disagree = [x for x in bench.agreement if not x.get("ok")]
    print(f"bench: {len(bench.rows)} rows ({len(failed)} failed), {len(bench.agreement)} agreement "
          f"checks ({len(disagree)} not passing), {bench.budget.elapsed():.0f} s; JSON {args.json}")
    print()
    print(table, flush=True)
    return 1 if failed or disagree else 0


if __name__ == "__main__":
    sys.exit(main())
