# Design study: on top of clock_slot.py, clock64 points inside slot.cu's
# deriveSlot (thread 0): [0] entry->init barrier, [1] plan, [2] items+claim
# (all chunks), [3] dedup+scan, [4] keep+bookkeeping, [5] output, [6] chunks.
import json, sys
b = json.load(open(sys.argv[1]))
m = [m for m in b['modules'] if m['name'] == 'slot'][0]
t = m['source']
start = t.index('__noinline__ __device__ void deriveSlot(')
end = t.index('\n}\n', start) + 3
f = t[start:end]
def sub(old, new, count=1):
    global f
    assert f.count(old) >= count, old
    f = f.replace(old, new, count)
sub('  const int tid = threadIdx.x;\n', '  const int tid = threadIdx.x;\n  long long pc0 = clock64(), pc1;\n  #define PACC(i) do { pc1 = clock64(); if (tid == 0) atomicAdd(&proofc_prof_dv[i], (unsigned long long)(pc1 - pc0)); pc0 = pc1; } while (0)\n')
sub('  __syncthreads();\n  if (tid == 0) {\n    planSlot(', '  __syncthreads();\n  PACC(0);\n  if (tid == 0) {\n    planSlot(')
sub('    sDone = pl.numFacts + pl.numRules == 0;\n  }\n  __syncthreads();\n', '    sDone = pl.numFacts + pl.numRules == 0;\n  }\n  __syncthreads();\n  PACC(1);\n')
sub('    const int slot = valid ? claimHash(sTableKey, sTableClaim, h, tid) : 0;\n    __syncthreads();\n', '    const int slot = valid ? claimHash(sTableKey, sTableClaim, h, tid) : 0;\n    __syncthreads();\n    PACC(2); if (tid == 0) atomicAdd(&proofc_prof_dv[6], 1ull);\n')
sub('    const int pos = kept + sScan[tid] - keep;\n', '    PACC(3);\n    const int pos = kept + sScan[tid] - keep;\n')
sub('  int *out = derived + static_cast<long long>(b) * S * W;\n', '  PACC(4);\n  int *out = derived + static_cast<long long>(b) * S * W;\n')
# output: at both returns after out
f = f.replace('      count[b] = 1;\n    }\n    return;\n', '      count[b] = 1;\n    }\n    PACC(5);\n    return;\n')
f = f.replace('  if (tid == 0) count[b] = sKeptCount;\n}\n', '  if (tid == 0) count[b] = sKeptCount;\n  PACC(5);\n}\n')
t = '__device__ unsigned long long proofc_prof_dv[8];\n' + t[:start] + f + t[end:]
t = t.replace('vprintf("PROF advance', '{ unsigned long long d[7]; for (int i = 0; i < 7; ++i) d[i] = atomicAdd(&proofc_prof_dv[i], 0ull); vprintf("DERIVE init %llu plan %llu items %llu scan %llu keep %llu out %llu chunks %llu\\n", d); }\n        vprintf("PROF advance')
assert 'DERIVE' in t
m['source'] = t
json.dump(b, open(sys.argv[2], 'w'))
