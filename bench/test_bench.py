"""Checks of the bench's table/JSON code and its pure helpers (no GPU, no
torch, no proofc binary):

    python3 -m unittest bench.test_bench -v
"""

import contextlib
import io
import json
import os
import tempfile
import unittest

from . import bench as B
from . import results as R
from .torch import compare as C
from .proto import block_timeline as BT
from .proto import symbolize_stacks as SS
from .proto import workload_stats as W


def _row(impl="proofc", workload="v10", b=256, **kw):
    row = R.new_row(impl, workload, b)
    row.update(kw)
    return R.finish_row(row)


class RowTest(unittest.TestCase):
    def test_derived_columns_from_median_of_runs(self):
        row = _row(candidates=1000, wall_runs_s=[0.3, 0.1, 0.2])
        self.assertAlmostEqual(row["wall_s"], 0.2)
        self.assertAlmostEqual(row["ms_per_candidate"], 0.2)
        self.assertAlmostEqual(row["candidates_per_s"], 5000.0)

    def test_explicit_wall_wins_over_runs(self):
        row = _row(candidates=10, wall_s=2.0, wall_runs_s=[1.0, 1.0])
        self.assertEqual(row["wall_s"], 2.0)
        self.assertAlmostEqual(row["ms_per_candidate"], 200.0)

    def test_nothing_measured_stays_none(self):
        row = _row(status="failed", reason="exit 1: boom")
        self.assertIsNone(row["wall_s"])
        self.assertIsNone(row["ms_per_candidate"])
        self.assertEqual(set(row), set(R.ROW_KEYS))


