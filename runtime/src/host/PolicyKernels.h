//===- PolicyKernels.h - SIMD kernels of the host policy --------*- C++ -*-===//
//
// Internal to the runtime. The encoder after folding (see HostPolicy.h) as
// flat arrays whose rows are padded to a multiple of 16 floats, and the
// kernels that run it on tiles of 4 states. The kernels exist for AVX-512,
// AVX2 and baseline x86-64 (selected once by CPU) and compute every element
// with the same operations in the same order on all of them (no FMA
// contraction, reductions over 16 fixed lanes), so results are bitwise equal
// whichever runs and whatever the batch.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SRC_POLICYKERNELS_H
#define PROOFC_RUNTIME_SRC_POLICYKERNELS_H

#include "host/HostPolicy.h"
#include "proofc/contract/Program.h"
#include "proofc/runtime/Dataset.h"

#include <cstdint>
#include <vector>

namespace proofc::kernels {

/// Rows are padded to this many floats; reductions use this many lanes.
inline constexpr int32_t kLanes = 16;
/// States encoded together (one register tile of the Linear kernel).
inline constexpr int32_t kTileRows = 4;

inline int32_t padded(int32_t width) {
  return (width + kLanes - 1) / kLanes * kLanes;
}

/// A vector-level op (after SumAtoms) with padded, zero-filled arrays.
struct VectorOp {
  PolicyOpKind kind = PolicyOpKind::Relu;
  int32_t in = 0, out = 0;    ///< real widths
  std::vector<float> weightT; ///< Linear: [in][padded(out)]
  std::vector<float> bias;    ///< Linear / LayerNorm bias [padded(out)]
  std::vector<float> gamma;   ///< LayerNorm weight [padded(out)]
  std::vector<float> mask;    ///< LayerNorm: 1 for real features, else 0
  float eps = 1e-5f;
};

struct EncoderPlan {
  int32_t numEntities = 0, numRelations = 0;
  FoldedAtomEmbed atom;  ///< rows of atom.stride = padded(atom.width) floats
  bool atomRelu = false; ///< Relu between AtomEmbed and SumAtoms
  std::vector<VectorOp> ops;
  int32_t outWidth = 0;
  int32_t maxStride = 0; ///< largest padded width of any activation

  /// Floats of scratch encode() needs.
  size_t scratchSize() const {
    return 2 * static_cast<size_t>(kTileRows) * maxStride;
  }
};

/// enc of k states [k][A] into out [k][outWidth]. Throws proofc::Error for
/// an atom with an id outside the tables.
using EncodeFn = void (*)(const EncoderPlan &plan, const Atom *states,
                          int32_t k, int32_t A, float *out, float *scratch);
/// out[i] = <parent, children[i]> * scale over width floats.
using LogitsFn = void (*)(const float *parent, const float *children, int32_t k,
                          int32_t width, float scale, float *out);

struct KernelSet {
  const char *isa; ///< "avx512f", "avx2" or "x86-64"
  EncodeFn encode;
  LogitsFn logits;
};

/// The kernel sets this CPU can run, widest first.
std::vector<KernelSet> availableKernels();

} // namespace proofc::kernels

#endif // PROOFC_RUNTIME_SRC_POLICYKERNELS_H
