// dmma_order.cu - does the FP64 tensor core's mma.sync.m8n8k4 give the bits
// of a chain of double FMAs, and in which order?
//
// The device fold of the atom layer (prologue.cu) must give the host's
// table bit for bit: each output the double sum from 0 of its products in
// ascending feature order, rounded once to float (docs/bundle.md). Its
// double FMAs run at a quarter of the FP64 tensor core's rate on sm_90;
// the tensor core could only replace them if one m8n8k4 step gives exactly
// acc = fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))). The PTX ISA
// does not say how mma.f64 orders or rounds its four products, so this
// measures it: random tiles (mixed signs and exponents, for cancellation
// and rounding ties), each mma.sync result against FMA chains in several
// orders, counting the outputs that differ under each hypothesis (a
// hypothesis with no difference over 268 M outputs of each kind is the
// tensor core's order; none such means it rounds otherwise, e.g. once).
// Then sm_90's m16n8k4, k8 and k16 shapes against the ascending chain over
// all their K products (a longer step would need fewer instructions).
//   nvcc -O3 -arch=sm_90 bench/proto/dmma_order.cu -o /tmp/dmma && /tmp/dmma
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ double chainAscending(const double *a, const double *b, double c) {
  double acc = c;
  for (int k = 0; k < 4; ++k)
    acc = __fma_rn(a[k], b[k], acc);
  return acc;
}

__device__ double chainDescending(const double *a, const double *b, double c) {
  double acc = c;
  for (int k = 3; k >= 0; --k)
    acc = __fma_rn(a[k], b[k], acc);
  return acc;
}

__device__ double chainThenC(const double *a, const double *b, double c) {
  double acc = __dmul_rn(a[0], b[0]);
  for (int k = 1; k < 4; ++k)
    acc = __fma_rn(a[k], b[k], acc);
  return __dadd_rn(acc, c);
}

__device__ double pairwise(const double *a, const double *b, double c) {
  const double p = __fma_rn(a[1], b[1], __dmul_rn(a[0], b[0]));
  const double q = __fma_rn(a[3], b[3], __dmul_rn(a[2], b[2]));
  return __dadd_rn(__dadd_rn(p, q), c);
}

__device__ uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// A double with a random sign, a 52-bit random significand and an
/// exponent in [-e, e]; `exact` keeps 24 significand bits (a float's), so
/// that products are exact as in the fold.
__device__ double randomDouble(uint64_t seed, int e, bool exact) {
  const uint64_t r = mix(seed), s = mix(seed ^ 0x9e3779b97f4a7c15ull);
  uint64_t mant = r & ((1ull << 52) - 1);
  if (exact)
    mant &= ~((1ull << 29) - 1);
  const int exp = static_cast<int>(s % (2 * e + 1)) - e;
  const uint64_t bits = ((s >> 32) & 1ull) << 63 |
                        static_cast<uint64_t>(1023 + exp) << 52 | mant;
  return __longlong_as_double(static_cast<long long>(bits));
}

__global__ void test(uint64_t tiles, int e, bool exact,
                     unsigned long long *differ) {
  const int lane = threadIdx.x % 32;
  const uint64_t warp =
      (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * blockDim.x / 32;
  __shared__ double As[4][8 * 4], Bs[4][4 * 8];
  double *A = As[threadIdx.x / 32], *B = Bs[threadIdx.x / 32];
  for (uint64_t t = warp; t < tiles; t += warps) {
    const uint64_t base = t * 1000003ull;
    // A 8x4 row-major, B 4x8 (B[k][n]), C 8x8.
    const double a = randomDouble(base + lane, e, exact);
    const double b = randomDouble(base + 64 + lane, e, exact);
    const int row = lane >> 2, col = (lane % 4) * 2;
    double c0 = randomDouble(base + 128 + lane * 2, e + 8, false);
    double c1 = randomDouble(base + 129 + lane * 2, e + 8, false);
    // Fragments: A[row][lane % 4]; B[lane % 4][row] (k = lane % 4, n = row).
    A[row * 4 + lane % 4] = a;
    B[(lane % 4) * 8 + row] = b;
    __syncwarp();
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
                 "{%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(d0), "=d"(d1)
                 : "d"(a), "d"(b), "d"(c0), "d"(c1));
    for (int i = 0; i < 2; ++i) {
      const int n = col + i;
      double ar[4], br[4];
      for (int k = 0; k < 4; ++k) {
        ar[k] = A[row * 4 + k];
        br[k] = B[k * 8 + n];
      }
      const double c = i ? c1 : c0, d = i ? d1 : d0;
      const double h[4] = {chainAscending(ar, br, c),
                           chainDescending(ar, br, c), chainThenC(ar, br, c),
                           pairwise(ar, br, c)};
      for (int k = 0; k < 4; ++k)
        if (__double_as_longlong(h[k]) != __double_as_longlong(d))
          atomicAdd(&differ[k], 1ull);
    }
    __syncwarp();
  }
}