class RatioTest(unittest.TestCase):
    def test_ratio_is_numerator_over_denominator(self):
        proofc = _row(candidates=100, wall_s=0.5)
        torch = _row("torch-cond", candidates=100, wall_s=2.0)
        r = R.ratio_entry("torch-cond / proofc", "v10", 256, torch, proofc)
        self.assertAlmostEqual(r["ratio"], 4.0)
        self.assertEqual(r["numerator"], "torch-cond v10 B=256")

    def test_missing_or_failed_side_gives_no_ratio(self):
        proofc = _row(candidates=100, wall_s=0.5)
        failed = _row("torch-cond", status="failed", wall_s=3.0)
        self.assertIsNone(R.ratio_entry("x", "v10", 256, failed, proofc)["ratio"])
        self.assertIsNone(R.ratio_entry("x", "v10", 256, None, proofc)["ratio"])
        self.assertIsNone(R.ratio_entry("x", "v10", 256, proofc, _row(wall_s=0.0))["ratio"])

    def test_fastest_is_the_least_wall_among_rows_that_ran(self):
        rows = [_row("torch-nocond", b=256, wall_s=0.31), _row("torch-nocond", b=4096, wall_s=0.18),
                _row("torch-cond", b=1024, status="failed", wall_s=0.01),
                _row("torch-nocond", "large", 4096, wall_s=0.01), _row(wall_s=0.004)]
        row = R.fastest(rows, ["torch-cond", "torch-nocond"], "v10")
        self.assertEqual((row["impl"], row["B"]), ("torch-nocond", 4096))
        self.assertIsNone(R.fastest(rows, ["torch-eager"], "v10"))

    def test_a_fastest_B_that_was_not_bracketed_gets_a_note(self):
        def note(*walls, failed=()):
            rows = [_row("torch-nocond", b=b, wall_s=w) for b, w in walls]
            rows += [_row("torch-nocond", b=b, status="failed", wall_s=0.001) for b in failed]
            rows.append(_row("torch-nocond", "large", 1024, wall_s=0.0001))
            return R.fastest_at_edge(rows, "torch-nocond", "v10")
        # 2026-12-05 on an H100 (bench/results/2026-12-05b-h100-bench): call A
        # ran the port at 4096 alone, call B at 2048, 4096 and 8192 (fastest
        # at 2048), call D at 1024 and 2048 (fastest at 2048, bracketed by
        # call B's 4096 only across calls).
        self.assertIn("the only B it ran", note((4096, 0.207)))
        self.assertIn("the smallest B it ran", note((2048, 0.188), (4096, 0.201), (8192, 0.221)))
        self.assertIn("B=2048", note((2048, 0.188), (4096, 0.201), (8192, 0.221)))
        self.assertIn("the largest B it ran", note((1024, 0.198), (2048, 0.193)))
        self.assertIsNone(note((1024, 0.198), (2048, 0.193), (4096, 0.201)))
        # A failed run brackets nothing; another workload's rows do not count.
        self.assertIn("the only B it ran", note((4096, 0.201), failed=(8192,)))
        self.assertIsNone(R.fastest_at_edge([], "torch-nocond", "v10"))

    def test_ratios_at_each_torch_B_and_each_side_at_its_fastest(self):
        with tempfile.TemporaryDirectory() as d:
            args = B.parse_args(["--torch-variants", "nocond", "--torch-batches", "256,4096",
                                 "--batches", "256,4096", "--no-memo-off",
                                 "--json", os.path.join(d, "out.json"), "--work", d])
            self.assertEqual(args.torch_batches, [256, 4096])
            bench = B.Bench(args)
            bench.rows = [_row(b=256, wall_s=0.0058), _row(b=4096, wall_s=0.0036),
                          _row("torch-nocond", b=256, wall_s=0.31),
                          _row("torch-nocond", b=4096, wall_s=0.18)]
            B.add_ratios(bench, args)
        ratios = {r["name"]: r["ratio"] for r in bench.ratios}
        self.assertAlmostEqual(ratios["torch-nocond / proofc (v10, B=256)"], 0.31 / 0.0058)
        self.assertAlmostEqual(ratios["torch-nocond / proofc (v10, B=4096)"], 0.18 / 0.0036)
        self.assertAlmostEqual(
            ratios["fastest torch / fastest proofc (v10: torch-nocond B=4096, proofc B=4096)"],
            0.18 / 0.0036)
        pairs = {(a["a"], a["b"]) for a in bench.agreement}
        self.assertIn(("proofc v10 B=4096", "torch-nocond v10 B=4096"), pairs)
        self.assertIn(("proofc v10 B=256", "proofc v10 B=4096"), pairs)
        # Both sides fastest at the largest B run: the headline is a bound.
        self.assertEqual([n.split(" is fastest")[0] for n in bench.notes
                          if "is fastest at" in n], ["torch-nocond on v10", "proofc on v10"])


    def test_checks_refer_to_a_B_proofc_ran_when_the_ports_is_not_among_them(self):
        # The port at 4096 only, proofc at 256, 8192 and 12288: every check
        # names proofc at 256, its first B, never the missing 4096.
        with tempfile.TemporaryDirectory() as d:
            args = B.parse_args(["--torch-variants", "nocond", "--torch-batches", "4096",
                                 "--batches", "256,8192,12288", "--no-memo-off",
                                 "--json", os.path.join(d, "out.json"), "--work", d])
            bench = B.Bench(args)
            bench.rows = [_row(b=256, wall_s=0.0056), _row(b=8192, wall_s=0.0025),
                          _row(b=12288, wall_s=0.0024),
                          _row("torch-nocond", b=4096, wall_s=0.178)]
            B.add_ratios(bench, args)
        pairs = {(a["a"], a["b"]) for a in bench.agreement}
        self.assertEqual(pairs, {("proofc v10 B=256", "torch-nocond v10 B=4096"),
                                 ("proofc v10 B=256", "proofc v10 B=8192"),
                                 ("proofc v10 B=256", "proofc v10 B=12288")})
        ratios = {r["name"]: r["ratio"] for r in bench.ratios}
        self.assertAlmostEqual(
            ratios["fastest torch / fastest proofc (v10: torch-nocond B=4096, proofc B=12288)"],
            0.178 / 0.0024)


