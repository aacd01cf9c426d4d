//===- PlanPrologueTest.cpp - The bundle's prologue ops on real tensors ---===//
//
// runPlanPrologue's tf32_fragments (eval.split_tf32_weight): each weight
// element split into a TF32 high and low part that add back to it to within
// f32 rounding, stored in the order in which lane l of a warp loads the B
// operand of mma.sync m16n8k8 for k-step ks and n-tile nt; f16_fragments
// (eval.split_f16_weight) likewise in IEEE halves for m16n8k16, whose
// rounding (prologue_ops.h's roundToHalfBits, integers only) is checked
// against a reference in double arithmetic. fold_columns' row
// at a time on the host (foldColumnsRow, sums interleaved) gives the bits of
// its element function (foldColumnsElement, what the device runs). No GPU
// needed.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "cuda/kernels/fold_columns_row.h"
#include "cuda/kernels/prologue_ops.h"
#include "proofc/runtime/Candidates.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace proofc::test {
namespace {

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}

/// A weight [rows, cols] of mixed signs whose values use all 23 mantissa
/// bits.
Tensor mixedWeight(int64_t rows, int64_t cols) {
  Tensor w;
  w.shape = {rows, cols};
  for (int64_t i = 0; i < rows * cols; ++i)
    w.data.push_back(static_cast<float>(
        (i % 2 ? -1.0 : 1.0) * (0.1 + 0.37 * static_cast<double>(i)) / 3.0));
  return w;
}

GpuPlan splitPlan() {
  GpuPlan plan;
  plan.prologue.push_back(
      {"tf32_fragments", "w.tf32", "w", "", "", 0, 0, false});
  return plan;
}

TEST(PlanPrologue, Tf32FragmentsSplitExactlyInMmaOrder) {
  const int64_t rows = 16, cols = 8; // out, in: two n-tiles, one k-step
  const Tensor w = mixedWeight(rows, cols);
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

/// The IEEE half nearest x, ties to even, as a double: x's quotient by the
/// half's spacing at x's magnitude rounded by nearbyint (the default mode,
/// to nearest even), independently of prologue_ops.h's bit manipulation.
double referenceHalf(float x) {
  if (std::isnan(x) || std::isinf(x))
    return x;
  const double a = std::fabs(static_cast<double>(x));
  int e = 0;
  std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
  const double spacing = std::ldexp(1.0, std::max(e - 1, -14) - 10);
  double h = std::nearbyint(a / spacing) * spacing;
  if (h > 65504.0)
    h = std::numeric_limits<double>::infinity();
  return std::copysign(h, static_cast<double>(x));
}

TEST(PlanPrologue, HalfRoundingIsIeeeNearestEven) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  // By hand: 0.1, 1/3, the largest half, the last value that rounds to it,
  // the first that overflows, the smallest subnormal and the tie below it
  // (to even: zero), a subnormal tie to even (1.5 2^-24 -> 2 2^-24), the
  // smallest normal, negative zero.
  const std::pair<float, unsigned> known[] = {
      {0.1f, 0x2e66u},     {1.f / 3.f, 0x3555u},
      {65504.f, 0x7bffu},  {65519.996f, 0x7bffu},
      {65520.f, 0x7c00u},  {0x1p-24f, 0x0001u},
      {0x1p-25f, 0x0000u}, {0x1.8p-24f, 0x0002u},
      {0x1p-14f, 0x0400u}, {-0.f, 0x8000u},
      {-2.5f, 0xc100u},    {std::numeric_limits<float>::infinity(), 0x7c00u}};
  for (auto [x, h] : known)
    EXPECT_EQ(prologue::roundToHalfBits(x), h) << x;
  EXPECT_EQ(prologue::roundToHalfBits(std::nanf("")) & 0x7e00u, 0x7e00u);
  // Every float exponent a half can round to or from, with mantissas that
  // are ties, ties' neighbours and random bits, both signs: the value and
  // the sign of the result are the reference's, and halfBitsToFloat reads
  // the bits back exactly.
  SplitMix64 rng(7);
  int64_t checked = 0;
  for (uint32_t exponent = 90; exponent <= 145; ++exponent)
    for (int i = 0; i < 4000; ++i) {
      uint32_t mantissa = static_cast<uint32_t>(rng.next()) & 0x7fffffu;
      if (i % 4 == 1)
        mantissa = (mantissa & ~0x1fffu) | 0x1000u; // a normal half's tie
      else if (i % 4 == 2)
        mantissa = (mantissa & ~0x1fffu) | 0x1000u | (i % 8 == 2 ? 1u : 0u);
      const uint32_t bits =
          (static_cast<uint32_t>(i & 8) << 28) | (exponent << 23) | mantissa;
      float x;
      std::memcpy(&x, &bits, 4);
      const unsigned h = prologue::roundToHalfBits(x);
      const double got = prologue::halfBitsToFloat(h);
      const double want = referenceHalf(x);
      ASSERT_EQ(got, want) << std::hexfloat << x << " -> " << std::hex << h;
      ASSERT_EQ(std::signbit(got), std::signbit(x)) << std::hexfloat << x;
      ++checked;
    }
  EXPECT_EQ(checked, 56 * 4000);
}

