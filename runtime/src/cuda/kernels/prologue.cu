//===- prologue.cu - The plan's weight prologue ops on the device ----------===//
//
// The kernels of DevicePrologue (runtime/src/cuda/DevicePrologue.h): one per
// GpuPlan prologue op that computes, each a grid-stride loop over its output
// elements calling the op's element function of prologue_ops.h, the same
// function the host prologue calls -- so the device tables are bit for bit
// the host's. A plain copy is not a kernel (DevicePrologue aliases or uses
// cuMemcpyDtoDAsync). Any grid and block size gives the same result.
//
// Embedded into the runtime at build time (runtime/cmake/EmbedSource.cmake
// pastes prologue_ops.h in place of its #include) and compiled with NVRTC for
// the device's architecture; the emulation tests compile it as C++ through
// the CUDA shim (test/unit/Targets/CUDA/Kernels/emulation/CudaShim.h).
//
//===----------------------------------------------------------------------===//
#include "prologue_ops.h"

/// dst [rows, out] = fold_columns(table [rows, cols], weight [out, in] from
/// column colBegin, bias [out] or null).
extern "C" __global__ void
proofc_prologue_fold_columns(float *dst, const float *table,
                             const float *weight, const float *bias,
                             long long rows, long long out, long long in,
                             long long colBegin, long long cols) {
  const long long n = rows * out;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x +
                     threadIdx.x;
       e < n; e += stride)
    dst[e] = proofc::prologue::foldColumnsElement(table, weight, bias, out, in,
                                                  colBegin, cols, e);
}

/// dst [cols, rows] = the transpose of src [rows, cols].
extern "C" __global__ void proofc_prologue_transpose(float *dst,
                                                     const float *src,
                                                     long long rows,
                                                     long long cols) {
  const long long n = rows * cols;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x +
                     threadIdx.x;
       e < n; e += stride)
    dst[e] = src[proofc::prologue::transposeSource(e, rows, cols)];
}

/// dst [2 rows cols] = the TF32 mma.sync B fragments of w [rows, cols]: one
/// fragment (4 words) per loop iteration.
extern "C" __global__ void proofc_prologue_tf32_fragments(float *dst,
                                                          const float *w,
                                                          long long rows,
                                                          long long cols) {
  const long long n = rows * cols / 2;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long f = static_cast<long long>(blockIdx.x) * blockDim.x +
                     threadIdx.x;
       f < n; f += stride)
    proofc::prologue::tf32Fragment(w, rows, cols, f, dst + 4 * f);
}
