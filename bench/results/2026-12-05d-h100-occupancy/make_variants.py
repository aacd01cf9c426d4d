# The bundles of call A (.exp/, packed as .carry/exp.tar.gz): the V10 bundle
# at B = 12288 that bench/prepare.sh compiled, with one launch's dynamic
# shared memory raised so that fewer of its blocks fit an SM. Nothing
# reads the bytes: the kernels and their outcomes are unchanged, only the
# occupancy and the L1's share of the SM's 256 KB (the carveout the driver
# picks for the shared memory) change. Static shared memory by ptxas sm_90
# here: proofc_advance_engine 5,372 bytes, proofc_policy 4,608; 1 KB a
# block reserved; 228 KB (233,472 bytes) of shared memory an SM at most.
#   python3 make_variants.py .gpudata/bundles/v10-b12288.pcb .exp
import json
import sys

SM = 233472
STATIC = {"advance_engine": 5372, "score_select": 4608}
# name: (launch, dynamic bytes); blocks an SM by shared memory below.
VARIANTS = {
    "adv-d200": ("advance_engine", 200),     # 32 (the SM's block limit)
    "adv-d3100": ("advance_engine", 3100),   # 24
    "adv-d5000": ("advance_engine", 5000),   # 20, the policy's
    "adv-d7800": ("advance_engine", 7800),   # 16
    "pol-d5600": ("score_select", 5600),     # 20, as today, small L1
    "pol-d8200": ("score_select", 8200),     # 16
    "pol-d13000": ("score_select", 13000),   # 12
}


def blocks(launch, dyn):
    # 256-byte granules
    per = -(-(STATIC[launch] + 1024 + dyn) // 256) * 256
    return SM // per


source, folder = sys.argv[1], sys.argv[2]
with open(source) as f:
    base = json.load(f)
for name, (launch, dyn) in VARIANTS.items():
    bundle = json.loads(json.dumps(base))
    (l,) = [x for x in bundle["plan"]["launches"] if x["name"] == launch]
    assert l["shared_bytes"] == 0, l["shared_bytes"]
    l["shared_bytes"] = dyn
    with open(f"{folder}/{name}.pcb", "w") as f:
        json.dump(bundle, f)
    print(name, launch, dyn, "bytes:", min(32, blocks(launch, dyn)), "blocks an SM by shared memory")