class TableTest(unittest.TestCase):
    def rows(self):
        return [
            _row(candidates=18745, wall_runs_s=[0.1, 0.12], steps=1064, compile_cold_s=2.5,
                 compile_warm_s=0.01, peak_mem_bytes=64 * 2**20,
                 phases={"policy_s": 0.05, "engine_s": 0.04, "rest_s": 0.01}),
            _row("torch-cond", candidates=18745, wall_s=1.8, cudagraphs="skipped: skipping "
                 "cudagraphs due to control flow operator"),
            _row("torch-nocond", status="timeout", reason="killed after 300 s (time budget)"),
        ]

    def test_columns_align_and_missing_values_are_dashes(self):
        text = R.format_table(self.rows(), [], [])
        lines = text.splitlines()
        self.assertEqual(len(lines), 4)
        header = lines[0]
        for name, _ in R.TABLE_COLUMNS:
            self.assertIn(name, header)
        # every column starts at the same offset on every line
        start = header.index("wall_s")
        self.assertEqual(lines[1][start:start + 5], "0.110")
        self.assertEqual(lines[2][start:start + 5], "1.800")
        self.assertEqual(lines[3][start], "-")
        self.assertIn("64", lines[1])
        self.assertIn("0.050", lines[1])
        self.assertIn("cudagraphs skipped: skipping cudagraphs due to control flow operator", lines[2])
        self.assertIn("TIMEOUT: killed after 300 s", lines[3])

    def test_ratio_agreement_and_notes_sections(self):
        rows = self.rows()
        ratios = [R.ratio_entry("torch-cond / proofc (v10, B=256)", "v10", 256, rows[1], rows[0]),
                  R.ratio_entry("torch-nocond / proofc (v10, B=256)", "v10", 256, rows[2], rows[0])]
        agreement = [{"a": "proofc v10 B=256", "b": "torch-cond v10 B=256", "candidates": 18745,
                      "fraction": 0.9995, "worst_metric_diff": 2e-4, "ok": True},
                     {"a": "proofc v10 B=256", "b": "proofc v10 B=1024", "candidates": 18745,
                      "fraction": 0.99, "worst_metric_diff": 0.0, "ok": False},
                     {"a": "proofc v10 B=256", "b": "torch-nocond v10 B=256",
                      "error": "no outcomes (run failed or skipped)"}]
        text = R.format_table(rows, ratios, agreement, ["random weights"])
        self.assertIn("16.36x", text)   # 1.8 / 0.11
        self.assertRegex(text, r"torch-nocond / proofc \(v10, B=256\)\s+-\s")
        self.assertRegex(text, r"99\.950%\s+2\.00e-04\s+PASS")
        self.assertRegex(text, r"99\.000%\s+0\.00e\+00\s+FAIL")
        self.assertIn("ERROR: no outcomes", text)
        self.assertTrue(text.endswith("note: random weights"))

    def test_align_handles_ragged_rows(self):
        self.assertEqual(R.align([["a", "bb"], ["ccc"]]), "a    bb\nccc")
        self.assertEqual(R.align([]), "")


class JsonTest(unittest.TestCase):
    def test_document_round_trips_and_has_no_nan(self):
        rows = [_row(candidates=3, wall_s=float("nan"), extra={"x": float("inf")})]
        doc = R.document({"device": "cpu"}, {"batches": [256]}, {"v10": {}}, rows, [], [], ["n"],
                         "2026-01-01T00:00:00+00:00", None, 1.5)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            R.write_json(path, doc)
            with open(path, encoding="utf-8") as f:
                back = json.load(f)
            self.assertEqual(os.listdir(d), ["r.json"])  # no temporary left behind
        self.assertEqual(back["schema"], "proofc-bench-results")
        self.assertEqual(back["version"], 1)
        self.assertIsNone(back["rows"][0]["wall_s"])
        self.assertIsNone(back["rows"][0]["extra"]["x"])
        self.assertEqual(back["rows"][0]["candidates"], 3)


