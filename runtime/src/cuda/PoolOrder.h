//===- PoolOrder.h - The order the device takes its pool in -----*- C++ -*-===//
//
// The pool's strided order (poolOrder) and the fast way to walk it: with
// s = ceil(N / B), candidate c sits at pool position q where c = j s + f
// and q counts column f's entries before it, so the order is the transpose
// of an (N / s) x s matrix of candidates. Going from one to the other in q
// order touches a new cache line (and, at a whole-split block's 4 M
// candidates, a new page) on every step; forEachPoolPosition walks it in
// tiles instead, over several threads for a large pool: the block's pool
// upload and outcome readback, which the device waits for between blocks
// (issue 29; bench/RESULTS.md has the setup and readback seconds).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_POOLORDER_H
#define PROOFC_RUNTIME_CUDA_POOLORDER_H

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace proofc {

/// The order in which the device takes the N candidates from its pool, for
/// B slots: pool position q holds candidate order[q]. Strided: with
/// s = ceil(N / B), positions run 0, s, 2s, ..., then 1, s + 1, ... So the
/// candidates in flight at once come from all over the list -- other
/// queries, rarely the same states at the same moment -- and the step
/// memo has usually answered a query's shared steps before its next
/// candidate starts (docs/performance.md, row 20). Outcomes do not depend
/// on the order; PlanBinding uploads the pool in it and puts them back.
std::vector<int64_t> poolOrder(int64_t numCandidates, int64_t B);

/// poolOrder's shape: candidate c = j * stride + f is entry j of column f;
/// the first `full` columns have `rows` entries, the others rows - 1.
struct PoolGeometry {
  int64_t n = 0, stride = 1, rows = 0, full = 0;
  PoolGeometry(int64_t numCandidates, int64_t B)
      : n(std::max<int64_t>(numCandidates, 0)),
        stride(B > 0 ? (n + B - 1) / B : 1) {
    if (n > 0) {
      rows = (n + stride - 1) / stride;
      full = n - (rows - 1) * stride;
    }
  }
  /// Column f's first pool position and its entries.
  int64_t columnStart(int64_t f) const {
    return f * rows - std::max<int64_t>(0, f - full);
  }
  int64_t columnLength(int64_t f) const { return f < full ? rows : rows - 1; }
};

/// Threads worth starting for a walk over n candidates: one below 2^20
/// (a Session's in-loop pool: no thread to start), else up to 8.
inline int poolOrderThreads(int64_t n) {
  if (n < (int64_t{1} << 20))
    return 1;
  return static_cast<int>(
      std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, 8));
}

/// Calls fn(q, c) once for every pool position q and its candidate c =
/// poolOrder(n, B)[q], in 64 x 64 tiles of the transpose, the tiles shared
/// round-robin by poolOrderThreads(n) threads: fn is called concurrently
/// for distinct pairs. An exception fn throws is rethrown here (the first
/// thread's that threw), after every thread has stopped.
template <typename Fn>
void forEachPoolPosition(int64_t numCandidates, int64_t B, Fn &&fn) {
  const PoolGeometry g(numCandidates, B);
  if (g.n == 0)
    return;
  constexpr int64_t kTile = 64;
  const int threads = poolOrderThreads(g.n);
  auto walk = [&](int worker) {
    for (int64_t f0 = worker * kTile; f0 < g.stride; f0 += threads * kTile) {
      const int64_t f1 = std::min(g.stride, f0 + kTile);
      for (int64_t j0 = 0; j0 < g.rows; j0 += kTile) {
        const int64_t j1 = std::min(g.rows, j0 + kTile);
        for (int64_t f = f0; f < f1; ++f) {
          const int64_t q0 = g.columnStart(f);
          const int64_t end = std::min(j1, g.columnLength(f));
          for (int64_t j = j0; j < end; ++j)
            fn(q0 + j, j * g.stride + f);
        }
      }
    }
  };
  if (threads == 1)
    return walk(0);
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto guarded = [&](int worker) {
    try {
      walk(worker);
    } catch (...) {
      errors[static_cast<size_t>(worker)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads - 1));
  for (int w = 1; w < threads; ++w)
    pool.emplace_back(guarded, w);
  guarded(0);
  for (std::thread &t : pool)
    t.join();
  for (const std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
}

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_POOLORDER_H
