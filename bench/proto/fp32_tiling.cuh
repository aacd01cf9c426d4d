// fp32_tiling.cuh - the FP32 reference both layout studies time against:
// the policy's two 64x64 layers (+ layer norms, relu and a dot with `dotv`)
// in the generated kernel's tiling, Q = 16 threads per row, each owning 4
// features of T rows, weights Wt [in][out] through L1, activations through
// the warp's shared rows.
#pragma once
#include <cuda_runtime.h>
#define D 64
__constant__ float cB[2][D], cG[2][D], cBe[2][D];

template <int T>
__global__ void __launch_bounds__(128) mlpQ16(const float *__restrict__ in, const float *__restrict__ gW, const float *__restrict__ dotv, float *out, int n) {
  __shared__ __align__(16) float act[4][2 * T][D];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, q = lane & 15, rg = lane >> 4;
  int base = (blockIdx.x * 4 + warp) * 2 * T + rg * T;
  float y[T][4], x[T][4];
#pragma unroll
  for (int t = 0; t < T; ++t) {
    int r = min(base + t, n - 1);
    float4 v = reinterpret_cast<const float4 *>(in + (size_t)r * D)[q];
    x[t][0]=v.x; x[t][1]=v.y; x[t][2]=v.z; x[t][3]=v.w;
  }
  for (int l = 0; l < 2; ++l) {
#pragma unroll
    for (int t = 0; t < T; ++t) *reinterpret_cast<float4 *>(&act[warp][rg * T + t][4 * q]) = make_float4(x[t][0], x[t][1], x[t][2], x[t][3]);
    __syncwarp();
#pragma unroll
    for (int t = 0; t < T; ++t) for (int c = 0; c < 4; ++c) y[t][c] = cB[l][4 * q + c];
    const float *W = gW + l * D * D; // Wt [in][out]
#pragma unroll 4
    for (int i = 0; i < D; i += 4) {
      float4 xs[T];
#pragma unroll
      for (int t = 0; t < T; ++t) xs[t] = *reinterpret_cast<const float4 *>(&act[warp][rg * T + t][i]);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float4 w = __ldg(reinterpret_cast<const float4 *>(W + (i + e) * D) + q);
#pragma unroll
        for (int t = 0; t < T; ++t) {
          float xv = e == 0 ? xs[t].x : e == 1 ? xs[t].y : e == 2 ? xs[t].z : xs[t].w;
          y[t][0] = fmaf(xv, w.x, y[t][0]); y[t][1] = fmaf(xv, w.y, y[t][1]);
          y[t][2] = fmaf(xv, w.z, y[t][2]); y[t][3] = fmaf(xv, w.w, y[t][3]);
        }
      }
    }
    __syncwarp();
#pragma unroll
    for (int t = 0; t < T; ++t) {
      float s = y[t][0] + y[t][1] + y[t][2] + y[t][3];
      for (int off = 8; off; off >>= 1) s += __shfl_xor_sync(~0u, s, off);
      float mean = s / D, v = 0;
      for (int c = 0; c < 4; ++c) { float d = y[t][c] - mean; v = fmaf(d, d, v); }
      for (int off = 8; off; off >>= 1) v += __shfl_xor_sync(~0u, v, off);
      float inv = 1.f / sqrtf(v / D + 1e-5f);
      for (int c = 0; c < 4; ++c) { float z = (y[t][c] - mean) * inv * cG[l][4*q+c] + cBe[l][4*q+c]; x[t][c] = z > 0 ? z : 0; }
    }
  }
#pragma unroll
  for (int t = 0; t < T; ++t) {
    float dot = 0;
    for (int c = 0; c < 4; ++c) dot = fmaf(x[t][c], dotv[4 * q + c], dot);
    for (int off = 8; off; off >>= 1) dot += __shfl_xor_sync(~0u, dot, off);
    if (q == 0 && base + t < n) out[base + t] = dot;
  }
}