/// mma.sync.m16n8kK.f64 (sm_90: K = 4, 8, 16) on one 16 x 8 tile a warp,
/// against the FMA chain over all K products in ascending k (differ[0]) and
/// in descending k (differ[1], the control). The fragments as the PTX ISA
/// lays out its f64 shapes (g = lane / 4, t = lane % 4): A's register i
/// holds A[g + 8 (i % 2)][t + 4 (i / 2)], B's register i B[t + 4 i][g], C's
/// register j C[g + 8 (j / 2)][2 t + j % 2]. A misread layout cannot give
/// zero differences, so a zero confirms layout and order together.
template <int K>
__global__ void testM16(uint64_t tiles, int e, bool exact,
                        unsigned long long *differ) {
  constexpr int kA = K / 2, kB = K / 4;
  const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const uint64_t warp =
      (static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const uint64_t warps = static_cast<uint64_t>(gridDim.x) * blockDim.x / 32;
  __shared__ double As[4][16 * K], Bs[4][K * 8];
  double *A = As[threadIdx.x / 32], *B = Bs[threadIdx.x / 32];
  for (uint64_t tile = warp; tile < tiles; tile += warps) {
    const uint64_t base = tile * 1000003ull;
    double a[kA], b[kB], c[4];
    for (int i = 0; i < kA; ++i) {
      a[i] = randomDouble(base + lane * 32 + i, e, exact);
      A[(g + 8 * (i % 2)) * K + t + 4 * (i / 2)] = a[i];
    }
    for (int i = 0; i < kB; ++i) {
      b[i] = randomDouble(base + 4096 + lane * 32 + i, e, exact);
      B[(t + 4 * i) * 8 + g] = b[i];
    }
    for (int j = 0; j < 4; ++j)
      c[j] = randomDouble(base + 8192 + lane * 4 + j, e + 8, false);
    __syncwarp();
    double d[4] = {c[0], c[1], c[2], c[3]};
    if constexpr (K == 4)
      asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
                   "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
                   : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                   : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    else if constexpr (K == 8)
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
                   "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                   "{%0, %1, %2, %3};"
                   : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                   : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]),
                     "d"(b[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
                   "{%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
                   "{%12, %13, %14, %15}, {%0, %1, %2, %3};"
                   : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                   : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]),
                     "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
                     "d"(b[2]), "d"(b[3]));
    for (int j = 0; j < 4; ++j) {
      const int r = g + 8 * (j / 2), n = 2 * t + j % 2;
      double up = c[j], down = c[j];
      for (int k = 0; k < K; ++k)
        up = __fma_rn(A[r * K + k], B[k * 8 + n], up);
      for (int k = K - 1; k >= 0; --k)
        down = __fma_rn(A[r * K + k], B[k * 8 + n], down);
      if (__double_as_longlong(up) != __double_as_longlong(d[j]))
        atomicAdd(&differ[0], 1ull);
      if (__double_as_longlong(down) != __double_as_longlong(d[j]))
        atomicAdd(&differ[1], 1ull);
    }
    __syncwarp();
  }
}

/// Runs testM16<K> over `tiles` tiles of each kind; false on a CUDA error.
template <int K> bool reportM16(unsigned long long *differ, uint64_t tiles) {
  for (int exact = 1; exact >= 0; --exact)
    for (int e : {2, 30}) {
      cudaMemset(differ, 0, 2 * sizeof(unsigned long long));
      testM16<K><<<4096, 128>>>(tiles, e, exact != 0, differ);
      unsigned long long h[2];
      cudaMemcpy(h, differ, sizeof h, cudaMemcpyDeviceToHost);
      const cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) {
        std::printf("CUDA error: %s\n", cudaGetErrorString(err));
        return false;
      }
      std::printf("m16n8k%d, operands of %s precision, exponents within "
                  "+-%d: %llu outputs; the ascending chain differs on %llu, "
                  "the descending on %llu\n",
                  K, exact ? "float" : "double", e,
                  static_cast<unsigned long long>(tiles) * 128, h[0], h[1]);
    }
  return true;
}

int main() {
  const char *names[] = {"fma chain from c, k ascending",
                         "fma chain from c, k descending",
                         "products chained, c added last",
                         "pairwise, c added last"};
  unsigned long long *differ = nullptr;
  cudaMalloc(&differ, 4 * sizeof(unsigned long long));
  const uint64_t tiles = 1ull << 22; // 64 outputs a tile: 268 M outputs
  for (int exact = 1; exact >= 0; --exact)
    for (int e : {2, 12, 30}) {
      cudaMemset(differ, 0, 4 * sizeof(unsigned long long));
      test<<<4096, 128>>>(tiles, e, exact != 0, differ);
      unsigned long long h[4];
      cudaMemcpy(h, differ, sizeof h, cudaMemcpyDeviceToHost);
      const cudaError_t err = cudaGetLastError();
      if (err != cudaSuccess) {
        std::printf("CUDA error: %s\n", cudaGetErrorString(err));
        return 1;
      }
      std::printf("operands %s, exponents within +-%d: %llu outputs\n",
                  exact ? "of float precision (exact products)"
                        : "of double precision",
                  e, static_cast<unsigned long long>(tiles) * 64);
      for (int k = 0; k < 4; ++k)
        std::printf("  %-34s differs on %llu\n", names[k], h[k]);
    }
  // The sm_90 shapes: 128 outputs a tile.
  const uint64_t m16Tiles = 1ull << 20;
  if (!reportM16<4>(differ, m16Tiles) || !reportM16<8>(differ, m16Tiles) ||
      !reportM16<16>(differ, m16Tiles))
    return 1;
  return 0;
}
