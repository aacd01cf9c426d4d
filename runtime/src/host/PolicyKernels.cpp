//===- PolicyKernels.cpp - SIMD kernels of the host policy ----------------===//
//
// One template over the vector width VW (floats per register: 16, 8 or 4)
// written with GCC/Clang vector extensions; 16 lanes are always handled as
// 16 / VW registers, so each element sees the same operations in the same
// order for every VW. Per element, in float32:
//   atom:      t = (predProj[p] + arg0[a]) + arg1[b]; t = relu(t); h += t
//   Linear:    y = bias; for i in 0..in-1: y += x[i] * W[j][i]
//   LayerNorm: lane l sums the features j ≡ l (mod 16) in ascending j, then
//              the 16 lanes are added pairwise (l += l+8, l += l+4, ...);
//              mean = sum / n; var = (same for (x - mean)^2) / n;
//              y = ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta
//   logits:    the same 16-lane dot product, times the scale.
// FMA contraction is off for this file, or the AVX-512 build (which implies
// FMA) would round differently from the others.
//
//===----------------------------------------------------------------------===//
#include "host/PolicyKernels.h"

#include "support/Fail.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#define PROOFC_INLINE inline __attribute__((always_inline))

namespace proofc::kernels {
namespace {

template <int VW> struct VecOf;
template <> struct VecOf<16> {
  typedef float type __attribute__((vector_size(64)));
  typedef int32_t mask __attribute__((vector_size(64)));
};
template <> struct VecOf<8> {
  typedef float type __attribute__((vector_size(32)));
  typedef int32_t mask __attribute__((vector_size(32)));
};
template <> struct VecOf<4> {
  typedef float type __attribute__((vector_size(16)));
  typedef int32_t mask __attribute__((vector_size(16)));
};

/// 16 float lanes as 16 / VW registers.
template <int VW> struct L16 {
  using V = typename VecOf<VW>::type;
  static constexpr int N = kLanes / VW;
  V v[N];

  static PROOFC_INLINE L16 load(const float *p) {
    L16 r;
    for (int i = 0; i < N; ++i)
      std::memcpy(&r.v[i], p + i * VW, sizeof(V));
    return r;
  }
  static PROOFC_INLINE L16 splat(float x) {
    // GCC: a shuffle of {x, 0, ...} is one vbroadcastss (V{} + x would add
    // 0 + x first; an initializer list of VW copies became masked inserts,
    // 4x slower). Clang has no __builtin_shuffle and splats the add fine.
#if defined(__clang__)
    const V b = V{} + x;
#else
    const V b = __builtin_shuffle(V{x}, typename VecOf<VW>::mask{});
#endif
    L16 r;
    for (int i = 0; i < N; ++i)
      r.v[i] = b;
    return r;
  }
  static PROOFC_INLINE L16 zero() { return splat(0.f); }
  PROOFC_INLINE void store(float *p) const {
    for (int i = 0; i < N; ++i)
      std::memcpy(p + i * VW, &v[i], sizeof(V));
  }
  PROOFC_INLINE L16 operator+(const L16 &o) const {
    L16 r;
    for (int i = 0; i < N; ++i)
      r.v[i] = v[i] + o.v[i];
    return r;
  }
  PROOFC_INLINE L16 operator-(const L16 &o) const {
    L16 r;
    for (int i = 0; i < N; ++i)
      r.v[i] = v[i] - o.v[i];
    return r;
  }
  PROOFC_INLINE L16 operator*(const L16 &o) const {
    L16 r;
    for (int i = 0; i < N; ++i)
      r.v[i] = v[i] * o.v[i];
    return r;
  }
  PROOFC_INLINE L16 relu() const {
    L16 r;
    for (int i = 0; i < N; ++i)
      r.v[i] = v[i] > V{} ? v[i] : V{};
    return r;
  }
};

/// The fixed pairwise sum of 16 lanes.
PROOFC_INLINE float treeSum(float *lanes) {
  for (int step = kLanes / 2; step > 0; step /= 2)
    for (int l = 0; l < step; ++l)
      lanes[l] += lanes[l + step];
  return lanes[0];
}

template <int VW> PROOFC_INLINE float laneSum(const L16<VW> &acc) {
  float lanes[kLanes];
  acc.store(lanes);
  return treeSum(lanes);
}

[[noreturn]] void badAtom(const EncoderPlan &plan, const Atom &atom) {
  fail("policy: atom ({}, {}, {}) is outside the tables (R = {}, E = {}, {} "
       "variables)",
       atom.p, atom.a, atom.b, plan.numRelations, plan.numEntities,
       plan.atom.numVarRows);
}

PROOFC_INLINE const float *argRow(const EncoderPlan &plan, const Atom &atom,
                                  int32_t term,
                                  const std::vector<float> &consts,
                                  const std::vector<float> &vars,
                                  int32_t stride) {
  if (term >= 0) {
    if (term >= plan.numEntities)
      badAtom(plan, atom);
    return consts.data() + size_t(term) * stride;
  }
  if (-term > plan.atom.numVarRows)
    badAtom(plan, atom);
  return vars.data() + size_t(-term - 1) * stride;
}

/// h[stride] = sum over the state's atoms of the (relu'd) folded AtomEmbed.
template <int VW>
PROOFC_INLINE void atomRow(const EncoderPlan &plan, const Atom *state,
                           int32_t A, float *h) {
  using L = L16<VW>;
  const FoldedAtomEmbed &t = plan.atom;
  const int32_t stride = t.stride;
  for (int32_t c = 0; c < stride; c += kLanes)
    L::zero().store(h + c);
  for (int32_t i = 0; i < A && state[i].p != kPadPred; ++i) {
    const Atom &atom = state[i];
    if (atom.p < 0 || atom.p >= plan.numRelations + 2)
      badAtom(plan, atom);
    const float *pp = t.predProj.data() + size_t(atom.p) * stride;
    if (atom.p < plan.numRelations) {
      const float *a0 =
          argRow(plan, atom, atom.a, t.arg0Const, t.arg0Var, stride);
      const float *a1 =
          argRow(plan, atom, atom.b, t.arg1Const, t.arg1Var, stride);
      for (int32_t c = 0; c < stride; c += kLanes) {
        L v = L::load(pp + c) + L::load(a0 + c) + L::load(a1 + c);
        if (plan.atomRelu)
          v = v.relu();
        (L::load(h + c) + v).store(h + c);
      }
    } else { // TRUE/FALSE: zero term vectors
      for (int32_t c = 0; c < stride; c += kLanes) {
        L v = L::load(pp + c);
        if (plan.atomRelu)
          v = v.relu();
        (L::load(h + c) + v).store(h + c);
      }
    }
  }
}

/// y[r] = W x[r] + b for the kTileRows rows of a tile; CH chunks of 16
/// outputs per pass (CH * kTileRows accumulators in registers).
template <int VW, int CH>
PROOFC_INLINE void linearChunks(const float *x, float *y, int32_t rowStride,
                                const VectorOp &op, int32_t j0) {
  using L = L16<VW>;
  const int32_t outStride = padded(op.out);
  L acc[kTileRows][CH];
  for (int ch = 0; ch < CH; ++ch) {
    const L b = L::load(op.bias.data() + j0 + ch * kLanes);
    for (int r = 0; r < kTileRows; ++r)
      acc[r][ch] = b;
  }
  const float *w = op.weightT.data() + j0;
  for (int32_t i = 0; i < op.in; ++i, w += outStride) {
    L wc[CH];
    for (int ch = 0; ch < CH; ++ch)
      wc[ch] = L::load(w + ch * kLanes);
    for (int r = 0; r < kTileRows; ++r) {
      const L xi = L::splat(x[r * rowStride + i]);
      for (int ch = 0; ch < CH; ++ch)
        acc[r][ch] = acc[r][ch] + xi * wc[ch];
    }
  }
  for (int r = 0; r < kTileRows; ++r)
    for (int ch = 0; ch < CH; ++ch)
      acc[r][ch].store(y + r * rowStride + j0 + ch * kLanes);
}

template <int VW>
PROOFC_INLINE void linearTile(const float *x, float *y, int32_t rowStride,
                              const VectorOp &op) {
  // Two chunks per pass where 16 lanes are one register (enough registers
  // for 8 accumulators), one otherwise; the per-element sums are the same.
  constexpr int CH = VW == 16 ? 2 : 1;
  const int32_t outStride = padded(op.out);
  int32_t j0 = 0;
  for (; j0 + CH * kLanes <= outStride; j0 += CH * kLanes)
    linearChunks<VW, CH>(x, y, rowStride, op, j0);
  for (; j0 < outStride; j0 += kLanes)
    linearChunks<VW, 1>(x, y, rowStride, op, j0);
}

template <int VW>
PROOFC_INLINE void layerNormRow(float *x, const VectorOp &op) {
  using L = L16<VW>;
  const int32_t stride = padded(op.out);
  const float n = static_cast<float>(op.out);
  L acc = L::zero(); // padded features are 0 and add nothing
  for (int32_t c = 0; c < stride; c += kLanes)
    acc = acc + L::load(x + c);
  const float mean = laneSum(acc) / n;
  const L m = L::splat(mean);
  acc = L::zero();
  for (int32_t c = 0; c < stride; c += kLanes) {
    const L d = (L::load(x + c) - m) * L::load(op.mask.data() + c);
    acc = acc + d * d;
  }
  const float var = laneSum(acc) / n; // biased (spec §4)
  const L inv = L::splat(1.f / std::sqrt(var + op.eps));
  for (int32_t c = 0; c < stride; c += kLanes)
    (((L::load(x + c) - m) * inv) * L::load(op.gamma.data() + c) +
     L::load(op.bias.data() + c))
        .store(x + c);
}

template <int VW> PROOFC_INLINE void reluRow(float *x, int32_t stride) {
  using L = L16<VW>;
  for (int32_t c = 0; c < stride; c += kLanes)
    L::load(x + c).relu().store(x + c);
}

template <int VW>
PROOFC_INLINE void encodeImpl(const EncoderPlan &plan, const Atom *states,
                              int32_t k, int32_t A, float *out,
                              float *scratch) {
  const int32_t rs = plan.maxStride; // row stride of the tile buffers
  for (int32_t r0 = 0; r0 < k; r0 += kTileRows) {
    const int32_t rows = std::min(kTileRows, k - r0);
    float *cur = scratch, *next = scratch + kTileRows * rs;
    // Rows past k are zero states: computed and discarded, so every state
    // goes through exactly the same tile code.
    for (int32_t r = 0; r < kTileRows; ++r) {
      if (r < rows)
        atomRow<VW>(plan, states + size_t(r0 + r) * A, A, cur + r * rs);
      else
        std::fill(cur + r * rs, cur + (r + 1) * rs, 0.f);
    }
    for (const VectorOp &op : plan.ops) {
      switch (op.kind) {
      case PolicyOpKind::Linear:
        linearTile<VW>(cur, next, rs, op);
        std::swap(cur, next);
        break;
      case PolicyOpKind::LayerNorm:
        for (int32_t r = 0; r < kTileRows; ++r)
          layerNormRow<VW>(cur + r * rs, op);
        break;
      default: // Relu
        for (int32_t r = 0; r < kTileRows; ++r)
          reluRow<VW>(cur + r * rs, padded(op.out));
        break;
      }
    }
    for (int32_t r = 0; r < rows; ++r)
      std::memcpy(out + size_t(r0 + r) * plan.outWidth, cur + r * rs,
                  sizeof(float) * plan.outWidth);
  }
}

template <int VW>
PROOFC_INLINE void logitsImpl(const float *parent, const float *children,
                              int32_t k, int32_t width, float scale,
                              float *out) {
  using L = L16<VW>;
  const int32_t full = width / kLanes * kLanes;
  for (int32_t i = 0; i < k; ++i) {
    const float *c = children + size_t(i) * width;
    L acc = L::zero();
    for (int32_t j = 0; j < full; j += kLanes)
      acc = acc + L::load(parent + j) * L::load(c + j);
    float lanes[kLanes];
    acc.store(lanes);
    for (int32_t j = full; j < width; ++j)
      lanes[j - full] += parent[j] * c[j];
    out[i] = treeSum(lanes) * scale;
  }
}

void encodeBase(const EncoderPlan &plan, const Atom *states, int32_t k,
                int32_t A, float *out, float *scratch) {
  encodeImpl<4>(plan, states, k, A, out, scratch);
}
void logitsBase(const float *parent, const float *children, int32_t k,
                int32_t width, float scale, float *out) {
  logitsImpl<4>(parent, children, k, width, scale, out);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PROOFC_HAVE_X86_KERNELS 1
__attribute__((target("avx2"))) void encodeAvx2(const EncoderPlan &plan,
                                                const Atom *states, int32_t k,
                                                int32_t A, float *out,
                                                float *scratch) {
  encodeImpl<8>(plan, states, k, A, out, scratch);
}
__attribute__((target("avx2"))) void logitsAvx2(const float *parent,
                                                const float *children,
                                                int32_t k, int32_t width,
                                                float scale, float *out) {
  logitsImpl<8>(parent, children, k, width, scale, out);
}
__attribute__((target("avx512f"))) void
encodeAvx512(const EncoderPlan &plan, const Atom *states, int32_t k, int32_t A,
             float *out, float *scratch) {
  encodeImpl<16>(plan, states, k, A, out, scratch);
}
__attribute__((target("avx512f"))) void logitsAvx512(const float *parent,
                                                     const float *children,
                                                     int32_t k, int32_t width,
                                                     float scale, float *out) {
  logitsImpl<16>(parent, children, k, width, scale, out);
}
#endif

} // namespace

std::vector<KernelSet> availableKernels() {
  std::vector<KernelSet> sets;
#ifdef PROOFC_HAVE_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    sets.push_back({"avx512f", encodeAvx512, logitsAvx512});
  if (__builtin_cpu_supports("avx2"))
    sets.push_back({"avx2", encodeAvx2, logitsAvx2});
  sets.push_back({"x86-64", encodeBase, logitsBase});
#else
  sets.push_back({"generic", encodeBase, logitsBase});
#endif
  return sets;
}

} // namespace proofc::kernels
