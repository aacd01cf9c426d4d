//===- PoolOrderTest.cpp - The order the device takes candidates in -------===//
//
// poolOrder(N, B) is a permutation of 0..N-1, strided by ceil(N / B): the
// first B positions come from all over the candidate list. No GPU needed
// (the GPU tests check that the outcomes come back in candidate order).
//
//===----------------------------------------------------------------------===//
#include "cuda/PlanBinding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

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

} // namespace
} // namespace proofc::test
