# Design study (docs/performance.md, "Where the time goes at B=256"):
#   python3 bench/proto/clock_persistent.py in.pcb out.pcb
# in.pcb compiled with --schedule persistent; out.pcb's kernels read
# %clock64 (thread 0 of each block) and print, from the last block to
# finish, per-run sums in cycles:
#   PROF    advance and derive (inside slot.cu), calls (misses), children,
#           memo hits;
#   DERIVE  init, plan, items, dedup+scan, keep, output, chunks, and the
#           memo lookups that hit / missed, finishing candidates;
#   POL     the policy's segments between its loop head, the loop exits
#           and barriers in text order (the segment names go to stderr),
#           the selection, and the call to slot.cu.
# It patches the embedded slot.cu text and the PTX's loop structure, so it
# follows this tree's templates and may need updating when they change.
import json, re, sys
b = json.load(open(sys.argv[1]))
pm = [m for m in b['modules'] if m['format'] == 'ptx'][0]
L = pm['source'].split('\n')
def idx(pred, start=0):
    for k in range(start, len(L)):
        if pred(L[k].strip()): return k
    raise SystemExit('not found')
call0 = idx(lambda s: s.startswith('{ // callseq 0'))
call1 = idx(lambda s: s.startswith('} // callseq 0'))
# loop head: the label the branch after the call goes back to
br = L[call1 + 2].strip()
head = re.search(r'bra \t(\$L__BB0_\d+);', br).group(1)
ih = L.index(head + ':')
bars = [k for k, l in enumerate(L) if l.strip() == 'bar.sync \t0;' and k > ih]
precall = call0 - 1
assert L[precall].strip() == 'bar.sync \t0;'
# backedges after ih (loops): '@%p bra $L' to an earlier label > ih
labels = {l.strip()[:-1]: k for k, l in enumerate(L) if re.match(r'\$L__BB0_\d+:$', l.strip())}
backs = []
for k, l in enumerate(L):
    mm = re.match(r'@%p\d+ bra \t(\$L__BB0_\d+);', l.strip())
    if mm and k > ih and labels.get(mm.group(1), 1 << 30) < k and labels[mm.group(1)] > ih: backs.append(k)
print('head', ih, 'bars', bars, 'backs', backs, 'call', call0, call1, file=sys.stderr)
points = sorted(set(bars + backs))  # after these lines, in text order
names = []
def pt(i):
    return [f'\tmov.u64 \t%prf1, %clock64;', f'\tsub.s64 \t%prf2, %prf1, %prf0;',
            f'\t@%pprf red.global.add.u64 \t[proofc_prof_pol+{8*i}], %prf2;',
            f'\tmov.u64 \t%prf0, %clock64;']
ins = {}
for i, k in enumerate(points):
    ins[k] = pt(i); names.append(f'L{k}')
ins[precall] = pt(len(points)); names.append('precall')
callseg = len(points) + 1; names.append('call')
out = []
for k, line in enumerate(L):
    s = line.strip()
    if s.startswith('} // callseq 0'):
        out.append(line); out += pt(callseg); continue
    out.append(line)
    if s.startswith('.reg .b64'):
        out += ['\t.reg .b64 \t%prf<4>;', '\t.reg .pred \t%pprf;', '\t.reg .b32 \t%rprf;']
    if s.startswith('ld.param.b64') and 'proofc_policy_param_0]' in s:
        out += ['\tmov.u32 \t%rprf, %tid.x;', '\tsetp.eq.u32 \t%pprf, %rprf, 0;', '\tmov.u64 \t%prf0, %clock64;']
    if k == ih: out += ['\tmov.u64 \t%prf0, %clock64;']
    if k in ins: out += ins[k]
src = '\n'.join(out)
src = src.replace('.extern .shared', '.visible .global .align 8 .u64 proofc_prof_pol[16];\n.extern .shared', 1)
pm['source'] = src
nseg = len(names)
sm = [m for m in b['modules'] if m['name'] == 'slot'][0]
t = sm['source']
def sub(old, new, count=1):
    global t
    assert t.count(old) == count, (old, t.count(old))
    t = t.replace(old, new)
t = ('__device__ unsigned long long proofc_prof[8];\n__device__ unsigned long long proofc_prof_dv[16];\n'
     '__device__ unsigned int proofc_prof_exits;\n__device__ long long proofc_prof_end[4096];\n'
     'extern __device__ unsigned long long proofc_prof_pol[16];\nextern "C" __device__ int vprintf(const char *, void *);\n') + t
