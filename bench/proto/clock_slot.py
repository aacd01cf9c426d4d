# Design study (docs/performance.md, "Where the time goes"): p.pcb ->
# p-instr.pcb whose slot.cu times advance, derive and the
# policy between calls (clock64, per block), and counts the step memo's
# hits (advance.cu), printed by the last block out.
import json, sys
b = json.load(open(sys.argv[1]))
for m in b['modules']:
    if m['name'] != 'slot': continue
    src = m['source']
    src = src.replace('extern "C" __device__ __noinline__ int\nproofc_slot_advance_engine(',
'''__device__ long long proofc_prof_end[4096];
extern "C" __device__ int vprintf(const char *, void *);
extern "C" __device__ __noinline__ int\nproofc_slot_advance_engine(''')
    # The counters come first: advance.cu's memo walk counts its hits.
    src = '''__device__ unsigned long long proofc_prof[8];
__device__ unsigned int proofc_prof_exits;
''' + src
    src = src.replace('''    if (!proofc_memo::lookup(memo, mask, words, key, next, step, claim))
      break;''', '''    if (!proofc_memo::lookup(memo, mask, words, key, next, step, claim))
      break;
    atomicAdd(&proofc_prof[6], 1ull);''')
    src = src.replace('''  __shared__ int sActive;
  if (threadIdx.x == 0)''', '''  __shared__ int sActive;
  const long long t0 = clock64();
  if (threadIdx.x == 0)''')
    src = src.replace('''  const int active = sActive;
  proofc_engine_impl::deriveSlot(''', '''  const int active = sActive;
  const long long t1 = clock64();
  proofc_engine_impl::deriveSlot(''')
    src = src.replace('''  __syncthreads();
  return active;
}''', '''  __syncthreads();
  const long long t2 = clock64();
  if (threadIdx.x == 0) {
    const long long e = proofc_prof_end[blockIdx.x];
    if (e) atomicAdd(&proofc_prof[2], (unsigned long long)(t0 - e));
    else atomicAdd(&proofc_prof[4], 1ull);
    atomicAdd(&proofc_prof[0], (unsigned long long)(t1 - t0));
    atomicAdd(&proofc_prof[1], (unsigned long long)(t2 - t1));
    atomicAdd(&proofc_prof[3], 1ull);
    atomicAdd(&proofc_prof[5], (unsigned long long)count[b]);
    proofc_prof_end[blockIdx.x] = clock64();
    if (!active) {
      __threadfence();
      if (atomicAdd(&proofc_prof_exits, 1u) == gridDim.x - 1) {
        unsigned long long v[7];
        for (int i = 0; i < 7; ++i) v[i] = atomicAdd(&proofc_prof[i], 0ull);
        vprintf("PROF advance %llu derive %llu policy %llu calls %llu firsts %llu children %llu memo_hits %llu\\n", v);
      }
    }
  }
  return active;
}''')
    assert 'PROF' in src and 't1 - t0' in src and 'proofc_prof_end[4096]' in src
    assert 'proofc_prof[6]' in src, "advance.cu's memo walk not found"
    m['source'] = src
json.dump(b, open(sys.argv[2], 'w'))