class HelperTest(unittest.TestCase):
    def test_compile_seconds_cuda_and_host(self):
        cuda = {"backend_details": {"kernel_cache": {"compile_seconds": 2.0, "load_seconds": 0.25}},
                "timings": {"compile_seconds": 9.0}}
        self.assertEqual(B.compile_seconds(cuda)[0], 2.25)
        # The modules compile in parallel: their wall time wins over the sum.
        parallel = {"backend_details": {"modules_seconds": 1.5,
                                        "kernel_cache": {"compile_seconds": 2.0, "load_seconds": 0.25}}}
        self.assertEqual(B.compile_seconds(parallel)[0], 1.5)
        host = {"timings": {"compile_seconds": 0.004}}
        self.assertEqual(B.compile_seconds(host), (0.004, "timings.compile_seconds (bundle read)"))

    def test_cudagraph_state(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "t.log")
            with open(log, "w") as f:
                f.write("W1122 skipping cudagraphs due to control flow operator\nmore\n")
            self.assertIsNone(B.cudagraph_state({"compiled": False}, log))
            self.assertEqual(B.cudagraph_state({"compiled": True, "cudagraph_skips": 0},
                                               os.path.join(d, "none.log")), "captured")
            self.assertEqual(B.cudagraph_state({"compiled": True, "cudagraph_skips": 1}, log),
                             "skipped: skipping cudagraphs due to control flow operator")
            self.assertEqual(B.cudagraph_state({"compiled": True, "cudagraph_skips": 2,
                                                "cudagraph_skip_reasons": ["skipping cudagraphs due to X"]},
                                               log), "skipped: skipping cudagraphs due to X")

    def test_cudagraph_state_drops_the_stack_trace_and_finds_partitions(self):
        # as torch 2.11 logs it on the H100 (bench logs of 2026-11-22)
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "t.log")
            with open(log, "w") as f:
                f.write("V1122 10:30:51.721000 1272 torch/_inductor/scheduler.py:6545] [0/0] "
                        "[__cudagraphs] Created 3 graph partitions: 2 cudagraphable, 1 "
                        "non-cudagraphable\n")
            rep = {"compiled": True, "cudagraph_skips": 1, "cudagraph_skip_reasons": [
                "skipping cudagraphs due to control flow operator: torch.cond. Found from : "]}
            self.assertEqual(B.cudagraph_state(rep, log),
                             "skipped: skipping cudagraphs due to control flow operator: torch.cond")
            self.assertEqual(B.graph_partitions(log),
                             "Created 3 graph partitions: 2 cudagraphable, 1 non-cudagraphable")
            self.assertIsNone(B.graph_partitions(os.path.join(d, "none.log")))

    def test_last_line_prefers_errors(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "t.log")
            with open(log, "w") as f:
                f.write("$ cmd\nproofc-run: error: data/x:3: bad\nsummary\n")
            self.assertEqual(B.last_line(log), "proofc-run: error: data/x:3: bad")
            self.assertEqual(B.last_line(os.path.join(d, "missing")), "(no log)")

    def test_run_cmd_timeout_kills_the_process_group(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "t.log")
            done = B.run_cmd(["sh", "-c", "sleep 30 & sleep 30"], log, dict(os.environ), 1.0)
            self.assertTrue(done.timed_out)
            self.assertFalse(done.ok)
            self.assertLess(done.seconds, 10)
            ok = B.run_cmd(["sh", "-c", "echo hi; exit 3"], log, dict(os.environ), 10)
            self.assertEqual(ok.rc, 3)
            self.assertIn("exit 3: hi", ok.why())

    def test_args_validation(self):
        args = B.parse_args(["--batches", "256,1024", "--torch-variants", "nocond"])
        self.assertEqual(args.batches, [256, 1024])
        self.assertEqual(args.torch_variants, ["nocond"])
        for bad in (["--batches", "0"], ["--batches", "x"], ["--torch-variants", "eager"],
                    ["--repeats", "0"], ["--torch-batches", ""], ["--torch-batches", "-1"]):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                B.parse_args(bad)


