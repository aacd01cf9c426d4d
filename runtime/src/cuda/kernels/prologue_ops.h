//===- prologue_ops.h - The plan prologue's element math, host and device -===//
//
// One definition of what each GpuPlan prologue op (Bundle.h PrologueOp,
// docs/bundle.md) computes for one output element, compiled three ways:
// as plain C++ by the host prologue (PlanBinding.cpp's runPlanPrologue) and
// HostPolicy's folded tables, by NVRTC as part of prologue.cu (the device
// prologue, DevicePrologue.h), and as C++ through the CUDA shim by the
// emulation tests. The results are bit-identical on host and device because
// every operation is spelled out and rounded once, to nearest:
//  - fold_columns accumulates in double from the bias, element by element in
//    column order, each product and each sum rounded (device: __dmul_rn and
//    __dadd_rn, which are never contracted into an FMA; the host build has
//    -ffp-contract=off), then rounds once to float;
//  - tf32_fragments is bit manipulation plus one f32 subtraction;
//  - f16_fragments is the same with IEEE half's rounding to nearest even
//    spelled out in integers (no cvt), so host and device agree bit for bit;
//  - fold_atom_layer adds an atom's three rows in float, each sum rounded
//    (device: __fadd_rn), then is fold_columns' sum from 0 (no bias);
//  - copy with transpose moves words.
//
// Plain CUDA C++ with no includes under NVRTC (prologue.cu's embedding
// pastes this file in); `long long` sizes, as the kernels take them.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_PROLOGUE_OPS_H
#define PROOFC_PROLOGUE_OPS_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PROOFC_PROLOGUE_FN __host__ __device__ __forceinline__
#else
#define PROOFC_PROLOGUE_FN inline
#endif
#ifndef __CUDACC_RTC__
#include <cstring> // the host halves' std::memcpy (also under nvcc)
#endif

