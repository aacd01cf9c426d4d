# The bundles of calls A and B (.exp/, packed as .carry/exp.tar.gz): run
# here after `git apply walk-cap-experiment.patch` (the cap as a macro,
# compiled out without it) and `build/bin/proofc compile examples/v10.mlir
# --slots B -o .exp/new-b<B>.pcb` for each B below; writes each variant as
# that bundle with the advance module's options extended.
#   python3 make_exp.py A|B .exp
import json
import sys

VARIANTS = {
    "A": {12288: {"c2": [2], "c4": [4], "c8": [8], "c4p": [4, 1], "c8p": [8, 1]},
          8192: {"c2": [2], "c4": [4], "c8": [8], "c4p": [4, 1], "c8p": [8, 1]}},
    "B": {12288: {f"c{n}": [n] for n in (6, 8, 12, 16)},
          8192: {f"c{n}": [n] for n in (8, 12)},
          4096: {"c8": [8]}, 1024: {"c8": [8]}},
}


def options(spec):
    opts = [f"-DPROOFC_MEMO_MAX_HITS={spec[0]}"]
    if len(spec) > 1:
        opts.append("-DPROOFC_MEMO_HITS_WHILE_POOL=1")
    return opts


call, folder = sys.argv[1], sys.argv[2]
for B, variants in VARIANTS[call].items():
    with open(f"{folder}/new-b{B}.pcb") as f:
        base = json.load(f)
    for name, spec in variants.items():
        bundle = json.loads(json.dumps(base))
        (advance,) = [m for m in bundle["modules"] if m["name"] == "advance"]
        advance["options"] = advance["options"] + options(spec)
        with open(f"{folder}/new-b{B}-{name}.pcb", "w") as f:
            json.dump(bundle, f, indent=1)
