# Design study: clock64 segment timing (thread 0) in the persistent policy PTX:
# [0] head->parent barrier (encode+layers), [1] ->logits barrier (dots),
# [2] ->pre-call barrier (select), [3] the call, [4] head->embedding loop
# exit, [5] ->first layer loop exit. Needs clock_slot.py first (its slot.cu prints).
import json, re, sys
b = json.load(open(sys.argv[1]))
m = [m for m in b['modules'] if m['format'] == 'ptx'][0]
txt = m['source']
L = txt.split('\n')
head = re.search(r'\} // callseq 0\n.*\n\t@%p\d+ bra \t(\$L__BB0_\d+);', txt).group(1)
defined = set(); back = []
ih = L.index(head + ':')
for k, line in enumerate(L):
    s = line.strip()
    if re.match(r'\$L__BB0_\d+:$', s) and k > ih: defined.add(s[:-1])
    mm = re.match(r'@%p\d+ bra \t(\$L__BB0_\d+);', s)
    if mm and mm.group(1) in defined and k > ih: back.append(k)
bars = [k for k, l in enumerate(L) if l.strip() == 'bar.sync \t0;']
call = [k for k, l in enumerate(L) if '{ // callseq 0' in l][0]
precall = max(k for k in bars if k < call)
after = sorted(k for k in bars if k > ih)
parent, logits = after[0], after[1]
embed_exit, layer1_exit = back[0], back[1]
def clk(n): return [f'\tmov.u64 \t%prf{n}, %clock64;']
def acc(a, z, slot): return [f'\tsub.s64 \t%prf7, %prf{a}, %prf{z};',
                             f'\t@%pprf atom.global.add.u64 \t%prf6, [proofc_prof_pol+{8*slot}], %prf7;']
ins = {ih: clk(0) + ['\tmov.u64 \t%prf1, %prf0;', '\tmov.u64 \t%prf2, %prf0;'],
       parent: clk(1) + acc(1, 0, 0), logits: clk(2) + acc(2, 1, 1),
       precall: clk(3) + acc(3, 2, 2),
       embed_exit: clk(5) + acc(5, 0, 4),
       layer1_exit: ['\tmov.u64 \t%prf6, %clock64;', '\tsub.s64 \t%prf7, %prf6, %prf5;',
                     '\t@%pprf atom.global.add.u64 \t%prf6, [proofc_prof_pol+40], %prf7;']}
out = []
for k, line in enumerate(L):
    out.append(line)
    s = line.strip()
    if s.startswith('.reg .b64'):
        out += ['\t.reg .b64 \t%prf<8>;', '\t.reg .pred \t%pprf;', '\t.reg .b32 \t%rprf;']
    if s.startswith('ld.param.b64') and 'score_select_param_0]' in s:
        out += ['\tmov.u32 \t%rprf, %tid.x;', '\tsetp.eq.u32 \t%pprf, %rprf, 0;']
    if k in ins: out += ins[k]
    if s.startswith('} // callseq 0'): out += clk(4) + acc(4, 3, 3)
src = '\n'.join(out)
src = src.replace('.extern .shared', '.visible .global .align 8 .u64 proofc_prof_pol[8];\n.extern .shared', 1)
assert src.count('atom.global.add.u64') == 6, src.count('atom.global.add.u64')
m['source'] = src
for s in b['modules']:
    if s['name'] == 'slot':
        t = s['source']
        t = t.replace('__device__ unsigned long long proofc_prof[8];', '__device__ unsigned long long proofc_prof[8];\nextern __device__ unsigned long long proofc_prof_pol[8];')
        t = t.replace('vprintf("PROF advance', '{ unsigned long long w[6]; for (int i = 0; i < 6; ++i) w[i] = atomicAdd(&proofc_prof_pol[i], 0ull); vprintf("POL encode+layers %llu dots %llu select %llu call %llu embed %llu layer1 %llu\\n", w); }\n        vprintf("PROF advance')
        assert 'POL' in t
        s['source'] = t
json.dump(b, open(sys.argv[2], 'w'))
