# The bundles of call A (.exp/): the V10 bundle at B = 12288 that
# bench/prepare.sh compiled, its step policy's PTX with an L1 eviction
# priority on the loads of chosen buffers. A load's buffer is the kernel
# parameter its address's 64-bit chain reaches (the generated PTX's
# ld.param, cvta, add and mad); the parameters are the plan's arguments of
# the launch `score_select` in order: p1 state, p2 derived, p10 and p14 the
# two linears' f16 fragments, p11-13 and p15-17 their bias and norm,
# p18 the folded atom layer's rows.
#   python3 hint.py BUNDLE OUT.pcb pN=evict_last|evict_first|no_allocate ...
import collections
import json
import re
import sys

bundle_path, out_path, rules = sys.argv[1], sys.argv[2], dict(a.split('=') for a in sys.argv[3:])
b = json.load(open(bundle_path))
(mod,) = [m for m in b['modules'] if m['name'] == 'policy']
src = mod['source'].split('\n')
param_of, defs = {}, collections.defaultdict(list)
for line in src:
    s = line.strip()
    m = re.match(r'ld\.param\.\w+\s+(%rd\d+),\s*\[(\w+)\]', s)
    if m: param_of[m.group(1)] = m.group(2).replace('proofc_policy_param_', 'p'); continue
    m = re.match(r'([a-z][\w.:]*)\s+(%rd\d+)\s*,(.*);', s)
    if m and not m.group(1).startswith(('ld.', 'st.', 'atom')):
        defs[m.group(2)].append(re.findall(r'%rd\d+', m.group(3)))
def bases(reg, seen):
    if reg in seen: return set()
    seen.add(reg)
    if reg in param_of: return {param_of[reg]}
    out = set()
    for srcs in defs.get(reg, []):
        for r in srcs: out |= bases(r, seen)
    return out
n = collections.Counter()
for i, line in enumerate(src):
    m = re.search(r'(ld\.global(\.nc)?)(\.[\w.]*?)?\s+[^\[]*\[(%rd\d+)', line)
    if not m: continue
    bs = bases(m.group(4), set())
    hits = {rules[p] for p in bs if p in rules}
    if len(hits) != 1: continue
    (h,) = hits
    head = m.group(1)
    src[i] = line[:m.start(1)] + head + '.L1::' + h + line[m.end(1):]
    n[h] += 1
mod['source'] = '\n'.join(src)
json.dump(b, open(out_path, 'w'))
print(out_path, dict(n))
