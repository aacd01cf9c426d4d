//===- trajectory.cu - A rollout's trajectories, finished on the device ----===//
//
// After a rollout's proof loop, the recorded dense step rows and the state
// table of lib/Targets/CUDA/Kernels/trajectory.cu (its banner has the
// layouts) become the rollout's outputs (docs/rollouts.md), without leaving
// the device:
//  1. proofc_traj_mark: mark[firstUse] = 1 for every state of the table;
//  2. an exclusive scan of mark (proofc_traj_scan_blocks, _sums, _add):
//     mark[use] becomes the number of the state first used at `use`, so
//     states are numbered in order of first use (step by step, the state a
//     step was taken from before its derived states, in list order) -- the
//     host backend's order, whatever order the slots ran in;
//  3. proofc_traj_states: each entry's number (entryId) and the state table
//     [U][W];
//  4. the same scan over the episodes' depths gives each episode's first
//     step; proofc_traj_steps compacts the dense rows into the step arrays
//     [T] and [T][S] (-1 past a step's count), entry indices mapped to
//     state numbers.
// Every kernel is a grid-stride loop (any grid, any block) but the scan's,
// whose chunk is blockDim.x * kScanPerThread elements per block (the
// runtime launches _blocks and _add with the same block size). The table's
// layout comes in as arguments (entryWords, W), so that this file needs no
// include.
//
// Embedded into the runtime at build time (runtime/cmake/EmbedSource.cmake)
// and compiled with NVRTC for the device; the emulation tests compile it as
// C++ through the CUDA shim.
//
//===----------------------------------------------------------------------===//

namespace proofc_traj_finish {
constexpr int kScanPerThread = 4;
constexpr int kMaxScanThreads = 1024;

__device__ __forceinline__ long long gridStart() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long gridStride() {
  return static_cast<long long>(gridDim.x) * blockDim.x;
}
} // namespace proofc_traj_finish

/// 1. mark[use] = 1 for the first use of every published entry (mark has
/// N * D * (S + 1) zero-filled words).
extern "C" __global__ void proofc_traj_mark(const int *table, int entries,
                                            int entryWords, int *mark) {
  using namespace proofc_traj_finish;
  for (long long e = gridStart(); e < entries; e += gridStride()) {
    const int *entry = table + e * entryWords;
    if (entry[0] == 0 || entry[1] == 0) continue;
    const unsigned use = 0xFFFFFFFFu - static_cast<unsigned>(entry[2]);
    mark[use] = 1;
  }
}

/// 2a. Block j scans its chunk [j * C, (j + 1) * C) of data in place
/// (exclusive; C = blockDim.x * kScanPerThread) and writes the chunk's sum
/// to blockSums[j]. blockDim.x <= 1024.
extern "C" __global__ void proofc_traj_scan_blocks(int *data, long long n,
                                                   int *blockSums) {
  using namespace proofc_traj_finish;
  __shared__ int sTotals[kMaxScanThreads];
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const long long base =
      (static_cast<long long>(blockIdx.x) * threads + tid) * kScanPerThread;
  int local[kScanPerThread];
  int sum = 0;
  for (int i = 0; i < kScanPerThread; ++i) {
    const long long at = base + i;
    const int v = at < n ? data[at] : 0;
    local[i] = sum;
    sum += v;
  }
  sTotals[tid] = sum;
  __syncthreads();
  // Hillis-Steele over the threads' sums (inclusive), then shifted.
  for (int stride = 1; stride < threads; stride *= 2) {
    const int add = tid >= stride ? sTotals[tid - stride] : 0;
    __syncthreads();
    sTotals[tid] += add;
    __syncthreads();
  }
  const int before = tid > 0 ? sTotals[tid - 1] : 0;
  for (int i = 0; i < kScanPerThread; ++i) {
    const long long at = base + i;
    if (at < n) data[at] = before + local[i];
  }
  if (tid == threads - 1) blockSums[blockIdx.x] = sTotals[tid];
}

/// 2b. The blocks' sums scanned (exclusive, in place) by one thread; *total
/// gets the whole sum. Grid 1.
extern "C" __global__ void proofc_traj_scan_sums(int *blockSums, int blocks,
                                                 int *total) {
  if (threadIdx.x != 0) return;
  int sum = 0;
  for (int j = 0; j < blocks; ++j) {
    const int v = blockSums[j];
    blockSums[j] = sum;
    sum += v;
  }
  *total = sum;
}

