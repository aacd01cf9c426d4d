// fold_atom_layer.cu - times prologue.cu's fold_atom_layer kernel alone.
//
// The device fold of the atom layer runs on every Session call whose
// weights changed (docs/performance.md, rows 33, 42, 45 and 46). This
// harness compiles one prologue.cu (the directory given with -I: the
// tree's, or an older copy) and times its proofc_prologue_fold_atom_layer on
// kinship-sized random tables with the grid and block PrologueSchedule.cpp
// gives it (prologue_ops.h's atomLayerGrid and kAtomLayerThreads), then
// prints the median of 20 launches and an FNV-1a hash of the table, so
// that variants compiled from other copies can be compared bit for bit in
// one call:
//   nvcc -O3 -arch=sm_90 -I runtime/src/cuda/kernels \
//     bench/proto/fold_atom_layer.cu -o /tmp/fal && /tmp/fal
#include "prologue.cu"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));            \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main() {
  // kinship's shape (V10): 25 relations and the padding predicates, 104
  // entities, 6 variables, 64 features in and out, relu.
  const long long predRows = 30, consts = 104, vars = 6, width = 64, out = 64;
  const long long argRows = consts + vars + 1;
  const long long rows = (predRows + 1) * argRows * argRows;
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(0.0f, 0.5f);
  auto randoms = [&](long long n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v) x = nd(rng);
    return v;
  };
  const std::vector<std::vector<float>> host = {
      randoms(predRows * width), randoms(consts * width),
      randoms(consts * width),   randoms(vars * width),
      randoms(vars * width),     randoms(out * width)};
  std::vector<float *> dev;
  for (const auto &h : host) {
    float *p = nullptr;
    CHECK(cudaMalloc(&p, h.size() * 4));
    CHECK(cudaMemcpy(p, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    dev.push_back(p);
  }
  float *dst = nullptr;
  CHECK(cudaMalloc(&dst, rows * out * 4));
  using proofc::prologue::kAtomLayerThreads;
  const unsigned grid =
      static_cast<unsigned>(proofc::prologue::atomLayerGrid(rows));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < 23; ++i) {
    CHECK(cudaEventRecord(a));
    proofc_prologue_fold_atom_layer<<<grid, kAtomLayerThreads>>>(
        dst, dev[0], dev[1], dev[2], dev[3], dev[4], dev[5], rows, predRows,
        consts, vars, argRows, width, out, 1);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    if (i >= 3) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::vector<uint32_t> table(static_cast<size_t>(rows * out));
  CHECK(cudaMemcpy(table.data(), dst, table.size() * 4,
                   cudaMemcpyDeviceToHost));
  uint64_t h = 1469598103934665603ull;
  for (uint32_t w : table) h = (h ^ w) * 1099511628211ull;
  std::printf("rows %lld grid %u block %lld: median %.1f us (min %.1f, max "
              "%.1f), table hash %016llx\n",
              rows, grid, kAtomLayerThreads, ms[ms.size() / 2] * 1e3,
              ms.front() * 1e3, ms.back() * 1e3,
              static_cast<unsigned long long>(h));
  return 0;
}
