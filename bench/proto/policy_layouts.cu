// policy_layouts.cu - how fast can the policy's two 64x64 layers (+ layer
// norms, relu and the dot) run per row, in three thread layouts? The study
// behind docs/performance.md's "not built" row: one row per thread with the
// weights in constant memory ("const") or in shared memory ("shared"),
// against the Q=16 threads x T rows tiling the generated kernel uses
// ("q16t4", "q16t2"). Standalone; inputs are random rows.
//   nvcc -O3 -arch=sm_90 bench/proto/policy_layouts.cu -o /tmp/layouts && /tmp/layouts
// Prints ns per row for 4.15 M rows (full GPU) and for 15,616 rows (one
// B=256 step), and the largest difference between the layouts' outputs.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "fp32_tiling.cuh"
__constant__ float cW[2][D * D]; // [layer][i*D + o]  (Wt: in-major)

__device__ __forceinline__ void layerNormRelu(float *y, const float *g, const float *be) {
  float s = 0.f;
#pragma unroll
  for (int o = 0; o < D; ++o) s += y[o];
  float mean = s / D;
  float v = 0.f;
#pragma unroll
  for (int o = 0; o < D; ++o) { float t = y[o] - mean; v = fmaf(t, t, v); }
  float inv = 1.f / sqrtf(v / D + 1e-5f);
#pragma unroll
  for (int o = 0; o < D; ++o) { float t = (y[o] - mean) * inv * g[o] + be[o]; y[o] = t > 0.f ? t : 0.f; }
}

// Row r of `in` into x (16-byte loads).
__device__ __forceinline__ void loadRow(const float *__restrict__ in, int r, float *x) {
  const float4 *row = reinterpret_cast<const float4 *>(in + (size_t)r * D);
#pragma unroll
  for (int i = 0; i < D / 4; ++i) { float4 v = row[i]; x[4*i]=v.x; x[4*i+1]=v.y; x[4*i+2]=v.z; x[4*i+3]=v.w; }
}

// Both row-per-thread variants: the two layers on row r (bias, the
// layer's product by `multiply(l, x, y)`, LayerNorm, relu), then the dot with
// `dotv`; they differ only in where the weights live.
template <class Multiply>
__device__ __forceinline__ void mlpRow(const float *__restrict__ in, int r,
                                       float *out, Multiply multiply,
                                       const float *dotv) {
  float x[D], y[D];
  loadRow(in, r, x);
#pragma unroll
  for (int l = 0; l < 2; ++l) {
#pragma unroll
    for (int o = 0; o < D; ++o) y[o] = cB[l][o];
    multiply(l, x, y);
    layerNormRelu(y, cG[l], cBe[l]);
#pragma unroll
    for (int o = 0; o < D; ++o) x[o] = y[o];
  }
  float dot = 0.f;
#pragma unroll
  for (int o = 0; o < D; ++o) dot = fmaf(x[o], dotv[o], dot);
  out[r] = dot;
}

// Variant C: row per thread, weights in __constant__, fully unrolled.
struct ConstantWeights {
  __device__ __forceinline__ void operator()(int l, const float *x, float *y) const {
#pragma unroll
    for (int i = 0; i < D; ++i)
#pragma unroll
      for (int o = 0; o < D; ++o) y[o] = fmaf(x[i], cW[l][i * D + o], y[o]);
  }
};
__global__ void __launch_bounds__(128) mlpConst(const float *__restrict__ in, float *out, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  mlpRow(in, r, out, ConstantWeights{}, cW[0]);
}

