// policy_wgmma.cu - the policy's two 64x64 layers (+ layer norms, relu and
// the dot) with 3xTF32 on Hopper's warpgroup MMA (`wgmma.mma_async`
// m64n64k8: a warpgroup of 4 warps multiplies 64 rows at once, both
// operands read from shared memory through matrix descriptors, the weights'
// TF32 high and low parts loaded into shared memory once a block), against
// the `mma.sync` m16n8k8 layers of policy_tf32.cu (one warp per 16 rows, the
// weights' fragments from L1; tf32_layers.cuh), on the same random rows
// and weights. The
// question it answers (docs/performance.md, "What a 1.7x step would
// need"): how much faster the layers' part of a policy step could be.
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 bench/proto/policy_wgmma.cu -o /tmp/wg && /tmp/wg
// Prints ns per row for 4.15 M rows and for one V10 full step's 332,704
// rows, and each kernel's largest difference from the FP32 result.
#include "tf32_layers.cuh"

constexpr int P = kRowStride;

// A 64 x 64 operand in the no-swizzle K-major layout of wgmma: 8 x 4 "core
// matrices" of 128 bytes (8 rows, 4 TF32 along K), 16 of them along K for
// each group of 8 rows.
__device__ __forceinline__ int coreIndex(int row, int k) { return ((row >> 3) * 16 + (k >> 2)) * 32 + (row & 7) * 4 + (k & 3); }

// The descriptor of k-step ks (K columns 8ks .. 8ks + 7) of such an operand:
// the next core matrix along K 128 bytes on (leading byte offset), the next
// 8 rows 2048 bytes on (stride byte offset), no swizzle.
__device__ __forceinline__ unsigned long long descriptor(const unsigned *operand, int ks) {
  unsigned long long addr = (unsigned)__cvta_generic_to_shared(operand + 2 * ks * 32);
  return ((addr & 0x3FFFF) >> 4) | ((128ull >> 4) << 16) | ((2048ull >> 4) << 32);
}

// The m64n64k8 TF32 wgmma's instruction up to its A operand, and its 32
// accumulators as asm operands %0-%31: shared by the two forms of A below
// (a shared-memory descriptor, four registers).
#define WGMMA_M64N64K8_TF32                                                     \
  "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"                                  \
  "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "                       \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "    \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, " \
  "%31}, "
#define WGMMA_ACCUMULATORS(c)                                                   \
  "+f"(c[0][0]), "+f"(c[0][1]), "+f"(c[0][2]), "+f"(c[0][3]), "+f"(c[1][0]),   \
      "+f"(c[1][1]), "+f"(c[1][2]), "+f"(c[1][3]), "+f"(c[2][0]),              \
      "+f"(c[2][1]), "+f"(c[2][2]), "+f"(c[2][3]), "+f"(c[3][0]),              \
      "+f"(c[3][1]), "+f"(c[3][2]), "+f"(c[3][3]), "+f"(c[4][0]),              \
      "+f"(c[4][1]), "+f"(c[4][2]), "+f"(c[4][3]), "+f"(c[5][0]),              \
      "+f"(c[5][1]), "+f"(c[5][2]), "+f"(c[5][3]), "+f"(c[6][0]),              \
      "+f"(c[6][1]), "+f"(c[6][2]), "+f"(c[6][3]), "+f"(c[7][0]),              \
      "+f"(c[7][1]), "+f"(c[7][2]), "+f"(c[7][3])

__device__ __forceinline__ void wgmma(float (&c)[8][4], unsigned long long a, unsigned long long b) {
  asm volatile(
      WGMMA_M64N64K8_TF32
      "%32, %33, p, 1, 1;\n}"
      : WGMMA_ACCUMULATORS(c)
      : "l"(a), "l"(b));
}

// The warpgroup's threads, and its operands visible to the async proxy.
__device__ __forceinline__ void warpgroupSync(int wg) { asm volatile("bar.sync %0, 128;" ::"r"(wg + 1)); }
__device__ __forceinline__ void toAsyncProxy() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// x's TF32 high and low parts into operand (hi, lo) at (row, k).
__device__ __forceinline__ void storeSplit(unsigned *hi, unsigned *lo, int row, int k, float x) {
  unsigned h = tf32(x);
  hi[coreIndex(row, k)] = h;
  lo[coreIndex(row, k)] = tf32(x - __uint_as_float(h));
}

