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

/// The header's "__metadata__": string keys to string values, the only form
/// the safetensors format allows (anything else is an error naming the key);
/// empty when the file has none. What proofc writes there and checks is the
/// weights contract (Evaluation.h, docs/weights.md).
using SafetensorsMetadata = std::map<std::string, std::string>;

/// Read and parse a file; when `metadata` is non-null it receives the
/// file's "__metadata__" (which is checked either way).
TensorMap readSafetensors(const std::string &path,
                          SafetensorsMetadata *metadata = nullptr);
TensorMap parseSafetensors(std::string_view bytes, const std::string &path,
                           SafetensorsMetadata *metadata = nullptr);
/// Writes atomically (temporary file + rename); "__metadata__" is written
/// only when `metadata` is not empty.
void writeSafetensors(const std::string &path, const TensorMap &tensors,
                      const SafetensorsMetadata &metadata = {});

} // namespace proofc

#endif // PROOFC_RUNTIME_SAFETENSORS_H
