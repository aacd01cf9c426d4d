"""Checks of the training bench: the report's table and targets on hand-made
runs, and a tiny port-trainer run on the CPU (its curve's schema, its
determinism with --updates, the weights it writes). The run needs torch and
the built Python package (skipped otherwise):

    PYTHONPATH=build/python /usr/bin/python3 -m unittest bench.training.test_training_bench -v
"""

import json
import os
import tempfile
import unittest

from . import report

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("PROOFC_SHARED_DIR", os.path.join(REPO, "..", "shared"))
CURVE_KEYS = {"seconds", "train_seconds", "update", "episodes", "valid_mrr"}


def _proofc_log(mrrs):
    checkpoints = [{"variant": "rl", "name": f"rl:rl{u}" if u else "rl:init", "update": u,
                    "episodes": 512 * u, "valid_mrr": m, "seconds": 1.0 + u,
                    "train_seconds": float(u)} for u, m in enumerate(mrrs)]
    best = max(range(len(mrrs)), key=lambda i: (mrrs[i], -i))
    return {"updates": len(mrrs) - 1, "episodes": 512 * (len(mrrs) - 1), "train_seconds": 4.0,
            "seconds": 5.0, "variants": [], "checkpoints": checkpoints,
            "chosen": {"name": checkpoints[best]["name"], "update": best,
                       "valid_mrr": mrrs[best]}}


class ReportTest(unittest.TestCase):
    def test_targets_and_not_run(self):
        with tempfile.TemporaryDirectory() as work:
            def put(name, value):
                with open(os.path.join(work, name), "w") as f:
                    json.dump(value, f)
            put("kinship-proofc.json", _proofc_log([0.02, 0.30, 0.41]))
            put("kinship-test.json", {os.path.join(work, "kinship-proofc.safetensors"): 0.36,
                                      "w/kinship.safetensors": 0.1998})
            open(os.path.join(work, "kinship-port.skipped"), "w").close()
            put("umls-proofc.json", _proofc_log([0.1, 0.2]))
            put("umls-test.json", {os.path.join(work, "umls-proofc.safetensors"): 0.15,
                                   "w/umls.safetensors": 0.1521})
            result = report.build(work, "w", ["kinship", "umls"], ["proofc", "port"], "cuda",
                                  120)
        kinship = result["datasets"]["kinship"]
        self.assertEqual(kinship["not_run"], ["port"])
        self.assertEqual([c["update"] for c in kinship["runs"]["proofc"]["curve"]], [0, 1, 2])
        self.assertEqual(kinship["runs"]["proofc"]["episodes_per_second"], 1024 / 4.0)
        rows = [l for l in report.table(result).splitlines() if l.startswith("| kinship")
                or l.startswith("| umls")]
        # kinship: 0.36 > 0.1998 and >= 0.35; umls: 0.15 is not above 0.1521.
        self.assertIn("test > 0.1998, test >= 0.35 | yes |", rows[0])
        self.assertIn("0.4100 (rl:rl2)", rows[0])
        self.assertIn("test > 0.1521 | NO |", rows[1])
        self.assertIn("kinship: port trainer not run", report.table(result))


class PortTrainerTest(unittest.TestCase):
    def setUp(self):
        try:
            import torch  # noqa: F401
            import proofc  # noqa: F401
        except ImportError as e:
            self.skipTest(f"needs torch and the built package: {e}")

    def test_tiny_run(self):
        from . import port_trainer
        from proofc import safetensors
        data = os.path.join(SHARED, "data", "countries_s1")
        records = []
        with tempfile.TemporaryDirectory() as out:
            for name in ("a", "b"):
                port_trainer.main([os.path.join(REPO, "examples", "v10.mlir"), "--data", data,
                                   "--updates", "2", "--device", "cpu",
                                   "--triples-per-update", "8", "--valid-queries", "8",
                                   "--checkpoints", "1", "--seed", "3",
                                   "--out", os.path.join(out, f"{name}.safetensors"),
                                   "--json", os.path.join(out, f"{name}.json")])
                with open(os.path.join(out, f"{name}.json")) as f:
                    records.append(json.load(f))
            _, metadata = safetensors.read_with_metadata(os.path.join(out, "a.safetensors"))
        a, b = records
        self.assertEqual(a["trainer"], "port")
        self.assertEqual([c["update"] for c in a["curve"]], [0, 1, 2])
        for c in a["curve"]:
            self.assertEqual(set(c), CURVE_KEYS)
        self.assertEqual(a["episodes"], 2 * 2 * 8 * 4)
        self.assertEqual(set(a["timings"]), {"draws", "rollouts", "learner", "scoring"})
        self.assertEqual([c["valid_mrr"] for c in a["curve"]],
                         [c["valid_mrr"] for c in b["curve"]])
        self.assertIn(a["chosen"]["valid_mrr"], [c["valid_mrr"] for c in a["curve"]])
        self.assertEqual(metadata.get("proofc.program"), "v10")


if __name__ == "__main__":
    unittest.main()