// N consecutive values from column k (k % N == 0; one store of each part).
template <int N>
__device__ __forceinline__ void storeSplitN(unsigned *hi, unsigned *lo, int row, int k, const float *x) {
  unsigned h[N], l[N];
#pragma unroll
  for (int e = 0; e < N; ++e) {
    h[e] = tf32(x[e]);
    l[e] = tf32(x[e] - __uint_as_float(h[e]));
  }
  if constexpr (N == 4) {
    *reinterpret_cast<uint4 *>(hi + coreIndex(row, k)) = make_uint4(h[0], h[1], h[2], h[3]);
    *reinterpret_cast<uint4 *>(lo + coreIndex(row, k)) = make_uint4(l[0], l[1], l[2], l[3]);
  } else {
    *reinterpret_cast<uint2 *>(hi + coreIndex(row, k)) = make_uint2(h[0], h[1]);
    *reinterpret_cast<uint2 *>(lo + coreIndex(row, k)) = make_uint2(l[0], l[1]);
  }
}

// The two layers' weights Wn [2][64 out][64 in], split, into the B
// operands' high and low parts (core layout), by the whole block.
__device__ __forceinline__ void loadWeightParts(unsigned *bHi, unsigned *bLo, const float *Wn) {
  for (int i = threadIdx.x; i < 2 * D * D; i += blockDim.x) {
    int l = i / (D * D), r = (i / D) % D, k = i % D;
    storeSplit(bHi + l * D * D, bLo + l * D * D, r, k, Wn[i]);
  }
}

// WG warpgroups a block, each 64 rows at a time; the weights' parts in
// shared memory once a block. Wn: [2][64 out][64 in].
template <int WG>
__global__ void __launch_bounds__(128 * WG, 1) mlpWgmma(const float *__restrict__ in, const float *__restrict__ Wn, const float *__restrict__ dotv, float *out, int n) {
  extern __shared__ __align__(128) unsigned sm[];
  unsigned *bHi = sm, *bLo = sm + 2 * D * D;      // [2][core layout]
  // Warp-uniform (the shuffle tells the compiler), so that the warpgroup's
  // wgmma are not serialized as if in a divergent path.
  const int wg = __shfl_sync(~0u, (int)threadIdx.x >> 7, 0), tid = threadIdx.x & 127;
  unsigned *aHi = sm + 4 * D * D + wg * 2 * D * D, *aLo = aHi + D * D;
  loadWeightParts(bHi, bLo, Wn);
  __syncthreads();
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
  for (int tile = blockIdx.x * WG + wg; tile * 64 < n; tile += gridDim.x * WG) {
    const int row0 = tile * 64;
    // The rows, split, into the A operand (8 rows x 4 columns a warp pass:
    // 512 contiguous bytes of each part).
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int i = tid + 128 * j, r = (i & 7) + 8 * j, k4 = (i >> 3) & 15;
      float4 v = reinterpret_cast<const float4 *>(in + (size_t)min(row0 + r, n - 1) * D)[k4];
      const float x[4] = {v.x, v.y, v.z, v.w};
      storeSplitN<4>(aHi, aLo, r, 4 * k4, x);
    }
    toAsyncProxy();
    warpgroupSync(wg);
    float c[8][4];
    for (int l = 0; l < 2; ++l) {
      initBiasC<8>(c, cB[l]);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) {
        wgmma(c, descriptor(aLo, ks), descriptor(bHi + l * D * D, ks));
        wgmma(c, descriptor(aHi, ks), descriptor(bLo + l * D * D, ks));
        wgmma(c, descriptor(aHi, ks), descriptor(bHi + l * D * D, ks));
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      layerNormC<8>(c, cG[l], cBe[l], true);
      warpgroupSync(wg); // every warp's reads of A are done
      if (l == 0) {
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const float x[2] = {c[nt][2 * h], c[nt][2 * h + 1]};
            storeSplitN<2>(aHi, aLo, 16 * warp + g + 8 * h, 8 * nt + 2 * t, x);
          }
        toAsyncProxy();
        warpgroupSync(wg);
      }
    }
    storeDots(c, dotv, out, row0 + 16 * warp, n);
  }
}

