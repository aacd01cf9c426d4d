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
#include "tf32_layers.cuh"

int main() {
  const int n = 4150000;
  LayerStudy study(n);
  float *o1, *o2;
  cudaMalloc(&o1, n * 4);
  cudaMalloc(&o2, n * 4);
  for (int rows : {n, 256 * 61}) {
    study.time("fp32-q16t4", [&](int m) { mlpQ16<4><<<(m + 31) / 32, 128>>>(study.in, study.wt, study.dotv, o1, m); }, rows, 5);
    study.time("3xtf32", [&](int m) { mlpTF32<3><<<(m + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, m); }, rows, 5);
    study.time("2xtf32", [&](int m) { mlpTF32<2><<<(m + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, m); }, rows, 5);
    study.time("1xtf32", [&](int m) { mlpTF32<1><<<(m + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, m); }, rows, 5);
  }
  mlpQ16<4><<<(n + 31) / 32, 128>>>(study.in, study.wt, study.dotv, o1, n);
  mlpTF32<1><<<(n + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, n);
  study.compare("1xtf32", o1, o2);
  mlpTF32<2><<<(n + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, n);
  study.compare("2xtf32", o1, o2);
  mlpTF32<3><<<(n + 63) / 64, 128>>>(study.in, study.wf, study.dotv, o2, n);
  study.compare("3xtf32", o1, o2);
}
