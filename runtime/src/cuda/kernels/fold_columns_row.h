//===- fold_columns_row.h - fold_columns a row at a time, host -*- C++ -*-===//
//
// The host's way through the plan prologue's fold_columns (PlanBinding.cpp's
// runPlanPrologue, HostPolicy's folded tables): one row of the output at a
// time, several sums interleaved. Each sum is the element function of
// kernels/prologue_ops.h (what the device prologue runs), the same
// operations in the same order, so the bits are the same; one sum alone is a
// chain of dependent double additions, and an element at a time the host
// folded a training loop's weights in about 1 ms a call (issue 28). Host
// only, here because host/ and cuda/ both use it (the layer below both):
// never embedded, so prologue_ops.h, pasted into the device prologue's NVRTC
// text, and that text's kernel-cache key stay as they are.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_FOLD_COLUMNS_ROW_H
#define PROOFC_FOLD_COLUMNS_ROW_H

#include "prologue_ops.h"

namespace proofc {
namespace prologue {

/// out[j] = foldColumnsValue(x, weight + j * in, cols, bias ? bias[j] : 0)
/// for j < n: row r of fold_columns for x = table + r * cols and weight
/// offset to the fold's first column.
inline void foldColumnsRow(const float *x, const float *weight,
                           const float *bias, long long n, long long in,
                           long long cols, float *out) {
  constexpr long long kLanes = 8;
  long long j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    double acc[kLanes];
    const float *w[kLanes];
    for (long long k = 0; k < kLanes; ++k) {
      acc[k] = bias ? static_cast<double>(bias[j + k]) : 0.0;
      w[k] = weight + (j + k) * in;
    }
    for (long long i = 0; i < cols; ++i)
      for (long long k = 0; k < kLanes; ++k)
        acc[k] = mulAdd(acc[k], w[k][i], x[i]);
    for (long long k = 0; k < kLanes; ++k)
      out[j + k] = toFloat(acc[k]);
  }
  for (; j < n; ++j)
    out[j] = foldColumnsValue(x, weight + j * in, cols,
                              bias ? static_cast<double>(bias[j]) : 0.0);
}

} // namespace prologue
} // namespace proofc

#endif // PROOFC_FOLD_COLUMNS_ROW_H
