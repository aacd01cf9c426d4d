//===- prologue.cu - The plan's weight prologue ops on the device ----------===//
//
// The kernels of DevicePrologue (runtime/src/cuda/DevicePrologue.h): one per
// GpuPlan prologue op that computes, each a grid-stride loop over its output
// elements calling the op's element function of prologue_ops.h, the same
// function the host prologue calls -- so the device tables are bit for bit
// the host's (fold_atom_layer's, the one large table, is a GEMM on the FP64
// tensor core with the same sums: its banner says why). A plain copy is not
// a kernel (DevicePrologue aliases or uses cuMemcpyDtoDAsync). Any grid
// gives the same result.
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

// The FP64 tensor core's steps where the device has them: m16n8k16 from
// sm_90, m8n8k4 on sm_80-89; the same sums one product at a time elsewhere
// (older devices, the emulation tests).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PROOFC_ATOM_LAYER_MMA 16
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PROOFC_ATOM_LAYER_MMA 4
#else
#define PROOFC_ATOM_LAYER_MMA 0
#endif

// Each output of an f64 mma.sync step becomes the FMA chain
// c = fma(A[r][k], B[k][n], c) over its k in ascending order: measured bit
// for bit on sm_90 for every f64 shape (bench/proto/dmma_order.cu) and
// checked on every GPU the tests run on (GpuDevicePrologue's
// Fp64MmaIsAnAscendingFmaChain). Fragments as the PTX ISA lays them out,
// g = lane / 4, t = lane % 4.
#if PROOFC_ATOM_LAYER_MMA
/// mma.sync.m8n8k4 f64 (sm_80), C += A B on an 8 x 8 tile: the lane holds
/// a = A[g][t], b = B[t][g] and c0, c1 = C[g][2 t], C[g][2 t + 1].
__device__ __forceinline__ void mmaF64m8n8k4(double &c0, double &c1, double a,
                                             double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
      "{%0, %1};"
      : "+d"(c0), "+d"(c1)
      : "d"(a), "d"(b));
}
#endif
#if PROOFC_ATOM_LAYER_MMA == 16
/// mma.sync.m16n8k16 f64 (sm_90), C += A B on a 16 x 8 tile: the lane holds
/// a[i] = A[g + 8 (i % 2)][t + 4 (i / 2)], b[i] = B[t + 4 i][g] and
/// c[i] = C[g + 8 (i / 2)][2 t + i % 2].
__device__ __forceinline__ void mmaF64m16n8k16(double (&c)[4],
                                               const double (&a)[8],
                                               const double (&b)[4]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, "
      "{%0, %1, %2, %3};"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]),
        "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

