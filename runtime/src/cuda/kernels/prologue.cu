//===- prologue.cu - The plan's weight prologue ops on the device ----------===//
//
// The kernels of DevicePrologue (runtime/src/cuda/DevicePrologue.h): one per
// GpuPlan prologue op that computes, each a grid-stride loop over its output
// elements calling the op's element function of prologue_ops.h, the same
// function the host prologue calls -- so the device tables are bit for bit
// the host's (fold_atom_layer's, the one large table, is tiled through
// shared memory with the same sums: its banner says why). A plain copy is not a kernel (DevicePrologue aliases or uses
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

/// Two adjacent features of a row in fold_atom_layer's shared memory.
struct alignas(16) DoublePair {
  double even, odd;
};

/// dst [rows, out] = fold_atom_layer(pred_proj [predRows, width], the
/// argument tables arg0/arg1 const [consts, width] and var [vars, width],
/// weight [out, width]); rows is (predRows + 1) * argRows^2, or 0 (nothing
/// to write: the table is past kernel_abi.h's budget).
///
/// Tiled, unlike the other ops' loops over elements (kinship's table is
/// 24.5 M elements of 64 products each, which that loop took 7 ms for on
/// an H200, every time a Session's weights change): a block of
/// kAtomLayerThreads threads takes kAtomLayerRowsPerPass rows at a time;
/// thread t owns the outputs j0 + t % kAtomLayerLanes + k * kAtomLayerLanes
/// (k < kAtomLayerOutputsPerThread) of the kAtomLayerRowsPerThread
/// consecutive rows from (t / kAtomLayerLanes) * kAtomLayerRowsPerThread.
/// The rows' atom inputs (atomLayerInput), widened to double once, and a
/// kAtomLayerTile x kAtomLayerTile tile of W^T go through shared memory once
/// per pass and tile; a thread's sums are independent, so its double FMAs
/// overlap instead of each waiting for the last, and a row's input rows
/// are found once a pass. Each output is the sum docs/bundle.md defines,
/// weight[j][f] times atomLayerInput of the row's atomLayerRowInputs, in
/// double from 0 in ascending f and rounded once (mulAddExactProduct gives
/// mulAdd's bits), so the result does not depend on the grid or block.
///
/// The inputs are widened to double once, when they are stored, not at
/// each of their products (sm_90 converts to double at a quarter of its
/// FMA rate: converting both operands of every product took 0.55 ms for
/// kinship's table on an H200, this kernel 0.36 ms; docs/performance.md,
/// row 42); a thread's 4 outputs x 4 rows make each weight read serve 4
/// products and each input read 4; a whole tile's loop is unrolled, so the
/// next pair of features is read while this pair's products run. The
/// block must be kAtomLayerThreads threads (prologue_ops.h; the schedule
/// launches it so); any grid.
extern "C" __global__ void proofc_prologue_fold_atom_layer(
    float *dst, const float *predProj, const float *arg0Const,
    const float *arg1Const, const float *arg0Var, const float *arg1Var,
    const float *weight, long long rows, long long predRows, long long consts,
    long long vars, long long argRows, long long width, long long out,
    int relu) {
  using proofc::prologue::kAtomLayerLanes;
  using proofc::prologue::kAtomLayerOutputsPerThread;
  using proofc::prologue::kAtomLayerRowsPerPass;
  using proofc::prologue::kAtomLayerRowsPerThread;
  using proofc::prologue::kAtomLayerThreads;
  using proofc::prologue::kAtomLayerTile;
  using proofc::prologue::AtomLayerRowInputs;
  constexpr long long kRows = kAtomLayerRowsPerThread;
  constexpr long long kOuts = kAtomLayerOutputsPerThread;
  constexpr long long kPairs = kAtomLayerTile / 2; // a row's features in v
  __shared__ float wT[kAtomLayerTile * kAtomLayerTile]; // [f][j]
  // The inputs [row][f / 2], features f and f + 1 read at once (16 bytes).
  __shared__ DoublePair v[kAtomLayerRowsPerPass * kPairs];
  // The pass's rows' input rows (atomLayerRowInputs: 64-bit divisions,
  // once a row rather than once an element).
  __shared__ AtomLayerRowInputs rowInputs[kAtomLayerRowsPerPass];
  const long long t = threadIdx.x;
  const long long lane = t % kAtomLayerLanes;
  const long long firstRow = t / kAtomLayerLanes * kRows;
  // One tile of W^T: columns f0.. and rows j0.. of weight [out, width].
  auto loadW = [&](long long f0, long long j0) {
    for (long long i = t; i < kAtomLayerTile * kAtomLayerTile;
         i += kAtomLayerThreads) {
      const long long f = i / kAtomLayerTile, j = i % kAtomLayerTile;
      wT[i] = f0 + f < width && j0 + j < out
                  ? weight[(j0 + j) * width + f0 + f]
                  : 0.0f;
    }
  };
  const bool oneTile = width <= kAtomLayerTile && out <= kAtomLayerTile;
  if (oneTile) {
    loadW(0, 0);
    __syncthreads();
  }
  const long long passes =
      (rows + kAtomLayerRowsPerPass - 1) / kAtomLayerRowsPerPass;
  for (long long pass = blockIdx.x; pass < passes; pass += gridDim.x) {
    const long long row0 = pass * kAtomLayerRowsPerPass;
    __syncthreads(); // the last pass's reads of rowInputs are done
    if (t < kAtomLayerRowsPerPass && row0 + t < rows)
      rowInputs[t] = proofc::prologue::atomLayerRowInputs(
          predProj, arg0Const, arg1Const, arg0Var, arg1Var, predRows, consts,
          vars, argRows, width, row0 + t);
    for (long long j0 = 0; j0 < out; j0 += kAtomLayerTile) {
      double acc[kOuts][kRows];
      for (long long k = 0; k < kOuts; ++k)
        for (long long r = 0; r < kRows; ++r)
          acc[k][r] = 0.0;
      for (long long f0 = 0; f0 < width; f0 += kAtomLayerTile) {
        __syncthreads(); // the last tile's reads are done, rowInputs set
        if (!oneTile)
          loadW(f0, j0);
        // The pass's inputs for features f0..: [row][f], 0 past the end.
        for (long long i = t; i < kAtomLayerRowsPerPass * kAtomLayerTile;
             i += kAtomLayerThreads) {
          const long long r = i / kAtomLayerTile, f = f0 + i % kAtomLayerTile;
          float x = 0.0f;
          if (row0 + r < rows && f < width) {
            const AtomLayerRowInputs &in = rowInputs[r];
            x = proofc::prologue::atomLayerInput(in.pred, in.arg0, in.arg1, f,
                                                 relu != 0);
          }
          DoublePair &pair = v[i / 2];
          (i % 2 == 0 ? pair.even : pair.odd) = static_cast<double>(x);
        }
        __syncthreads();
        const long long fs =
            width - f0 < kAtomLayerTile ? width - f0 : kAtomLayerTile;
        const DoublePair *vr = v + firstRow * kPairs;
        // Features two at a time, in ascending order; an odd last one alone
        // (its pair's odd half is 0 and never read). A whole tile's loop is
        // unrolled, so that the next pair's reads are issued before this
        // pair's products (int indices: shared memory offsets).
        auto pairOfFeatures = [&](int i, bool two) {
          double w[2][kOuts];
          for (int k = 0; k < kOuts; ++k) {
            const float *col =
                wT + i * kAtomLayerTile + lane + k * kAtomLayerLanes;
            w[0][k] = static_cast<double>(col[0]);
            w[1][k] = two ? static_cast<double>(col[kAtomLayerTile]) : 0.0;
          }
          for (int r = 0; r < kRows; ++r) {
            const DoublePair x = vr[r * kPairs + i / 2];
            for (int k = 0; k < kOuts; ++k) {
              acc[k][r] = proofc::prologue::mulAddExactProduct(acc[k][r],
                                                               w[0][k], x.even);
              if (two)
                acc[k][r] = proofc::prologue::mulAddExactProduct(
                    acc[k][r], w[1][k], x.odd);
            }
          }
        };
        if (fs == kAtomLayerTile) {
#pragma unroll 4
          for (int i = 0; i < kAtomLayerTile; i += 2)
            pairOfFeatures(i, true);
        } else {
          for (int i = 0; i < fs; i += 2)
            pairOfFeatures(i, i + 1 < fs);
        }
      }
      for (long long r = 0; r < kRows; ++r) {
        const long long row = row0 + firstRow + r;
        for (long long k = 0; k < kOuts; ++k) {
          const long long j = j0 + lane + k * kAtomLayerLanes;
          if (row < rows && j < out)
            dst[row * out + j] = proofc::prologue::toFloat(acc[k][r]);
        }
      }
    }
  }
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
