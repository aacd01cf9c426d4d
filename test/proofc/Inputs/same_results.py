"""same_results.py REFERENCE.json OTHER.json...: the results of runs agree.

Exits 1, naming the file and the key, unless every OTHER report has the
reference's "metrics", "rank_metrics" and "pykeen" exactly (parsed JSON:
the same numbers bit for bit, since JSON numbers round-trip) and the same
outcomes SHA-256 (docs/scale-out.md: shards + merge and resumed checkpoints
equal one process). Prints "same results: N" on success, followed by
" (M without outcomes)" when M of them wrote no outcomes file (their
numbers are still compared).
"""
import json
import sys

ref_path = sys.argv[1]
ref = json.load(open(ref_path))
bare = 0
for path in sys.argv[2:]:
    other = json.load(open(path))
    for key in ("metrics", "rank_metrics", "pykeen"):
        if other.get(key) != ref.get(key):
            sys.exit(f"{path}: {key} differs from {ref_path}")
    if "outcomes" not in other:
        bare += 1
    elif other["outcomes"]["sha256"] != ref["outcomes"]["sha256"]:
        sys.exit(f"{path}: outcomes.sha256 differs from {ref_path}")
print(f"same results: {len(sys.argv) - 2}"
      + (f" ({bare} without outcomes)" if bare else ""))