/// dst [rows, out] = fold_atom_layer(pred_proj [predRows, width], the
/// argument tables arg0/arg1 const [consts, width] and var [vars, width],
/// weight [out, width]); rows is (predRows + 1) * argRows^2, or 0 (nothing
/// to write: the table is past kernel_abi.h's budget).
///
/// A GEMM whose A rows are made on the fly: kinship's table is 24.5 M
/// outputs of 64 products each (1.57 G), made on every Session call whose
/// weights changed. Each output is the sum docs/bundle.md defines,
/// weight[j][f] times atomLayerInput of the row's atomLayerRowInputs, in
/// double from 0 in ascending f and rounded once; the products of floats
/// are exact in double, so that sum is a chain of FMAs
/// (mulAddExactProduct), and the FP64 tensor core's m16n8k16 step is that
/// chain over 16 features (mmaF64m16n8k16; four m8n8k4 steps on sm_80-89):
/// the table is the host's bit for bit, for any grid. The tensor core does
/// a step's 2,048 FMAs in one instruction at twice the rate of the double
/// FMA pipe, which the tiled FMA kernel before it (0.36 ms on an H200,
/// docs/performance.md row 42) kept a quarter busy.
///
/// A block of kAtomLayerThreads threads takes kAtomLayerRowsPerPass rows a
/// pass: their input rows found once (rowInputs: 64-bit divisions), their
/// atom inputs (floats, 0 past the width; a thread a feature, its rows'
/// loads in flight together) and a kAtomLayerTile square tile of W stored
/// in shared memory, then each warp sums its kAtomLayerWarpRows rows times
/// the output tile: 8 tiles of 16 x 8, kAtomLayerStep features at a time.
/// Features past the width and outputs past `out` are zeros in both
/// operands, which leave a sum as it is (fma(0, 0, c) = c: c is never -0,
/// a chain from +0 never gives one), and are not stored. The block must be
/// kAtomLayerThreads threads (prologue_ops.h; the schedule launches it so);
/// any grid.
extern "C" __global__ void proofc_prologue_fold_atom_layer(
    float *dst, const float *predProj, const float *arg0Const,
    const float *arg1Const, const float *arg0Var, const float *arg1Var,
    const float *weight, long long rows, long long predRows, long long consts,
    long long vars, long long argRows, long long width, long long out,
    int relu) {
  using proofc::prologue::kAtomLayerPad;
  using proofc::prologue::kAtomLayerRowsPerPass;
  using proofc::prologue::kAtomLayerThreads;
  using proofc::prologue::kAtomLayerTile;
  using proofc::prologue::kAtomLayerWarpRows;
  using proofc::prologue::AtomLayerRowInputs;
  constexpr int kStride = static_cast<int>(kAtomLayerTile + kAtomLayerPad);
  constexpr int kColTiles = static_cast<int>(kAtomLayerTile / 8);
  constexpr int kStep = static_cast<int>(proofc::prologue::kAtomLayerStep);
  // W's tile [j][f], widened to double at each fragment read: as floats
  // it is half the shared memory, so twice the blocks fit an SM.
  __shared__ float w[kAtomLayerTile * kStride];
  // The pass's atom inputs [row][f].
  __shared__ float v[kAtomLayerRowsPerPass * kStride];
  // The pass's rows' input rows (atomLayerRowInputs: 64-bit divisions,
  // once a row rather than once an element).
  __shared__ AtomLayerRowInputs rowInputs[kAtomLayerRowsPerPass];
  const long long t = threadIdx.x;
  const int lane = static_cast<int>(t % 32);
  const int warpRow0 = static_cast<int>(t / 32 * kAtomLayerWarpRows);
  auto loadW = [&](long long f0, long long j0) {
    for (long long i = t; i < kAtomLayerTile * kAtomLayerTile;
         i += kAtomLayerThreads) {
      const long long j = i / kAtomLayerTile, f = i % kAtomLayerTile;
      w[j * kStride + f] =
          f0 + f < width && j0 + j < out
              ? weight[(j0 + j) * width + f0 + f]
              : 0.0f;
    }
  };
  const bool oneTile = width <= kAtomLayerTile && out <= kAtomLayerTile;
  if (oneTile)
    loadW(0, 0); // the first pass's barrier orders it before the reads
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
      // The warp's 16 rows x the output tile, C of mmaF64m16n8k16 for each
      // 8 columns: the lane's C[lane / 4 + 8 (i / 2)][2 (lane % 4) + i % 2]
      // in acc[n][i].
      double acc[kColTiles][4];
      for (int n = 0; n < kColTiles; ++n)
        for (int i = 0; i < 4; ++i)
          acc[n][i] = 0.0;
      for (long long f0 = 0; f0 < width; f0 += kAtomLayerTile) {
        __syncthreads(); // the last tile's reads are done, rowInputs set
        if (!oneTile)
          loadW(f0, j0);
        // The pass's inputs for features f0..: 0 past the rows or width. A
        // thread keeps one feature and takes every (threads / tile)-th row,
        // so that its loads of several rows are in flight at once.
        {
          constexpr long long kRowStep = kAtomLayerThreads / kAtomLayerTile;
          const long long fl = t % kAtomLayerTile, f = f0 + fl;
#pragma unroll 8
          for (long long r = t / kAtomLayerTile; r < kAtomLayerRowsPerPass;
               r += kRowStep) {
            float x = 0.0f;
            if (row0 + r < rows && f < width) {
              const AtomLayerRowInputs &in = rowInputs[r];
              x = proofc::prologue::atomLayerInput(in.pred, in.arg0, in.arg1,
                                                   f, relu != 0);
            }
            v[r * kStride + fl] = x;
          }
        }
        __syncthreads();
        const long long fs =
            width - f0 < kAtomLayerTile ? width - f0 : kAtomLayerTile;
        const float *vw = v + warpRow0 * kStride;
        auto step = [&](int k0) {
#if PROOFC_ATOM_LAYER_MMA
          double a[8], b[kColTiles][4];
          for (int i = 0; i < 8; ++i)
            a[i] = static_cast<double>(vw[(lane / 4 + 8 * (i % 2)) * kStride +
                                          k0 + lane % 4 + 4 * (i / 2)]);
          for (int n = 0; n < kColTiles; ++n)
            for (int i = 0; i < 4; ++i)
              b[n][i] = static_cast<double>(
                  w[(n * 8 + lane / 4) * kStride + k0 + lane % 4 + 4 * i]);
#if PROOFC_ATOM_LAYER_MMA == 16
          for (int n = 0; n < kColTiles; ++n)
            mmaF64m16n8k16(acc[n], a, b[n]);
#else
          // The same fragments as four m8n8k4 steps of two 8-row tiles.
          for (int q = 0; q < 4; ++q)
            for (int n = 0; n < kColTiles; ++n) {
              mmaF64m8n8k4(acc[n][0], acc[n][1], a[2 * q], b[n][q]);
              mmaF64m8n8k4(acc[n][2], acc[n][3], a[2 * q + 1], b[n][q]);
            }
#endif
#else
          for (int i = 0; i < 4; ++i) {
            const float *x = vw + (lane / 4 + 8 * (i / 2)) * kStride + k0;
            for (int n = 0; n < kColTiles; ++n) {
              const float *wj =
                  w + (n * 8 + 2 * (lane % 4) + i % 2) * kStride + k0;
              for (int k = 0; k < kStep; ++k)
                acc[n][i] = proofc::prologue::mulAddExactProduct(
                    acc[n][i], static_cast<double>(wj[k]),
                    static_cast<double>(x[k]));
            }
          }
#endif
        };
        // Whole steps: past the width both operands are zeros.
        if (fs == kAtomLayerTile) {
#pragma unroll
          for (int k0 = 0; k0 < kAtomLayerTile; k0 += kStep)
            step(k0);
        } else {
          for (int k0 = 0; k0 < fs; k0 += kStep)
            step(k0);
        }
      }
      for (int n = 0; n < kColTiles; ++n)
        for (int i = 0; i < 4; ++i) {
          const long long row = row0 + warpRow0 + lane / 4 + 8 * (i / 2);
          const long long j = j0 + n * 8 + 2 * (lane % 4) + i % 2;
          if (row < rows && j < out)
            dst[row * out + j] = proofc::prologue::toFloat(acc[n][i]);
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

/// dst = the mma.sync B fragments of w [rows, cols], 4 words each, made by
/// `fragment` (prologue_ops.h's tf32Fragment or f16Fragment): one fragment
/// per loop iteration.
template <void (*fragment)(const float *, long long, long long, long long,
                           float *)>
__device__ void fragmentsLoop(float *dst, const float *w, long long rows,
                              long long cols, long long fragments) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long f = static_cast<long long>(blockIdx.x) * blockDim.x +
                     threadIdx.x;
       f < fragments; f += stride)
    fragment(w, rows, cols, f, dst + 4 * f);
}

/// dst [2 rows cols]: the TF32 fragments (two words an element).
extern "C" __global__ void proofc_prologue_tf32_fragments(float *dst,
                                                          const float *w,
                                                          long long rows,
                                                          long long cols) {
  fragmentsLoop<proofc::prologue::tf32Fragment>(dst, w, rows, cols,
                                                rows * cols / 2);
}

/// dst [rows cols]: the f16 fragments (two halves a word of each part).
extern "C" __global__ void proofc_prologue_f16_fragments(float *dst,
                                                         const float *w,
                                                         long long rows,
                                                         long long cols) {
  fragmentsLoop<proofc::prologue::f16Fragment>(dst, w, rows, cols,
                                               rows * cols / 4);
}
