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
/// offset or size is a proofc::Error naming the file (and tensor).
using TensorMap = std::map<std::string, Tensor>;

TensorMap readSafetensors(const std::string &path);
TensorMap parseSafetensors(std::string_view bytes, const std::string &path);
/// Writes atomically (temporary file + rename).
void writeSafetensors(const std::string &path, const TensorMap &tensors);

} // namespace proofc

#endif // PROOFC_RUNTIME_SAFETENSORS_H