GpuPlan splitF16Plan() {
  GpuPlan plan;
  plan.prologue.push_back({"f16_fragments", "w.f16", "w", "", "", 0, 0, false});
  return plan;
}

TEST(PlanPrologue, F16FragmentsSplitExactlyInMmaOrder) {
  const int64_t rows = 16, cols = 32; // out, in: two n-tiles, two k-steps
  const Tensor w = mixedWeight(rows, cols);
  const TensorMap out = runPlanPrologue(splitF16Plan(), {{"w", w}}, "x.pcb");
  const Tensor &f = out.at("w.f16");
  ASSERT_EQ(f.data.size(), static_cast<size_t>(rows * cols));
  auto halves = [&](int64_t word, int e) {
    return prologue::halfBitsToFloat((bits(f.data[word]) >> (16 * e)) &
                                     0xffffu);
  };
  for (int64_t ks = 0; ks < cols / 16; ++ks)
    for (int64_t nt = 0; nt < rows / 8; ++nt)
      for (int64_t lane = 0; lane < 32; ++lane) {
        const int64_t k = 16 * ks + lane % 4, n = 8 * nt + lane / 4;
        const int64_t word = ((ks * rows / 8 + nt) * 32 + lane) * 4;
        for (int j = 0; j < 4; ++j) { // columns k, k + 4, k + 8, k + 12
          const float value = w.data[n * cols + k + 4 * j];
          const float hi = halves(word + j / 2, j % 2);
          const float lo = halves(word + 2 + j / 2, j % 2);
          EXPECT_EQ(static_cast<double>(hi), referenceHalf(value))
              << n << "," << k + 4 * j;
          EXPECT_EQ(static_cast<double>(lo), referenceHalf(value - hi))
              << n << "," << k + 4 * j;
          // Two halves hold FP32's 24 bits but for the last one or two,
          // or, where the low half is a subnormal (|value| below about
          // 2^-3), to within half its spacing 2^-24.
          EXPECT_LE(std::fabs(value - (hi + lo)),
                    std::max(std::ldexp(std::fabs(value), -21), 0x1p-25f));
        }
      }
  // One element by hand: lane 5 is (g, t) = (1, 1); in k-step 1, n-tile 1
  // its first word holds W[9][17] and W[9][21].
  const int64_t word = ((1 * 2 + 1) * 32 + 5) * 4;
  EXPECT_NEAR(halves(word, 0) + halves(word + 2, 0), w.data[9 * cols + 17],
              1e-6);
  EXPECT_NEAR(halves(word, 1) + halves(word + 2, 1), w.data[9 * cols + 21],
              1e-6);
}

TEST(PlanPrologue, F16FragmentsNeedInputsOf16) {
  Tensor w;
  w.shape = {8, 24};
  w.data.assign(192, 1.f);
  const std::string e =
      errorOf([&] { runPlanPrologue(splitF16Plan(), {{"w", w}}, "x.pcb"); });
  EXPECT_NE(e.find("x.pcb: plan.prologue[0] (f16_fragments -> w.f16): 'w' "
                   "must be a 2-D weight [out, in] with out a multiple of 8 "
                   "and in of 16"),
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