namespace proofc {
namespace prologue {

/// acc + w * x in double, the product and the sum each rounded to nearest.
PROOFC_PROLOGUE_FN double mulAdd(double acc, float w, float x) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(acc, __dmul_rn(static_cast<double>(w),
                                  static_cast<double>(x)));
#else
  return acc + static_cast<double>(w) * static_cast<double>(x);
#endif
}

/// A double rounded to the nearest float.
PROOFC_PROLOGUE_FN float toFloat(double x) {
#ifdef __CUDA_ARCH__
  return __double2float_rn(x);
#else
  return static_cast<float>(x);
#endif
}

/// sum over i < cols of w[i] * x[i], accumulated in order from `acc` (the
/// bias, or 0), rounded once: one element of fold_columns.
PROOFC_PROLOGUE_FN float foldColumnsValue(const float *x, const float *w,
                                          long long cols, double acc) {
  for (long long i = 0; i < cols; ++i)
    acc = mulAdd(acc, w[i], x[i]);
  return toFloat(acc);
}

/// Element e = r * out + j of fold_columns: table [rows, cols] times the
/// columns [colBegin, colBegin + cols) of weight [out, in], plus bias [out]
/// (null: none).
PROOFC_PROLOGUE_FN float foldColumnsElement(const float *table,
                                            const float *weight,
                                            const float *bias, long long out,
                                            long long in, long long colBegin,
                                            long long cols, long long e) {
  const long long r = e / out, j = e % out;
  return foldColumnsValue(table + r * cols, weight + j * in + colBegin, cols,
                          bias ? static_cast<double>(bias[j]) : 0.0);
}

/// Row x of an argument table of fold_atom_layer (docs/bundle.md): for x <
/// vars variable row vars - 1 - x (the term -k of variable Vk is x = vars -
/// k, row k - 1), for x < vars + consts constant row x - vars, else null
/// (the zero row, x = vars + consts).
PROOFC_PROLOGUE_FN const float *atomLayerArgRow(const float *constTable,
                                                const float *varTable,
                                                long long consts,
                                                long long vars,
                                                long long width, long long x) {
  if (x < vars)
    return varTable + (vars - 1 - x) * width;
  if (x < vars + consts)
    return constTable + (x - vars) * width;
  return nullptr;
}

/// a + b rounded to the nearest float.
PROOFC_PROLOGUE_FN float addFloat(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// Feature f of an atom as fold_atom_layer's linear reads it: (pred[f] +
/// arg0[f]) + arg1[f], each sum rounded to float, a null row read as zeros,
/// then relu (v > 0 ? v : 0, HostPolicy's) when `relu`.
PROOFC_PROLOGUE_FN float atomLayerInput(const float *pred, const float *arg0,
                                        const float *arg1, long long f,
                                        bool relu) {
  const float v = addFloat(addFloat(pred ? pred[f] : 0.0f,
                                    arg0 ? arg0[f] : 0.0f),
                           arg1 ? arg1[f] : 0.0f);
  return relu ? (v > 0.0f ? v : 0.0f) : v;
}

/// The three rows an atom of fold_atom_layer adds, P(p), A0(x) and A1(y)
/// (null: a zero row), for its table row `row` = (p * n + x) * n + y (n =
/// argRows, kernel_abi.h's atomLayerArgRows): P(p) is predProj's row p for
/// p < predRows, A0 and A1 atomLayerArgRow of the arg0 and arg1 tables.
struct AtomLayerRowInputs {
  const float *pred, *arg0, *arg1;
};
PROOFC_PROLOGUE_FN AtomLayerRowInputs atomLayerRowInputs(
    const float *predProj, const float *arg0Const, const float *arg1Const,
    const float *arg0Var, const float *arg1Var, long long predRows,
    long long consts, long long vars, long long argRows, long long width,
    long long row) {
  const long long y = row % argRows, x = row / argRows % argRows,
                  p = row / argRows / argRows;
  return {p < predRows ? predProj + p * width : nullptr,
          atomLayerArgRow(arg0Const, arg0Var, consts, vars, width, x),
          atomLayerArgRow(arg1Const, arg1Var, consts, vars, width, y)};
}

/// The tiled fold_atom_layer kernel's shape (prologue.cu), which its
/// launch (PrologueSchedule.cpp) follows: a block of kAtomLayerWarps warps
/// takes kAtomLayerRowsPerPass rows a pass, outputs and features in tiles of
/// kAtomLayerTile; a warp owns kAtomLayerWarpRows rows of the pass (one
/// 16-row A tile of mma.sync.m16n8k16) times the whole output tile (eight
/// 8-column tiles of its C), summed kAtomLayerStep features a step. The
/// rows in shared memory are kAtomLayerTile + kAtomLayerPad elements apart,
/// so that a warp's fragment reads (8 rows x 4 features) hit distinct
/// banks.
constexpr long long kAtomLayerTile = 64;
constexpr long long kAtomLayerWarps = 2;
constexpr long long kAtomLayerThreads = 32 * kAtomLayerWarps;
constexpr long long kAtomLayerWarpRows = 16;
constexpr long long kAtomLayerStep = 16;
constexpr long long kAtomLayerRowsPerPass =
    kAtomLayerWarps * kAtomLayerWarpRows;
constexpr long long kAtomLayerPad = 4;
// Whole 16 x 8 x 16 tiles, a thread for each of a pass's rows' inputs
// (prologue.cu's rowInputs) and whole rows of threads a feature each (its
// fill).
static_assert(kAtomLayerTile % 8 == 0 &&
                  kAtomLayerTile % kAtomLayerStep == 0 &&
                  kAtomLayerWarpRows == 16 && kAtomLayerStep == 16 &&
                  kAtomLayerRowsPerPass <= kAtomLayerThreads &&
                  kAtomLayerThreads % kAtomLayerTile == 0,
              "prologue_ops.h: the fold_atom_layer tiling does not divide");

/// The most blocks a prologue launch takes (PrologueSchedule.cpp): the
/// kernels' grid-stride loops cover the rest.
constexpr long long kPrologueMaxGrid = 8192;

/// The most blocks fold_atom_layer takes, below kPrologueMaxGrid: each
/// block loads W's tile into shared memory once, so a block does several
/// passes (kinship's 11,936 passes: about 6 a block; 8,192 blocks took
/// 182 us on an H200, 1,056 or 2,112 blocks 169-171 us:
/// docs/performance.md, row 45). About two of an H100's or H200's waves
/// (132 SMs, 8 blocks each), not tied to them.
constexpr long long kAtomLayerMaxGrid = 2048;

/// fold_atom_layer's grid for `rows` rows: a block a pass of
/// kAtomLayerRowsPerPass rows, at least one, at most kAtomLayerMaxGrid.
PROOFC_PROLOGUE_FN long long atomLayerGrid(long long rows) {
  const long long passes =
      (rows + kAtomLayerRowsPerPass - 1) / kAtomLayerRowsPerPass;
  return passes < 1 ? 1 : passes > kAtomLayerMaxGrid ? kAtomLayerMaxGrid
                                                      : passes;
}

/// mulAdd(acc, w, x) as one fused multiply-add on the device, for w and x
/// floats widened to double (exactly): the product of two floats has at
/// most 48 significant bits, so it is exact in double, and rounding
/// acc + w·x once (fma) or the exact product then the sum (mulAdd) gives
/// the same double. The tiled fold_atom_layer kernel (prologue.cu) sums
/// this way: on the FP64 tensor core, whose m16n8k16 and m8n8k4 steps are
/// this chain over their features in ascending order
/// (bench/proto/dmma_order.cu; the GPU test
/// GpuDevicePrologue.Fp64MmaIsAnAscendingFmaChain), or with it directly
/// where there is none (sm < 80, the emulation tests).
PROOFC_PROLOGUE_FN double mulAddExactProduct(double acc, double w, double x) {
#ifdef __CUDA_ARCH__
  return __fma_rn(w, x, acc);
#else
  return acc + w * x;
#endif
}

/// The source element of element e of a transposed copy: dst [cols, rows]
/// from src [rows, cols].
PROOFC_PROLOGUE_FN long long transposeSource(long long e, long long rows,
                                             long long cols) {
  const long long c = e / rows, r = e % rows;
  return r * cols + c;
}

PROOFC_PROLOGUE_FN unsigned int floatBits(float x) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(x);
#else
  unsigned int u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}

PROOFC_PROLOGUE_FN float bitsFloat(unsigned int u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}

/// tf32(x) as cvt.rna.tf32.f32 computes it: the 13 low mantissa bits
/// dropped, rounding to nearest with ties away from zero (weights are
/// finite; a carry into the exponent is the correct rounding).
PROOFC_PROLOGUE_FN float roundToTf32(float x) {
  return bitsFloat((floatBits(x) + 0x1000u) & 0xffffe000u);
}

/// x - hi rounded to nearest f32, then to TF32: the low part of x.
PROOFC_PROLOGUE_FN float tf32Low(float x, float hi) {
#ifdef __CUDA_ARCH__
  return roundToTf32(__fsub_rn(x, hi));
#else
  return roundToTf32(x - hi);
#endif
}

/// Fragment f of tf32_fragments over W [rows = out, cols = in] (multiples of
/// 8), f = (ks * rows / 8 + nt) * 32 + lane for k-step ks, n-tile nt and the
/// lane of mma.sync m16n8k8's B operand: its 4 words
/// {hi(W[n][k]), hi(W[n][k+4]), lo(W[n][k]), lo(W[n][k+4])} with
/// k = 8 ks + lane % 4, n = 8 nt + lane / 4, written to out[0..3]
/// (words 4f..4f+3 of the dst).
PROOFC_PROLOGUE_FN void tf32Fragment(const float *w, long long rows,
                                     long long cols, long long f, float *out) {
  const long long lane = f % 32, tile = f / 32;
  const long long nt = tile % (rows / 8), ks = tile / (rows / 8);
  const long long k = 8 * ks + lane % 4, n = 8 * nt + lane / 4;
  const float w0 = w[n * cols + k], w1 = w[n * cols + k + 4];
  const float hi0 = roundToTf32(w0), hi1 = roundToTf32(w1);
  out[0] = hi0;
  out[1] = hi1;
  out[2] = tf32Low(w0, hi0);
  out[3] = tf32Low(w1, hi1);
}

/// The IEEE half nearest x (ties to even), as cvt.rn.f16.f32 computes it:
/// its 16 bits. Below 2^-14 a subnormal (x = 2^-25 and less: zero); 65520
/// and more: infinity; a NaN stays a NaN.
PROOFC_PROLOGUE_FN unsigned roundToHalfBits(float x) {
  const unsigned u = floatBits(x);
  const unsigned sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) // infinity, NaN (quiet, the top payload bits kept)
    return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u);
  if (a >= 0x477ff000u) // 65520 and up round to infinity
    return sign | 0x7c00u;
  if (a <= 0x33000000u) // 2^-25 and less round to zero (2^-25: a tie, to even)
    return sign;
  unsigned h, rem, halfway;
  if (a < 0x38800000u) { // a subnormal half: units of 2^-24
    const unsigned e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    const unsigned shift = 126u - e; // 14 (x in [2^-15, 2^-14)) .. 24
    h = m >> shift;
    rem = m & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  } else { // a normal half: the exponent rebiased, 13 mantissa bits dropped
    h = (a >> 13) - (112u << 10);
    rem = a & 0x1fffu;
    halfway = 0x1000u;
  }
  if (rem > halfway || (rem == halfway && (h & 1u)))
    ++h; // a carry into the exponent is the correct rounding
  return sign | h;
}