sub('''    const proofc_memo::Key key = proofc_memo::makeKey(words, h, r, t);
    int next[W];
    if (!proofc_memo::lookup(memo, mask, words, key, next, step, claim))
      break;''', '''    const long long lk0 = clock64();
    const proofc_memo::Key key = proofc_memo::makeKey(words, h, r, t);
    int next[W];
    const bool hit = proofc_memo::lookup(memo, mask, words, key, next, step, claim);
    const long long lk1 = clock64();
    atomicAdd(&proofc_prof_dv[hit ? 7 : 8], (unsigned long long)(lk1 - lk0));
    if (!hit)
      break;
    atomicAdd(&proofc_prof[6], 1ull);''')
sub('''      c = finishCandidate(c, status, d, lp, N, nextCand, outStatus, outDepth,
                          outLogp);''', '''      const long long fc0 = clock64();
      c = finishCandidate(c, status, d, lp, N, nextCand, outStatus, outDepth,
                          outLogp);
      atomicAdd(&proofc_prof_dv[9], (unsigned long long)(clock64() - fc0));''')
# derive phases
sub('  const int tid = threadIdx.x;\n  const int cand = slotCand[b];\n',
    '  const int tid = threadIdx.x;\n  long long pc0 = clock64(), pc1;\n  #define PACC(i) do { pc1 = clock64(); if (tid == 0) atomicAdd(&proofc_prof_dv[i], (unsigned long long)(pc1 - pc0)); pc0 = pc1; } while (0)\n  const int cand = slotCand[b];\n')
sub('  __syncthreads();\n  if (tid == 0) {\n    planSlot(', '  __syncthreads();\n  PACC(0);\n  if (tid == 0) {\n    planSlot(')
sub('    sDone = pl.numFacts + pl.numRules == 0;\n  }\n  __syncthreads();\n', '    sDone = pl.numFacts + pl.numRules == 0;\n  }\n  __syncthreads();\n  PACC(1);\n')
sub('    const int slot = valid ? claimHash(sTableKey, sTableClaim, h, tid) : 0;\n    __syncthreads();\n', '    const int slot = valid ? claimHash(sTableKey, sTableClaim, h, tid) : 0;\n    __syncthreads();\n    PACC(2); if (tid == 0) atomicAdd(&proofc_prof_dv[6], 1ull);\n')
sub('    const int pos = kept + sScan[tid] - keep;\n', '    PACC(3);\n    const int pos = kept + sScan[tid] - keep;\n')
sub('  int *out = inScratch ? sKept : derived + static_cast<long long>(b) * S * W;\n', '  PACC(4);\n  int *out = inScratch ? sKept : derived + static_cast<long long>(b) * S * W;\n')
sub('      count[b] = 1;\n    }\n    return;\n', '      count[b] = 1;\n    }\n    PACC(5);\n    return;\n')
sub('  if (tid == 0) count[b] = sKeptCount;\n}\n', '  if (tid == 0) count[b] = sKeptCount;\n  PACC(5);\n}\n')
sub('''  __shared__ int sActive;
''', '''  __shared__ int sActive;
  const long long t0 = clock64();
''')
sub('''  const int active = sActive;
''', '''  const int active = sActive;
  const long long t1 = clock64();
''')
sub('''  __syncthreads();
  return active;
}''', '''  __syncthreads();
  const long long t2 = clock64();
  if (threadIdx.x == 0) {
    atomicAdd(&proofc_prof[0], (unsigned long long)(t1 - t0));
    atomicAdd(&proofc_prof[1], (unsigned long long)(t2 - t1));
    atomicAdd(&proofc_prof[3], 1ull);
    atomicAdd(&proofc_prof[5], (unsigned long long)count[b]);
    if (!active) {
      __threadfence();
      if (atomicAdd(&proofc_prof_exits, 1u) == gridDim.x - 1) {
        unsigned long long v[7], d[10], p[16];
        for (int i = 0; i < 7; ++i) v[i] = atomicAdd(&proofc_prof[i], 0ull);
        for (int i = 0; i < 10; ++i) d[i] = atomicAdd(&proofc_prof_dv[i], 0ull);
        for (int i = 0; i < 16; ++i) p[i] = atomicAdd(&proofc_prof_pol[i], 0ull);
        vprintf("PROF advance %llu derive %llu x %llu calls %llu x %llu children %llu memo_hits %llu\\n", v);
        vprintf("DERIVE init %llu plan %llu items %llu scan %llu keep %llu out %llu chunks %llu hitcyc %llu misscyc %llu finishcyc %llu\\n", d);
        vprintf("POL %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\\n", p);
      }
    }
  }
  return active;
}''')
sm['source'] = t
json.dump(b, open(sys.argv[2], 'w'))
print('segments', names, file=sys.stderr)
