//===- FuzzSafetensors.cpp - libFuzzer target for the safetensors reader --===//
//
// The input is a whole .safetensors file. A rejected file must be a
// proofc::Error naming it; an accepted one must hold tensors whose data
// matches their shape, and must survive writeSafetensors + readSafetensors
// unchanged (bit for bit: NaN payloads and -0 included), metadata included.
//
//===----------------------------------------------------------------------===//
#include "FuzzUtil.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/Safetensors.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace proofc;
using proofc::fuzz::ScratchDir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  TensorMap tensors;
  SafetensorsMetadata metadata;
  try {
    tensors = parseSafetensors(bytes, "fuzz.safetensors", &metadata);
  } catch (const Error &e) {
    FUZZ_CHECK(std::strncmp(e.what(), "fuzz.safetensors: ", 18) == 0,
               "message does not name the file: %s", e.what());
    proofc::fuzz::checkMessage(e.what());
    return 0;
  }
  for (const auto &[name, tensor] : tensors) {
    FUZZ_CHECK(name != "__metadata__", "metadata parsed as a tensor");
    int64_t numel = 1;
    for (int64_t dim : tensor.shape) {
      FUZZ_CHECK(dim >= 0, "tensor '%s' has a negative dimension",
                 name.c_str());
      numel *= dim;
    }
    FUZZ_CHECK(static_cast<size_t>(numel) == tensor.data.size(),
               "tensor '%s' has %zu values for %lld elements", name.c_str(),
               tensor.data.size(), static_cast<long long>(numel));
  }

  std::string path = ScratchDir::get().file("w.safetensors");
  writeSafetensors(path, tensors, metadata);
  SafetensorsMetadata metadataBack;
  TensorMap back = readSafetensors(path, &metadataBack);
  FUZZ_CHECK(metadataBack == metadata, "round trip changed the metadata");
  FUZZ_CHECK(back.size() == tensors.size(), "round trip: %zu tensors for %zu",
             back.size(), tensors.size());
  for (const auto &[name, tensor] : tensors) {
    auto it = back.find(name);
    FUZZ_CHECK(it != back.end(), "round trip lost tensor '%s'", name.c_str());
    FUZZ_CHECK(it->second.shape == tensor.shape,
               "round trip changed the shape of '%s'", name.c_str());
    FUZZ_CHECK(it->second.data.size() == tensor.data.size() &&
                   (tensor.data.empty() ||
                    std::memcmp(it->second.data.data(), tensor.data.data(),
                                tensor.data.size() * sizeof(float)) == 0),
               "round trip changed the data of '%s'", name.c_str());
  }
  return 0;
}