// Variant S: row per thread, weights in shared memory (broadcast LDS.128), fully unrolled.
struct SharedWeights {
  const float (*sW)[D * D];
  __device__ __forceinline__ void operator()(int l, const float *x, float *y) const {
#pragma unroll
    for (int i = 0; i < D; ++i) {
      const float4 *w = reinterpret_cast<const float4 *>(&sW[l][i * D]);
#pragma unroll
      for (int o4 = 0; o4 < D / 4; ++o4) {
        float4 wv = w[o4];
        y[4*o4] = fmaf(x[i], wv.x, y[4*o4]); y[4*o4+1] = fmaf(x[i], wv.y, y[4*o4+1]);
        y[4*o4+2] = fmaf(x[i], wv.z, y[4*o4+2]); y[4*o4+3] = fmaf(x[i], wv.w, y[4*o4+3]);
      }
    }
  }
};
__global__ void __launch_bounds__(128) mlpShared(const float *__restrict__ in, const float *__restrict__ gW, float *out, int n) {
  __shared__ __align__(16) float sW[2][D * D];
  for (int i = threadIdx.x; i < 2 * D * D / 4; i += blockDim.x)
    reinterpret_cast<float4 *>(&sW[0][0])[i] = reinterpret_cast<const float4 *>(gW)[i];
  __syncthreads();
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  mlpRow(in, r, out, SharedWeights{sW}, sW[0]);
}

int main(int argc, char **argv) {
  int n = 16600000 / 4; // rows per launch
  std::vector<float> h((size_t)n * D), w(2 * D * D), p(D);
  for (auto &v : h) v = (rand() % 2001 - 1000) / 1000.f;
  for (auto &v : w) v = (rand() % 2001 - 1000) / 8000.f;
  for (auto &v : p) v = 1.f;
  float *dIn, *dW, *dOut[3];
  cudaMalloc(&dIn, h.size() * 4); cudaMalloc(&dW, w.size() * 4);
  for (auto &o : dOut) cudaMalloc(&o, (size_t)n * 4);
  cudaMemcpy(dIn, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dW, w.data(), w.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(cW, w.data(), w.size() * 4);
  std::vector<float> z(2 * D, 0.f), one(2 * D, 1.f);
  cudaMemcpyToSymbol(cB, z.data(), 2 * D * 4); cudaMemcpyToSymbol(cBe, z.data(), 2 * D * 4); cudaMemcpyToSymbol(cG, one.data(), 2 * D * 4);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto time = [&](const char *name, auto launch, int rowsPerBlock, int nn) {
    launch(nn); cudaDeviceSynchronize();
    float best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(a); launch(nn); cudaEventRecord(b); cudaEventSynchronize(b);
      float ms; cudaEventElapsedTime(&ms, a, b); best = ms < best ? ms : best;
    }
    printf("%-10s rows %9d  %8.3f ms  %.3f ns/row  (x4 = 16.6M rows: %.2f ms) err=%s\n", name, nn, best, best * 1e6 / nn, best * 4 * n / nn, cudaGetErrorString(cudaGetLastError()));
  };
  for (int nn : {n, 256 * 61}) {
    time("const", [&](int m) { mlpConst<<<(m + 127) / 128, 128>>>(dIn, dOut[0], m); }, 128, nn);
    time("shared", [&](int m) { mlpShared<<<(m + 127) / 128, 128>>>(dIn, dW, dOut[1], m); }, 128, nn);
    time("q16t4", [&](int m) { mlpQ16<4><<<(m + 31) / 32, 128>>>(dIn, dW, dW, dOut[2], m); }, 32, nn);
    time("q16t2", [&](int m) { mlpQ16<2><<<(m + 15) / 16, 128>>>(dIn, dW, dW, dOut[2], m); }, 16, nn);
  }
  // cross-check const vs shared vs q16
  std::vector<float> o0(n), o1(n), o2(n);
  mlpConst<<<(n + 127) / 128, 128>>>(dIn, dOut[0], n);
  mlpShared<<<(n + 127) / 128, 128>>>(dIn, dW, dOut[1], n);
  mlpQ16<4><<<(n + 31) / 32, 128>>>(dIn, dW, dW, dOut[2], n);
  cudaMemcpy(o0.data(), dOut[0], n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(o1.data(), dOut[1], n * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(o2.data(), dOut[2], n * 4, cudaMemcpyDeviceToHost);
  double m01 = 0, m02 = 0;
  for (int i = 0; i < n; ++i) { m01 = fmax(m01, fabs(o0[i] - o1[i])); m02 = fmax(m02, fabs(o0[i] - o2[i])); }
  printf("max|const-shared| %g  max|const-q16| %g  sample %g\n", m01, m02, o0[12345]);
}