/// 2c. data[i] += blockSums[i / C], C = chunk (blockDim.x * kScanPerThread
/// of the _blocks launch).
extern "C" __global__ void proofc_traj_scan_add(int *data, long long n,
                                                const int *blockSums,
                                                int chunk) {
  using namespace proofc_traj_finish;
  for (long long i = gridStart(); i < n; i += gridStride())
    data[i] += blockSums[i / chunk];
}

/// 3. entryId[e] = the number of entry e's state (rank[its first use]), and
/// states[number] = its W words; -1 for an empty entry.
extern "C" __global__ void proofc_traj_states(const int *table, int entries,
                                              int entryWords, int W,
                                              const int *rank, int *entryId,
                                              int *states) {
  using namespace proofc_traj_finish;
  for (long long e = gridStart(); e < entries; e += gridStride()) {
    const int *entry = table + e * entryWords;
    if (entry[0] == 0 || entry[1] == 0) {
      entryId[e] = -1;
      continue;
    }
    const unsigned use = 0xFFFFFFFFu - static_cast<unsigned>(entry[2]);
    const int id = rank[use];
    entryId[e] = id;
    for (int w = 0; w < W; ++w)
      states[static_cast<long long>(id) * W + w] = entry[3 + w];
  }
}

/// 4. The dense rows of episodes [0, N) (row q * D + t, t < depth[q]) to
/// step firstStep[q] + t of the step arrays; stepDerived [T][S] with -1
/// past the step's count. One loop iteration per dense row.
/// *firstNonFinite (INT_MAX before) gets the first step whose
/// log-probability is not finite (a non-finite logit: the call fails
/// naming its episode and step, docs/rollouts.md).
extern "C" __global__ void proofc_traj_steps(
    int N, int D, int S, const int *depth, const int *firstStep,
    const int *entryId, const int *denseState, const int *denseDerived,
    const int *denseCount, const int *denseAction, const float *denseLogp,
    int *stepEpisode, int *stepState, int *stepDerived, int *stepCount,
    int *stepAction, float *stepLogp, int *firstNonFinite) {
  using namespace proofc_traj_finish;
  const long long rows = static_cast<long long>(N) * D;
  for (long long r = gridStart(); r < rows; r += gridStride()) {
    const int q = static_cast<int>(r / D), t = static_cast<int>(r % D);
    if (t >= depth[q]) continue;
    const long long o = static_cast<long long>(firstStep[q]) + t;
    const int count = denseCount[r];
    stepEpisode[o] = q;
    const int parent = denseState[r];
    stepState[o] = parent >= 0 ? entryId[parent] : -1; // -1: table overflow
    stepCount[o] = count;
    stepAction[o] = denseAction[r];
    const float lp = denseLogp[r];
    stepLogp[o] = lp;
    if (!(lp - lp == 0.f)) atomicMin(firstNonFinite, static_cast<int>(o));
    for (int i = 0; i < S; ++i) {
      const int e = i < count ? denseDerived[r * S + i] : -1;
      stepDerived[o * S + i] = e >= 0 ? entryId[e] : -1;
    }
  }
}

/// 5. Per episode e of E (= N * K, triple n = e / K): its triple n, the
/// request's positive[n] and its log-probability, the sum of its steps'
/// in double, in step order (docs/rollouts.md), rounded once.
extern "C" __global__ void proofc_traj_episodes(
    int E, int K, const int *depth, const int *firstStep,
    const float *stepLogp, const unsigned char *positiveIn, int *triple,
    unsigned char *positive, float *logp) {
  using namespace proofc_traj_finish;
  for (long long e = gridStart(); e < E; e += gridStride()) {
    const int n = static_cast<int>(e / K);
    triple[e] = n;
    positive[e] = positiveIn[n];
    double sum = 0.0;
    const long long first = firstStep[e];
    for (int t = 0; t < depth[e]; ++t) sum += stepLogp[first + t];
    logp[e] = static_cast<float>(sum);
  }
}
