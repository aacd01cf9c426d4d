// tf32_layers.cuh - the policy's two 64x64 layers (+ layer norms, relu and
// a dot with `dotv`) with SPLIT-fold TF32 `mma.sync` m16n8k8 (3: FP32
// accurate, as the generated kernel), one warp per 16 rows, the weights'
// fragments (tf32Fragments) through L1: the tensor-core layers that
// policy_tf32.cu times against the FP32 tiling and policy_wgmma.cu against
// the warpgroup MMA; and the inputs both programs time (LayerStudy).
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fp32_tiling.cuh"
#include "tf32_mma.cuh"

constexpr int kRowStride = D + 4; // the activation rows' padded stride (floats)

// After linear l of the warp's 16 rows: layer norm and relu; after the
// first, the rows back into `rows` (stride kRowStride) for the second.
__device__ __forceinline__ void afterLinear(float (&c)[8][4], int l, float *rows) {
  layerNormC<8>(c, cG[l], cBe[l], true);
  if (l == 0) {
    __syncwarp();
    storeRowsC<8, kRowStride>(c, rows);
    __syncwarp();
  }
}

// Each of the warp's 16 rows' dot with `dotv` into out[row0 + row] (rows
// from n on are not written).
__device__ __forceinline__ void storeDots(const float (&c)[8][4], const float *dotv, float *out, int row0, int n) {
  const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float dot = rowDotC<8>(c, dotv, h);
    int r = row0 + g + 8 * h;
    if (t == 0 && r < n) out[r] = dot;
  }
}

// Wf: [layer][ks 8][nt 8][lane 32] uint4 {b0 big, b1 big, b0 small, b1 small}
template <int SPLIT>
__global__ void __launch_bounds__(128) mlpTF32(const float *__restrict__ in, const uint4 *__restrict__ Wf, const float *__restrict__ dotv, float *out, int n) {
  constexpr int P = kRowStride;
  __shared__ __align__(16) float act[4][16 * P];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
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
    initBiasC<8>(c, cB[l]);
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
    afterLinear(c, l, A);
  }
  storeDots(c, dotv, out, row0, n);
}

// The studies' inputs on the GPU: n random rows, the two layers' weights as
// Wt [l][in][out] (the FP32 tiling's), Wn [l][out][in] and TF32 fragments,
// a random dot vector, and the layer constants (random biases, unit
// gains). srand(1), so every program times the same numbers.
struct LayerStudy {
  int n;
  float *in, *wt, *wn, *dotv;
  uint4 *wf;
  explicit LayerStudy(int rows) : n(rows) {
    std::vector<float> h((size_t)n * D), w(2 * D * D), dv(D), wnHost(2 * D * D);
    srand(1);
    for (auto &v : h) v = (rand() % 2001 - 1000) / 1000.f;
    for (auto &v : w) v = (rand() % 2001 - 1000) / 8000.f; // Wt[l][in][out]
    for (auto &v : dv) v = (rand() % 2001 - 1000) / 1000.f;
    for (int l = 0; l < 2; ++l)
      for (int i = 0; i < D; ++i)
        for (int o = 0; o < D; ++o) wnHost[(l * D + o) * D + i] = w[(l * D + i) * D + o];
    // b0 = B[k0+t][n0+g] = Wt[k][n], b1 = Wt[k+4][n]
    std::vector<uint4> frag = tf32Fragments(2, D, [&](int l, int k, int nn) { return w[(l * D + k) * D + nn]; });
    cudaMalloc(&in, h.size() * 4);
    cudaMalloc(&wt, w.size() * 4);
    cudaMalloc(&wn, w.size() * 4);
    cudaMalloc(&dotv, D * 4);
    cudaMalloc(&wf, frag.size() * 16);
    cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(wt, w.data(), w.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(wn, wnHost.data(), wnHost.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dotv, dv.data(), D * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(wf, frag.data(), frag.size() * 16, cudaMemcpyHostToDevice);
    std::vector<float> z(2 * D), one(2 * D, 1.f);
    for (auto &v : z) v = (rand() % 2001 - 1000) / 10000.f;
    cudaMemcpyToSymbol(cB, z.data(), 2 * D * 4);
    cudaMemcpyToSymbol(cBe, z.data(), 2 * D * 4);
    cudaMemcpyToSymbol(cG, one.data(), 2 * D * 4);
  }

  // The best of `reps` launches of launch(rows) (after one warm-up),
  // printed as `name`.
  template <class Launch>
  void time(const char *name, Launch launch, int rows, int reps) const {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    launch(rows);
    cudaDeviceSynchronize();
    float best = 1e9;
    for (int rep = 0; rep < reps; ++rep) {
      cudaEventRecord(a);
      launch(rows);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      best = fminf(best, ms);
    }
    printf("%-13s rows %8d  %8.1f us  %.3f ns/row  err=%s\n", name, rows, best * 1e3, best * 1e6 / rows,
           cudaGetErrorString(cudaGetLastError()));
  }

  // The largest difference of `out` from `ref` (n rows each, on the GPU).
  void compare(const char *name, const float *ref, const float *out) const {
    std::vector<float> r(n), o(n);
    cudaMemcpy(r.data(), ref, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost);
    double mx = 0, mrel = 0;
    for (int i = 0; i < n; ++i) {
      double d = fabs(r[i] - o[i]);
      mx = fmax(mx, d);
      mrel = fmax(mrel, d / fmax(1e-3, fabs(r[i])));
    }
    printf("%-10s vs fp32: max |diff| %.3g  max rel %.3g  (row 777: %g %g)\n", name, mx, mrel, r[777], o[777]);
  }
};