# A stand-in for proofc-run: reads B from the "bundle" (a JSON file), writes
# a report shaped like the real one; the native CUDA loop counts no steps,
# `--cond host` does; PROOFC_PROFILE=1, or `--profile` (offered when
# FAKE_PROFILE=1), adds phases.
FAKE_PROOFC_RUN = r"""#!/usr/bin/env python3
import json, os, sys
argv = sys.argv[1:]
if argv == ["--help"]:
    print("--report --outcomes" + (" --profile" if os.environ.get("FAKE_PROFILE") == "1" else ""))
    sys.exit(0)
if argv == ["--version"]:
    print("proofc-run 0.0-fake"); sys.exit(0)
opt = lambda name: argv[argv.index(name) + 1] if name in argv else None
with open(argv[0]) as f:
    B = json.load(f)["B"]
fail = os.environ.get("FAKE_FAIL")
if fail and fail in ("all", opt("--cond"), "memo" if opt("--memo-entries") == "0" else None):
    print("proofc-run: error: fake failure", file=sys.stderr); sys.exit(1)
cache = os.environ["PROOFC_CACHE_DIR"]
cold = not os.listdir(cache)
open(os.path.join(cache, "k.cubin"), "w").close()
cuda = opt("--device") == "cuda"
host_cond = opt("--cond") == "host"
runs = len([n for n in os.listdir(cache) if n.startswith("run")])
open(os.path.join(cache, f"run{runs}"), "w").close()
report = {"schema": "proofc-report", "version": 1,
          "program": {"shape": {"B": B}},
          "metrics": {"both": {"mrr": 0.5, "hits1": 0.25, "hits10": 1.0}, "candidates": 1000,
                      "proved": 1, "failed": 2, "truncated": 997, "mean_depth": 3.5},
          "timings": {"run_seconds": 0.1 + 0.01 * runs, "compile_seconds": 0.002,
                      "setup_seconds": 0.05, "total_seconds": 0.3,
                      "steps": 77 if (host_cond or not cuda) else 0}}
if cuda:
    report["backend_details"] = {"device_bytes": 1048576 * B // 256, "cond": opt("--cond") or "native",
        "kernel_cache": {"compile_seconds": 2.0 if cold else 0.0, "load_seconds": 0.0 if cold else 0.01}}
    if "--profile" in argv or os.environ.get("PROOFC_PROFILE") == "1":
        report["backend_details"]["phases"] = {"policy_s": 0.06, "engine_s": 0.03, "rest_s": 0.01}
with open(opt("--report"), "w") as f:
    json.dump(report, f)
if opt("--outcomes"):
    with open(opt("--outcomes"), "w") as f:
        f.write("#proofc-outcomes 2\n"
                "query\tmode\tentity\tstatus\tdepth\tlogp\thead\trelation\ttail\t"
                "optimistic_rank\tpessimistic_rank\trealistic_rank\n"
                "0\thead\ta\tproved\t2\t-0.5\ta\tr\tb\t1\t1\t1\n")
"""


class WorkloadStatsKeyTest(unittest.TestCase):
    """proto/workload_stats.py's key64 counts the step memo's distinct keys
    for docs/performance.md's floors: a collision undercounts them."""

    def test_distinct_state_rows_get_distinct_keys(self):
        import numpy as np
        rng = np.random.default_rng(0)
        # Rows shaped like V10's keys (6 atoms of predicate and two terms,
        # then h and t): small entity ids and variables, many rows that
        # differ in one word or in where a value sits. A weighted sum of
        # the words collides on these by the thousand.
        rows = rng.integers(-12, 105, size=(200_000, 20))
        rows[::2, 5:] = 0
        rows[1::4, 18:] = -1
        rows = np.unique(rows, axis=0)
        self.assertEqual(len(np.unique(W.key64(rows))), len(rows))
        swapped = rows[:1000].copy()
        swapped[:, [1, 2]] = swapped[:, [2, 1]]
        differ = (swapped != rows[:1000]).any(axis=1)
        self.assertTrue(
            (W.key64(swapped)[differ] != W.key64(rows[:1000])[differ]).all())

    def test_a_row_keys_alike_in_any_batch(self):
        import numpy as np
        rows = np.arange(60, dtype=np.int32).reshape(6, 10) - 30
        self.assertTrue((W.key64(rows)[2:4] == W.key64(rows[2:4])).all())
        self.assertEqual(W.key64(rows).dtype, np.uint64)


