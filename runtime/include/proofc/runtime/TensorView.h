//===- TensorView.h - A tensor read or written in place ---------*- C++ -*-===//
//
// The one description of memory the runtime does not copy: the weights a
// Session::evaluate() reads in place (TensorViews), and the trajectories a
// Session::rollouts() hands back (Rollouts.h), on the host or on the
// session's GPU.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_TENSORVIEW_H
#define PROOFC_RUNTIME_TENSORVIEW_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace proofc {

/// Where a tensor's memory is.
enum class MemoryKind { Host, Cuda };

/// A tensor in memory someone else owns. As evaluate()'s weights: the
/// caller's, read in place during the call and not kept; weights are
/// float32 (spec §4); any other dtype, a shape other than the program's, a
/// non-contiguous layout or memory on another device is an error naming the
/// tensor. As rollouts()' trajectories: the session's, C-contiguous, valid
/// until its next call.
struct TensorView {
  const void *data = nullptr;
  std::vector<int64_t> shape;
  /// Safetensors' spelling: "F32" (weights: anything else is refused by
  /// name), "I32", "U8".
  std::string dtype = "F32";
  /// Strides in elements, empty for C-contiguous (row-major); others must
  /// be the row-major strides of `shape` (size-1 dimensions: any).
  std::vector<int64_t> strides;
  MemoryKind memory = MemoryKind::Host;
  int device = 0; ///< the CUDA ordinal when memory == Cuda
};

using TensorViews = std::map<std::string, TensorView>;

} // namespace proofc

#endif // PROOFC_RUNTIME_TENSORVIEW_H
