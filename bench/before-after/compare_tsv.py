"""Compare outcomes TSVs of two proofc versions (bench/before-after/README.md):
OLD... NEW... pairwise, on the columns both have, row by row, exactly."""
import sys
def read(p):
    rows = [l.rstrip("\n").split("\t") for l in open(p) if not l.startswith("#")]
    return rows[0], rows[1:]
paths = sys.argv[1:]
n = len(paths) // 2
ok = True
base = None
for old, new in zip(paths[:n], paths[n:]):
    ho, ro = read(old); hn, rn = read(new)
    common = [c for c in ho if c in hn]
    io = [ho.index(c) for c in common]; inn = [hn.index(c) for c in common]
    po = [[r[i] for i in io] for r in ro]; pn = [[r[i] for i in inn] for r in rn]
    same = po == pn
    ok &= same
    print(f"{old} vs {new}: rows {len(ro)}/{len(rn)}, common columns {common}, extra new {[c for c in hn if c not in ho]}: {'IDENTICAL' if same else 'DIFFERENT'}")
    if base is None: base = pn
    else:
        sb = base == pn; ok &= sb
        print(f"  same as B=256 (new): {sb}")
print("ALL IDENTICAL" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
