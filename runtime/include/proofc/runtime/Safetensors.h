//===- Safetensors.h - Read and write float32 safetensors files -*- C++ -*-===//
#ifndef PROOFC_RUNTIME_SAFETENSORS_H
#define PROOFC_RUNTIME_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data; ///< row-major
  int64_t numel() const;
};

/// Name -> tensor. Only F32 tensors are accepted; every malformed header,
/// offset or size, and every NaN or infinite value, is a proofc::Error naming
/// the file (and tensor, and the value's index).
using TensorMap = std::map<std::string, Tensor>;

/// Largest header read: the safetensors format's own limit (100 MB), far
/// past a real one (V10 on fb15k-237: 9 tensors, under 1 kB).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;
/// Most tensors a file may list (a program needs at most 5 per encoder op):
/// the header parse stops at the first entry past it.
inline constexpr size_t kMaxSafetensorsTensors = 100'000;

TensorMap readSafetensors(const std::string &path);
TensorMap parseSafetensors(std::string_view bytes, const std::string &path);
/// Writes atomically (temporary file + rename).
void writeSafetensors(const std::string &path, const TensorMap &tensors);

} // namespace proofc

#endif // PROOFC_RUNTIME_SAFETENSORS_H