__device__ __forceinline__ void wgmmaRegA(float (&c)[8][4], const unsigned (&a)[4], unsigned long long b) {
  asm volatile(
      WGMMA_M64N64K8_TF32
      "{%32, %33, %34, %35}, %36, p, 1, 1;\n}"
      : WGMMA_ACCUMULATORS(c)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}

// A from registers: each warp splits its 16 rows' A fragments from the
// row-major activation rows (as the mma.sync kernel does), only the weights
// are read through descriptors (shared memory, once a block). WG
// warpgroups a block; Wn: [2][64 out][64 in].
template <int WG>
__global__ void __launch_bounds__(128 * WG, 1) mlpWgmmaRegA(const float *__restrict__ in, const float *__restrict__ Wn, const float *__restrict__ dotv, float *out, int n) {
  extern __shared__ __align__(128) unsigned sm[];
  unsigned *bHi = sm, *bLo = sm + 2 * D * D; // [2][core layout]
  const int wg = __shfl_sync(~0u, (int)threadIdx.x >> 7, 0), tid = threadIdx.x & 127;
  const int warp = tid >> 5, lane = tid & 31;
  float *act = reinterpret_cast<float *>(sm + 4 * D * D) + (wg * 4 + warp) * 16 * P; // this warp's 16 rows
  loadWeightParts(bHi, bLo, Wn);
  toAsyncProxy();
  __syncthreads();
  for (int tile = blockIdx.x * WG + wg; tile * 64 < n; tile += gridDim.x * WG) {
    const int row0 = tile * 64 + warp * 16;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int i = lane + 32 * j, r = i / (D / 4), c4 = i % (D / 4);
      *reinterpret_cast<float4 *>(&act[r * P + 4 * c4]) = reinterpret_cast<const float4 *>(in + (size_t)min(row0 + r, n - 1) * D)[c4];
    }
    __syncwarp();
    float c[8][4];
    for (int l = 0; l < 2; ++l) {
      initBiasC<8>(c, cB[l]);
      unsigned hi[8][4], lo[8][4];
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) splitA<P>(act, ks, hi[ks], lo[ks]);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) {
        wgmmaRegA(c, lo[ks], descriptor(bHi + l * D * D, ks));
        wgmmaRegA(c, hi[ks], descriptor(bLo + l * D * D, ks));
        wgmmaRegA(c, hi[ks], descriptor(bHi + l * D * D, ks));
      }
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      afterLinear(c, l, act);
    }
    storeDots(c, dotv, out, row0, n);
    __syncwarp();
  }
}

int main() {
  const int n = 4150000;
  LayerStudy study(n);
  float *oRef, *oSync, *oWg;
  cudaMalloc(&oRef, n * 4);
  cudaMalloc(&oSync, n * 4);
  cudaMalloc(&oWg, n * 4);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  // Both operands in shared memory: the weights' parts and each
  // warpgroup's 64 rows' parts; one block an SM (two with one warpgroup).
  auto wgKernel = [&](auto kernel, int WG) {
    size_t bytes = (size_t)(4 + 2 * WG) * D * D * 4;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    return [=](int rows) { kernel<<<sms * (WG == 1 ? 2 : 1), 128 * WG, bytes>>>(study.in, study.wn, study.dotv, oWg, rows); };
  };
  // A from registers: the weights' parts and each warpgroup's rows.
  auto regA = [&](auto kernel, int WG, int blocksPerSm) {
    size_t bytes = (size_t)4 * D * D * 4 + (size_t)WG * 64 * P * 4;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    return [=](int rows) { kernel<<<sms * blocksPerSm, 128 * WG, bytes>>>(study.in, study.wn, study.dotv, oWg, rows); };
  };
  auto wg1 = wgKernel(mlpWgmma<1>, 1);
  auto wg2 = wgKernel(mlpWgmma<2>, 2);
  auto wg3 = wgKernel(mlpWgmma<3>, 3);
  auto ra1 = regA(mlpWgmmaRegA<1>, 1, 2);
  auto ra2 = regA(mlpWgmmaRegA<2>, 2, 1);
  auto ra3 = regA(mlpWgmmaRegA<3>, 3, 1);
  auto ra4 = regA(mlpWgmmaRegA<4>, 4, 1);
  for (int rows : {n, 332704}) {
    study.time("fp32-q16t4", [&](int m) { mlpQ16<4><<<(m + 31) / 32, 128>>>(study.in, study.wt, study.dotv, oRef, m); }, rows, 10);
    study.time("mma.sync", [&](int m) { mlpTF32<3><<<(m + 63) / 64, 128>>>(study.in, study.wf, study.dotv, oSync, m); }, rows, 10);
    study.time("wgmma-1wg x2", wg1, rows, 10);
    study.time("wgmma-2wg", wg2, rows, 10);
    study.time("wgmma-3wg", wg3, rows, 10);
    study.time("regA-1wg x2", ra1, rows, 10);
    study.time("regA-2wg", ra2, rows, 10);
    study.time("regA-3wg", ra3, rows, 10);
    study.time("regA-4wg", ra4, rows, 10);
  }
  mlpQ16<4><<<(n + 31) / 32, 128>>>(study.in, study.wt, study.dotv, oRef, n);
  mlpTF32<3><<<(n + 63) / 64, 128>>>(study.in, study.wf, study.dotv, oSync, n);
  study.compare("mma.sync", oRef, oSync);
  wg2(n);
  study.compare("wgmma-2wg", oRef, oWg);
  ra3(n);
  study.compare("regA-3wg", oRef, oWg);
  printf("errors: %s\n", cudaGetErrorString(cudaGetLastError()));
}