/// The float of half bits h (exact).
PROOFC_PROLOGUE_FN float halfBitsToFloat(unsigned h) {
  const unsigned sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu,
                 m = h & 0x3ffu;
  if (e == 0) { // zero or subnormal: m x 2^-24
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (e == 31)
    return bitsFloat(sign | 0x7f800000u | (m << 13));
  return bitsFloat(sign | ((e + 112u) << 23) | (m << 13));
}

/// Fragment f of f16_fragments over W [rows = out, cols = in] (rows a
/// multiple of 8, cols of 16), f = (ks * rows / 8 + nt) * 32 + lane for
/// k-step ks, n-tile nt and the lane of mma.sync m16n8k16's B operand: its
/// 4 words {hi(W[n][k], W[n][k+4]), hi(W[n][k+8], W[n][k+12]),
/// lo(W[n][k], W[n][k+4]), lo(W[n][k+8], W[n][k+12])} with k = 16 ks +
/// lane % 4, n = 8 nt + lane / 4, each word two halves, the first in its
/// low 16 bits (hi = half(w), lo = half(w - hi); w - hi is exact), written
/// to out[0..3] (words 4f..4f+3 of the dst).
PROOFC_PROLOGUE_FN void f16Fragment(const float *w, long long rows,
                                    long long cols, long long f, float *out) {
  const long long lane = f % 32, tile = f / 32;
  const long long nt = tile % (rows / 8), ks = tile / (rows / 8);
  const long long k = 16 * ks + lane % 4, n = 8 * nt + lane / 4;
  unsigned hi[4], lo[4];
  for (int j = 0; j < 4; ++j) {
    const float x = w[n * cols + k + 4 * j];
    hi[j] = roundToHalfBits(x);
#ifdef __CUDA_ARCH__
    lo[j] = roundToHalfBits(__fsub_rn(x, halfBitsToFloat(hi[j])));
#else
    lo[j] = roundToHalfBits(x - halfBitsToFloat(hi[j]));
#endif
  }
  out[0] = bitsFloat(hi[0] | (hi[1] << 16));
  out[1] = bitsFloat(hi[2] | (hi[3] << 16));
  out[2] = bitsFloat(lo[0] | (lo[1] << 16));
  out[3] = bitsFloat(lo[2] | (lo[3] << 16));
}

} // namespace prologue
} // namespace proofc

#endif // PROOFC_PROLOGUE_OPS_H
