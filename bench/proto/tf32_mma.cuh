// tf32_mma.cuh - the 3xTF32 pieces the design studies share with the
// generated policy kernel (docs/lowering.md, "Linear, tensor-core form"):
// the TF32 split of an operand, one mma.sync m16n8k8, the weights' split
// into B fragments on the host, and a layer norm over the accumulator
// ("C") layout, where lane 4g + t holds columns 8nt + 2t + {0, 1} of rows g
// (c[nt][0..1]) and g + 8 (c[nt][2..3]).
#pragma once
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

__device__ __forceinline__ unsigned tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ void mma(float *c, const unsigned *a, unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// k-step ks's A fragment of the warp's 16 rows (row-major, stride P
// floats): rows g and g + 8, columns 8ks + t and 8ks + t + 4, split into TF32
// high and low parts.
template <int P>
__device__ __forceinline__ void splitA(const float *rows, int ks, unsigned (&hi)[4], unsigned (&lo)[4]) {
  const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
  const float a[4] = {rows[g * P + 8 * ks + t], rows[(g + 8) * P + 8 * ks + t], rows[g * P + 8 * ks + t + 4],
                      rows[(g + 8) * P + 8 * ks + t + 4]};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    hi[e] = tf32(a[e]);
    lo[e] = tf32(a[e] - __uint_as_float(hi[e]));
  }
}

// cvt.rna on the host: round to nearest, ties away, on the 13 dropped bits.
static inline unsigned tf32host(float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  return (u + 0x1000u) & 0xffffe000u;
}

// The B fragments of `layers` d x d layers, [l][ks][nt][lane] uint4
// {b0 high, b1 high, b0 low, b1 low}: b0 = weight(l, 8ks + t, 8nt + g),
// b1 = weight(l, 8ks + t + 4, 8nt + g) for lane 4g + t, where weight(l, k, n)
// multiplies input k into output n.
template <class Weight>
std::vector<uint4> tf32Fragments(int layers, int d, Weight weight) {
  std::vector<uint4> wf((size_t)layers * (d / 8) * (d / 8) * 32);
  for (int l = 0; l < layers; ++l)
    for (int ks = 0; ks < d / 8; ++ks)
      for (int nt = 0; nt < d / 8; ++nt)
        for (int lane = 0; lane < 32; ++lane) {
          int g = lane >> 2, t = lane & 3;
          float v0 = weight(l, 8 * ks + t, 8 * nt + g), v1 = weight(l, 8 * ks + t + 4, 8 * nt + g);
          unsigned b0 = tf32host(v0), b1 = tf32host(v1);
          float f0, f1;
          memcpy(&f0, &b0, 4);
          memcpy(&f1, &b1, 4);
          wf[(((size_t)l * (d / 8) + ks) * (d / 8) + nt) * 32 + lane] = make_uint4(b0, b1, tf32host(v0 - f0), tf32host(v1 - f1));
        }
  return wf;
}

// The accumulators set to the bias (NT * 8 columns) in the C layout.
template <int NT>
__device__ __forceinline__ void initBiasC(float (&c)[NT][4], const float *bias) {
  const int t = threadIdx.x & 3;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    float b0 = bias[8 * nt + 2 * t], b1 = bias[8 * nt + 2 * t + 1];
    c[nt][0] = b0;
    c[nt][1] = b1;
    c[nt][2] = b0;
    c[nt][3] = b1;
  }
}

// The warp's 16 rows from the C layout into row-major rows (stride P
// floats), the next layer's A operand.
template <int NT, int P>
__device__ __forceinline__ void storeRowsC(const float (&c)[NT][4], float *rows) {
  const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    *reinterpret_cast<float2 *>(&rows[g * P + 8 * nt + 2 * t]) = make_float2(c[nt][0], c[nt][1]);
    *reinterpret_cast<float2 *>(&rows[(g + 8) * P + 8 * nt + 2 * t]) = make_float2(c[nt][2], c[nt][3]);
  }
}

// The dot of row g + 8h (C layout, NT * 8 columns) with `v`, summed over
// the row's four lanes (each of them gets it).
template <int NT>
__device__ __forceinline__ float rowDotC(const float (&c)[NT][4], const float *v, int h) {
  const int t = threadIdx.x & 3;
  float dot = 0;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
    dot = fmaf(c[nt][2 * h], v[8 * nt + 2 * t], dot);
    dot = fmaf(c[nt][2 * h + 1], v[8 * nt + 2 * t + 1], dot);
  }
  dot += __shfl_xor_sync(~0u, dot, 1);
  dot += __shfl_xor_sync(~0u, dot, 2);
  return dot;
}

// Layer norm (eps 1e-5) of the warp's 16 rows of NT * 8 columns in the C
// layout, relu after it when `relu`; `gamma`, `beta` of NT * 8 columns.
template <int NT>
__device__ __forceinline__ void layerNormC(float (&c)[NT][4], const float *gamma, const float *beta, bool relu) {
  const int t = threadIdx.x & 3;
  constexpr float width = NT * 8;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float s = 0;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) s += c[nt][2 * h] + c[nt][2 * h + 1];
    s += __shfl_xor_sync(~0u, s, 1);
    s += __shfl_xor_sync(~0u, s, 2);
    float mean = s / width, v = 0;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      float d0 = c[nt][2 * h] - mean, d1 = c[nt][2 * h + 1] - mean;
      v = fmaf(d0, d0, v);
      v = fmaf(d1, d1, v);
    }
    v += __shfl_xor_sync(~0u, v, 1);
    v += __shfl_xor_sync(~0u, v, 2);
    float inv = 1.f / sqrtf(v / width + 1e-5f);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        int col = 8 * nt + 2 * t + e;
        float z = (c[nt][2 * h + e] - mean) * inv * gamma[col] + beta[col];
        c[nt][2 * h + e] = relu ? fmaxf(z, 0.f) : z;
      }
  }
}
