// policy_tf32.cu - the policy's two 64x64 layers (+ layer norms, relu and
// the dot) on the tensor cores with 3xTF32 (each operand split into a TF32
// high and low part; a_lo*b_hi + a_hi*b_lo + a_hi*b_hi by mma.sync
// m16n8k8, FP32 accumulate), one warp per 16 rows, against the FP32 fma
// tiling the generated kernel uses (Q=16 threads per row, T=4 rows). The
// weights are pre-split on the host in fragment order (one 16-byte load per
// lane per mma tile). Standalone; random rows and weights.
//   nvcc -O3 -arch=sm_90 bench/proto/policy_tf32.cu -o /tmp/tf32 && /tmp/tf32
// Prints ns per row for 4.15 M rows and for 15,616 rows (one B=256 step),
// and the largest difference from the FP32 result (1x, 2x and 3x TF32).
// The numbers: docs/performance.md, "What would close the gap".
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <vector>
#include "fp32_tiling.cuh"
#include "tf32_mma.cuh"

// Wf: [layer][ks 8][nt 8][lane 32] uint4 {b0 big, b1 big, b0 small, b1 small}
template <int SPLIT>
__global__ void __launch_bounds__(128) mlpTF32(const float *__restrict__ in, const uint4 *__restrict__ Wf, const float *__restrict__ dotv, float *out, int n) {
  constexpr int P = D + 4; // padded row stride
  __shared__ __align__(16) float act[4][16 * P];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  const int row0 = (blockIdx.x * 4 + warp) * 16;
  float *A = act[warp];
  // rows into shared (coalesced float4)
  for (int i = lane; i < 16 * D / 4; i += 32) {
    int r = i / (D / 4), c4 = i % (D / 4);
    int gr = min(row0 + r, n - 1);
    *reinterpret_cast<float4 *>(&A[r * P + 4 * c4]) = reinterpret_cast<const float4 *>(in + (size_t)gr * D)[c4];
  }
  __syncwarp();
  float c[8][4];
  for (int l = 0; l < 2; ++l) {
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) {
      float b0 = cB[l][8 * nt + 2 * t], b1 = cB[l][8 * nt + 2 * t + 1];
      c[nt][0] = b0; c[nt][1] = b1; c[nt][2] = b0; c[nt][3] = b1;
    }
#pragma unroll
    for (int ks = 0; ks < 8; ++ks) {
      unsigned big[4], small[4];
      splitA<P>(A, ks, big, small);
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        uint4 w = Wf[((l * 8 + ks) * 8 + nt) * 32 + lane];
        if (SPLIT >= 3) mma(c[nt], small, w.x, w.y);
        if (SPLIT >= 2) mma(c[nt], big, w.z, w.w);
        mma(c[nt], big, w.x, w.y);
      }
    }
    // LN over each row, then relu.
    layerNormC<8>(c, cG[l], cBe[l], true);
    if (l == 0) {
      __syncwarp();
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        *reinterpret_cast<float2 *>(&A[g * P + 8 * nt + 2 * t]) = make_float2(c[nt][0], c[nt][1]);
        *reinterpret_cast<float2 *>(&A[(g + 8) * P + 8 * nt + 2 * t]) = make_float2(c[nt][2], c[nt][3]);
      }
      __syncwarp();
    }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float dot = rowDotC<8>(c, dotv, h);
    int r = row0 + g + 8 * h;
    if (t == 0 && r < n) out[r] = dot;
  }
}

int main() {
  int n = 4150000;
  std::vector<float> h((size_t)n * D), w(2 * D * D), dv(D);
  srand(1);
  for (auto &v : h) v = (rand() % 2001 - 1000) / 1000.f;
  for (auto &v : w) v = (rand() % 2001 - 1000) / 8000.f; // Wt[l][in][out]
  for (auto &v : dv) v = (rand() % 2001 - 1000) / 1000.f;
  // fragments: b0 = B[k0+t][n0+g] = Wt[k][n], b1 = Wt[k+4][n]
  std::vector<uint4> wf = tf32Fragments(2, D, [&](int l, int k, int nn) { return w[l * D * D + k * D + nn]; });
  float *dIn, *dW, *dD, *o1, *o2; uint4 *dWf;
  cudaMalloc(&dIn, h.size() * 4); cudaMalloc(&dW, w.size() * 4); cudaMalloc(&dD, D * 4); cudaMalloc(&dWf, wf.size() * 16);
  cudaMalloc(&o1, n * 4); cudaMalloc(&o2, n * 4);
  cudaMemcpy(dIn, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dW, w.data(), w.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dD, dv.data(), D * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dWf, wf.data(), wf.size() * 16, cudaMemcpyHostToDevice);
  std::vector<float> z(2 * D), one(2 * D, 1.f);
  for (auto &v : z) v = (rand() % 2001 - 1000) / 10000.f;
  cudaMemcpyToSymbol(cB, z.data(), 2 * D * 4); cudaMemcpyToSymbol(cBe, z.data(), 2 * D * 4); cudaMemcpyToSymbol(cG, one.data(), 2 * D * 4);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const char *name, auto launch, int nn) {
    launch(nn); cudaDeviceSynchronize();
    float best = 1e9;
    for (int rep = 0; rep < 5; ++rep) { cudaEventRecord(a); launch(nn); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); best = ms < best ? ms : best; }
    printf("%-10s rows %8d  %8.3f ms  %.3f ns/row  err=%s\n", name, nn, best, best * 1e6 / nn, cudaGetErrorString(cudaGetLastError()));
  };
  for (int nn : {n, 256 * 61}) {
    time("fp32-q16t4", [&](int m) { mlpQ16<4><<<(m + 31) / 32, 128>>>(dIn, dW, dD, o1, m); }, nn);
    time("3xtf32", [&](int m) { mlpTF32<3><<<(m + 63) / 64, 128>>>(dIn, dWf, dD, o2, m); }, nn);
    time("2xtf32", [&](int m) { mlpTF32<2><<<(m + 63) / 64, 128>>>(dIn, dWf, dD, o2, m); }, nn);
    time("1xtf32", [&](int m) { mlpTF32<1><<<(m + 63) / 64, 128>>>(dIn, dWf, dD, o2, m); }, nn);
  }
  std::vector<float> r1(n), r2(n);
  for (int s = 1; s <= 3; ++s) {
    mlpQ16<4><<<(n + 31) / 32, 128>>>(dIn, dW, dD, o1, n);
    if (s == 3) mlpTF32<3><<<(n + 63) / 64, 128>>>(dIn, dWf, dD, o2, n);
    if (s == 2) mlpTF32<2><<<(n + 63) / 64, 128>>>(dIn, dWf, dD, o2, n);
    if (s == 1) mlpTF32<1><<<(n + 63) / 64, 128>>>(dIn, dWf, dD, o2, n);
    cudaMemcpy(r1.data(), o1, n * 4, cudaMemcpyDeviceToHost); cudaMemcpy(r2.data(), o2, n * 4, cudaMemcpyDeviceToHost);
    double mx = 0, mrel = 0; for (int i = 0; i < n; ++i) { double d = fabs(r1[i] - r2[i]); mx = fmax(mx, d); mrel = fmax(mrel, d / fmax(1e-3, fabs(r1[i]))); }
    printf("%dxtf32 vs fp32: max |diff| %.3g  max rel %.3g  (sample %g %g)\n", s, mx, mrel, r1[777], r2[777]);
  }
}