class OutcomesReaderTest(unittest.TestCase):
    """bench.torch.compare reads outcomes versions 1, 2 and 3 (docs/report-schema.md)."""

    V1 = "query\tmode\tentity\tstatus\tdepth\tlogp\n0\thead\ta\tproved\t2\t-0.5\n0\thead\tc\tfailed\t1\t0\n"
    V2 = ("#proofc-outcomes 2\n"
          "query\tmode\tentity\tstatus\tdepth\tlogp\thead\trelation\ttail\t"
          "optimistic_rank\tpessimistic_rank\trealistic_rank\n"
          "0\thead\ta\tproved\t2\t-0.5\ta\tr\tb\t1\t1\t1\n"
          "0\thead\tc\tfailed\t1\t0\ta\tr\tb\t1\t1\t1\n")
    V3 = ("#proofc-outcomes 3\n"
          "query\tmode\tentity\tstatus\tdepth\tlogp\thead\trelation\ttail\t"
          "optimistic_rank\tpessimistic_rank\trealistic_rank\tscore\tlist_size\n"
          "0\thead\ta\tproved\t2\t-0.5\ta\tr\tb\t1\t1\t1\t-0.5\t2\n"
          "0\thead\tc\tfailed\t1\t0\ta\tr\tb\t1\t1\t1\t-3.40282347e+38\t2\n")

    def _write(self, text):
        fd, path = tempfile.mkstemp(suffix=".tsv")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_versions_1_and_2_read_alike(self):
        a, b = C.read_outcomes(self._write(self.V1)), C.read_outcomes(self._write(self.V2))
        self.assertEqual(a, b)
        self.assertEqual(a[1][("0", "head", "a")], ("proved", 2, -0.5))
        verdict = C.compare_outcomes(self._write(self.V1), self._write(self.V2))
        self.assertTrue(verdict["ok"])
        self.assertEqual(verdict["agree"], 2)
        self.assertEqual(C.read_outcomes(self._write(self.V3)), a)

    def test_unknown_version_is_refused_naming_the_file(self):
        path = self._write(self.V2.replace("#proofc-outcomes 2", "#proofc-outcomes 4"))
        with self.assertRaisesRegex(C.InputError, "^" + path + ":1: outcomes version '4'"):
            C.read_outcomes(path)

    def test_v2_with_v1_header_or_short_rows_is_refused(self):
        path = self._write("#proofc-outcomes 2\n" + self.V1)
        with self.assertRaisesRegex(C.InputError, "^" + path + ":2: expected the version 2 header"):
            C.read_outcomes(path)
        path = self._write(self.V2 + "0\ttail\ta\tproved\t2\t-0.5\n")
        with self.assertRaisesRegex(C.InputError, "^" + path + ":5: expected 12 TAB-separated fields, found 6"):
            C.read_outcomes(path)
        path = self._write(self.V1.replace("query", "#query", 1))
        with self.assertRaisesRegex(C.InputError, "^" + path + ":1: expected '#proofc-outcomes <version>'"):
            C.read_outcomes(path)


class ProofcFlowTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.exe = os.path.join(d, "proofc-run")
        with open(self.exe, "w") as f:
            f.write(FAKE_PROOFC_RUN)
        os.chmod(self.exe, 0o755)
        self.bundle = os.path.join(d, "b256.pcb")
        with open(self.bundle, "w") as f:
            json.dump({"B": 256}, f)
        self.saved = {k: os.environ.get(k) for k in ("FAKE_PROFILE", "FAKE_FAIL")}

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self.dir.cleanup()

    def bench(self, device="cuda", budget=300.0):
        d = self.dir.name
        args = B.parse_args(["--device", device, "--proofc-run", self.exe, "--json",
                             os.path.join(d, "out.json"), "--work", os.path.join(d, "work"),
                             "--budget-s", str(budget)])
        bench = B.Bench(args)
        bench.describe_environment()
        self.assertEqual(bench.environment["proofc_run"], "proofc-run 0.0-fake")
        return bench

    def run_proofc(self, bench, B_=256, repeats=3):
        with contextlib.redirect_stdout(io.StringIO()):
            return bench.proofc("v10", B_, self.bundle, self.dir.name, self.exe, 10, 5, repeats,
                                True)

    def test_cuda_row_profiled_through_the_environment(self):
        os.environ["FAKE_PROFILE"] = "0"
        bench = self.bench()
        self.assertFalse(bench.profile_flag)
        row = self.run_proofc(bench)
        self.assertEqual(row["status"], "ok")
        self.assertEqual(row["candidates"], 1000)
        # the cold run (0.10) is not timed
        self.assertEqual([round(t, 6) for t in row["wall_runs_s"]], [0.11, 0.12, 0.13])
        self.assertAlmostEqual(row["wall_s"], 0.12)
        self.assertEqual((row["compile_cold_s"], row["compile_warm_s"]), (2.0, 0.01))
        self.assertEqual((row["steps"], row["steps_source"]), (77, "--cond host run"))
        self.assertEqual(row["peak_mem_bytes"], 1048576)
        # no --profile flag: the profiled run sets PROOFC_PROFILE=1
        self.assertEqual(row["phases"], {"policy_s": 0.06, "engine_s": 0.03, "rest_s": 0.01})
        self.assertIn("proofc v10 B=256", bench.outcomes)
        with open(bench.args.json) as f:
            self.assertEqual(json.load(f)["rows"][0]["wall_s"], row["wall_s"])

    def test_variant_row_passes_its_flags_to_every_run(self):
        bench = self.bench()
        os.environ["FAKE_FAIL"] = "memo"  # the fake fails only with --memo-entries 0
        with contextlib.redirect_stdout(io.StringIO()):
            row = bench.proofc("v10", 256, self.bundle, self.dir.name, self.exe, 10, 5, 2, True,
                               variant="nomemo", run_flags=["--memo-entries", "0"])
        self.assertEqual((row["impl"], row["status"]), ("proofc-nomemo", "failed"))
        os.environ.pop("FAKE_FAIL")
        bench = self.bench()
        with contextlib.redirect_stdout(io.StringIO()):
            row = bench.proofc("v10", 256, self.bundle, self.dir.name, self.exe, 10, 5, 2, True,
                               variant="nomemo", run_flags=["--memo-entries", "0"])
        self.assertEqual((row["impl"], row["status"]), ("proofc-nomemo", "ok"))
        self.assertIn("proofc-nomemo v10 B=256", bench.outcomes)
        self.assertIs(bench.row_of("proofc", "v10", 256), None)
        self.assertIs(bench.row_of("proofc-nomemo", "v10", 256), row)

    def test_profile_run_gives_phases(self):
        os.environ["FAKE_PROFILE"] = "1"
        bench = self.bench()
        self.assertTrue(bench.profile_flag)
        row = self.run_proofc(bench, repeats=1)
        self.assertEqual(row["phases"], {"policy_s": 0.06, "engine_s": 0.03, "rest_s": 0.01})
        self.assertIn("proofc-v10-b256-profile.json", row["logs"])

    def test_wrong_bundle_B_and_failures_are_reported(self):
        bench = self.bench()
        row = self.run_proofc(bench, B_=1024)
        self.assertEqual(row["status"], "failed")
        self.assertIn("program B is 256, expected 1024", row["reason"])
        os.environ["FAKE_FAIL"] = "all"
        row = self.run_proofc(bench)
        self.assertEqual(row["status"], "failed")
        self.assertIn("fake failure", row["reason"])
        os.environ["FAKE_FAIL"] = "host"  # only the steps run fails: the row stays ok
        row = self.run_proofc(bench)
        self.assertEqual(row["status"], "ok")
        self.assertIsNone(row["steps"])
        self.assertIn("fake failure", row["extra"]["cond_host_error"])

    def test_host_backend_counts_steps_itself(self):
        bench = self.bench(device="cpu")
        row = self.run_proofc(bench, repeats=1)
        self.assertEqual((row["steps"], row["steps_source"]), (77, "timings.steps"))
        self.assertEqual(row["compile_source"], "timings.compile_seconds (bundle read)")
        self.assertEqual(row["impl"], "proofc-host")

    def test_no_budget_skips(self):
        bench = self.bench(budget=B.RESERVE_S + 1)
        row = self.run_proofc(bench)
        self.assertEqual((row["status"], row["reason"]), ("skipped", "time budget"))


if __name__ == "__main__":
    unittest.main()


