//===- PoolOrderTest.cpp - The order the device takes candidates in -------===//
//
// poolOrder(N, B) is a permutation of 0..N-1, strided by ceil(N / B): the
// first B positions come from all over the candidate list; and
// forEachPoolPosition, which the pool upload and the outcome readback walk
// it with, visits exactly its pairs, once each, on one thread and on
// several. No GPU needed (the GPU tests check that the outcomes come back
// in candidate order).
//
//===----------------------------------------------------------------------===//
#include "cuda/PoolOrder.h"
#include "cuda/PlanBinding.h"
#include "proofc/runtime/Error.h"
#include "support/Fail.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <string>

namespace proofc::test {
namespace {

TEST(PoolOrder, IsAStridedPermutation) {
  EXPECT_EQ(poolOrder(10, 4),
            (std::vector<int64_t>{0, 3, 6, 9, 1, 4, 7, 2, 5, 8}));
  EXPECT_EQ(poolOrder(3, 8), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(poolOrder(5, 1), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(poolOrder(0, 256).empty());
  for (auto [n, b] : {std::pair<int64_t, int64_t>{18745, 256},
                      {18745, 4096},
                      {1000, 1000},
                      {1001, 1000}}) {
    std::vector<int64_t> order = poolOrder(n, b);
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all) << n << " " << b;
    // The first B positions hold B different candidates ceil(N/B) apart.
    const int64_t stride = (n + b - 1) / b;
    for (int64_t q = 1; q < std::min(b, n) && order[q] != 1; ++q)
      EXPECT_EQ(order[q] - order[q - 1], stride) << n << " " << b << " " << q;
  }
}

/// Every pair forEachPoolPosition visits, as pool position -> candidate;
/// -1 where none was, -2 where one was visited twice.
std::vector<int64_t> visited(int64_t n, int64_t b) {
  std::vector<std::atomic<int64_t>> at(static_cast<size_t>(n));
  for (auto &a : at)
    a.store(-1);
  forEachPoolPosition(n, b, [&](int64_t q, int64_t c) {
    int64_t none = -1;
    if (!at[static_cast<size_t>(q)].compare_exchange_strong(none, c))
      at[static_cast<size_t>(q)].store(-2);
  });
  std::vector<int64_t> out;
  for (auto &a : at)
    out.push_back(a.load());
  return out;
}

TEST(PoolOrder, TheTiledWalkVisitsEveryPairOnce) {
  // Ragged last rows, a single column, more slots than candidates, tiles
  // cut at both edges; the last two take several threads (n >= 2^20) when
  // the machine has several cores.
  for (auto [n, b] : {std::pair<int64_t, int64_t>{10, 4},
                      {1, 256},
                      {18745, 256},
                      {18745, 4096},
                      {5, 1},
                      {3, 8},
                      {64 * 64 + 1, 63},
                      {int64_t{1} << 20, 16384},
                      {(int64_t{1} << 20) + 12345, 4096}})
    EXPECT_EQ(visited(n, b), poolOrder(n, b)) << n << " " << b;
  EXPECT_TRUE(visited(0, 256).empty());
}

TEST(PoolOrder, TheTiledWalkPassesAnErrorOn) {
  // The readback's check throws from inside the walk, on any thread: the
  // last candidate, and candidate 64 (column 64: the second thread's first
  // tile when the machine has several cores, the first thread's otherwise).
  const int64_t n = (int64_t{1} << 20) + 7;
  for (int64_t bad : {n - 1, int64_t{64}}) {
    try {
      forEachPoolPosition(n, 4096, [&](int64_t, int64_t c) {
        if (c == bad)
          fail("candidate {} has no valid outcome", c);
      });
      ADD_FAILURE() << "no error for candidate " << bad;
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("candidate {} has no valid outcome", bad));
    }
  }
}

} // namespace
} // namespace proofc::test
