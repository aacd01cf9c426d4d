//===- CopyKernel.h - the gpu.func eval.copy launches -----------*- C++ -*-===//
//
// eval.copy lowers to launches of one hand-built kernel,
// gpu.func @copy_words(guard, src, dst, f0, f1, f2, f3): dst = src over
// f0*f1*f2*f3 i32 words, grid-stride, when the guard is set. It is built
// once per GPU module, here, apart from the policy kernel's generator.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_COPYKERNEL_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_COPYKERNEL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::eval::lowering {

/// The copy launches' block size and grid.
inline constexpr int64_t kCopyThreads = 256, kCopyBlocks = 120;

/// The name of @copy_words in `gpuModule`, made (at `loc`) if not there yet.
StringRef getOrCreateCopyKernel(gpu::GPUModuleOp gpuModule, Location loc);

} // namespace mlir::eval::lowering

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_LOWERING_COPYKERNEL_H
