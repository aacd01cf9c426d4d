//===- PlanPrologueTest.cpp - The bundle's prologue ops on real tensors ---===//
//
// runPlanPrologue's tf32_fragments (eval.split_tf32_weight): each weight
// element split into a TF32 high and low part that add back to it to within
// f32 rounding, stored in the order in which lane l of a warp loads the B
// operand of mma.sync m16n8k8 for k-step ks and n-tile nt. fold_columns' row
// at a time on the host (foldColumnsRow, sums interleaved) gives the bits of
// its element function (foldColumnsElement, what the device runs). No GPU
// needed.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "cuda/kernels/fold_columns_row.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace proofc::test {
namespace {

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

GpuPlan splitPlan() {
  GpuPlan plan;
  plan.prologue.push_back(
      {"tf32_fragments", "w.tf32", "w", "", "", 0, 0, false});
  return plan;
}

TEST(PlanPrologue, Tf32FragmentsSplitExactlyInMmaOrder) {
  const int64_t rows = 16, cols = 8; // out, in: two n-tiles, one k-step
  Tensor w;
  w.shape = {rows, cols};
  for (int64_t i = 0; i < rows * cols; ++i) // all 23 mantissa bits in use
    w.data.push_back(static_cast<float>(
        (i % 2 ? -1.0 : 1.0) * (0.1 + 0.37 * static_cast<double>(i)) / 3.0));
  const TensorMap out = runPlanPrologue(splitPlan(), {{"w", w}}, "x.pcb");
  const Tensor &f = out.at("w.tf32");
  ASSERT_EQ(f.data.size(), static_cast<size_t>(2 * rows * cols));

  for (int64_t nt = 0; nt < rows / 8; ++nt)
    for (int64_t lane = 0; lane < 32; ++lane) {
      const int64_t k = lane % 4, n = 8 * nt + lane / 4;
      const float *frag = f.data.data() + (nt * 32 + lane) * 4;
      for (int e = 0; e < 2; ++e) {
        const float value = w.data[n * cols + k + 4 * e];
        const float hi = frag[e], lo = frag[2 + e];
        // Both parts are TF32 (10 mantissa bits), hi the nearest to value.
        EXPECT_EQ(bits(hi) & 0x1fffu, 0u) << n << "," << k;
        EXPECT_EQ(bits(lo) & 0x1fffu, 0u) << n << "," << k;
        EXPECT_LE(std::fabs(value - hi), std::ldexp(std::fabs(value), -11));
        EXPECT_LE(std::fabs(value - (hi + lo)),
                  std::ldexp(std::fabs(value), -21));
      }
    }
  // One element by hand: lane 5 is (g, t) = (1, 1); in n-tile 1 it holds
  // W[9][1] and W[9][5].
  EXPECT_NEAR(f.data[(32 + 5) * 4 + 0] + f.data[(32 + 5) * 4 + 2],
              w.data[9 * cols + 1], 1e-6);
  EXPECT_NEAR(f.data[(32 + 5) * 4 + 1] + f.data[(32 + 5) * 4 + 3],
              w.data[9 * cols + 5], 1e-6);
}

TEST(PlanPrologue, Tf32FragmentsNeedMultiplesOf8) {
  Tensor w;
  w.shape = {12, 8};
  w.data.assign(96, 1.f);
  const std::string e =
      errorOf([&] { runPlanPrologue(splitPlan(), {{"w", w}}, "x.pcb"); });
  EXPECT_NE(e.find("x.pcb: plan.prologue[0] (tf32_fragments -> w.tf32): 'w' "
                   "must be a 2-D weight whose sizes are multiples of 8"),
            std::string::npos)
      << e;
}

TEST(PlanPrologue, FoldColumnsRowIsTheElementFunctionBitForBit) {
  // Sizes around the row's 8 interleaved sums; values of mixed sign and
  // magnitude, so that the order of the additions shows in the last bits.
  for (int64_t out : {1, 7, 8, 9, 16, 23, 64})
    for (bool withBias : {false, true}) {
      const int64_t rows = 3, cols = 37, colBegin = 5, in = colBegin + cols + 2;
      std::vector<float> table(rows * cols), weight(out * in), bias(out);
      uint64_t state = 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(out);
      auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const double u = static_cast<double>(state >> 11) * 0x1p-53;
        return static_cast<float>((u - 0.5) *
                                  std::ldexp(1.0, (state >> 7) % 9));
      };
      for (float &v : table)
        v = next();
      for (float &v : weight)
        v = next();
      for (float &v : bias)
        v = next();
      const float *b = withBias ? bias.data() : nullptr;
      std::vector<float> got(rows * out);
      for (int64_t r = 0; r < rows; ++r)
        prologue::foldColumnsRow(table.data() + r * cols,
                                 weight.data() + colBegin, b, out, in, cols,
                                 got.data() + r * out);
      for (int64_t e = 0; e < rows * out; ++e)
        EXPECT_EQ(bits(got[e]), bits(prologue::foldColumnsElement(
                                    table.data(), weight.data(), b, out, in,
                                    colBegin, cols, e)))
            << "out " << out << " bias " << withBias << " element " << e;
    }
}

} // namespace
} // namespace proofc::test