class BlockTimelineTest(unittest.TestCase):
    """block_timeline.py's layout of two workers, each a launch stream and
    a graph stream (CUPTI's streams of a Session's workers)."""

    CSV = "\n".join([
        "mark,1000,1000,0,init",
        "memcpy,1500,1510,0,100,7",      # worker 0's launch stream
        "kernel,1510,1520,0,proofc_init,7",
        "kernel,1520,2000,5,proofc_policy,70",  # its graph's stream
        "kernel,1600,1610,0,proofc_init,9",     # worker 1
        "kernel,1610,2500,5,proofc_policy,90",
        "kernel,2100,2110,0,proofc_init,7",
        "kernel,2110,2400,5,proofc_policy,70",
        "kernel,2600,2700,5,proofc_policy,90",
        "memset,2650,2660,0,8,33",       # a side stream, left out
        "mark,3000,3000,0,exit",
    ]) + "\n"

    def test_workers_grouped_and_the_span_laid_out(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.csv")
            with open(path, "w") as f:
                f.write(self.CSV)
            marks, streams = BT.load(path)
        self.assertEqual(marks, {"init": 1000, "exit": 3000})
        workers, left = BT.group_workers(streams, "7+70,9+90")
        self.assertEqual(sorted(workers), ["w0", "w1"])
        self.assertEqual(left, 10)
        busy = {w: BT.union(ev) for w, ev in workers.items()}
        first, last, by_level, gaps = BT.levels(busy)
        self.assertEqual((first, last), (1500, 2700))
        # w0 busy 1500-2000 and 2100-2400, w1 1600-2500 and 2600-2700:
        # one 1500-1600, 2000-2100, 2400-2500, 2600-2700; both 1600-2000,
        # 2100-2400; neither 2500-2600.
        self.assertEqual(by_level, {1: 4 * 100, 2: 400 + 300, 0: 100})
        self.assertEqual(gaps, [(100, 2500)])
        # A run per proofc_init; the setup's upload before the first, one
        # of its own.
        self.assertEqual(BT.runs(workers["w0"]),
                         [(1500, 1510), (1510, 2000), (2100, 2400)])


class SymbolizeStacksTest(unittest.TestCase):
    """symbolize_stacks.py names thread_stacks.cpp's unnamed frames by
    addr2line (one call an object, two lines an offset) and keeps the
    others; here a stand-in addr2line that names offset 0x10 only."""

    FAKE = "\n".join([
        "#!/bin/sh",
        "shift 4",  # -f -C -e OBJECT
        "for a in \"$@\"; do",
        "  if [ \"$a\" = 0x10 ]; then echo 'proofc::run()'; echo '/x/Run.cpp:7';",
        "  else echo '??'; echo '??:0'; fi",
        "done",
    ]) + "\n"

    def test_unnamed_frames_named_and_the_rest_kept(self):
        lines = [
            "--- thread 7",
            "/lib/libc.so.6(syscall+0x1d)[0x7f00]",
            "/bin/proofc-run(+0x10)[0x5610]",
            "/bin/proofc-run(+0x20)[0x5620]",
        ]
        with tempfile.TemporaryDirectory() as d:
            tool = os.path.join(d, "addr2line")
            with open(tool, "w") as f:
                f.write(self.FAKE)
            os.chmod(tool, 0o755)
            named = SS.symbolize(lines, tool)
        self.assertEqual(named[:2], lines[:2])
        self.assertEqual(named[2], "  proofc::run() (Run.cpp:7) [proofc-run]")
        self.assertEqual(named[3], lines[3])  # addr2line knew nothing


class ResultsSizeTest(unittest.TestCase):
    """Every GPU call carries the working tree, and a call carries at most
    64 MiB (scripts/pack-carry.sh): bench/results/ had grown to 33 MB of
    the tree's 40 MiB, most of it whole-split reports of 737 KB each,
    stored as JSON. A file there over RESULTS_FILE_LIMIT is stored
    compressed (`gzip -9 -n`: `zcat` reads it)."""
    RESULTS_FILE_LIMIT = 256 * 1024

    def test_no_uncompressed_file_over_the_limit(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
        large = []
        for folder, _, files in os.walk(root):
            for name in files:
                path = os.path.join(folder, name)
                if name.endswith((".gz", ".xz", ".zst")):
                    continue
                if os.path.getsize(path) > self.RESULTS_FILE_LIMIT:
                    large.append(os.path.relpath(path, root))
        self.assertEqual(large, [], "gzip -9 -n these (and their links)")
