//===- Safetensors.cpp - Strict float32 safetensors reader and writer -----===//
//
// Layout: u64 little-endian header size N, N bytes of JSON
//   {"<name>": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]}, ...,
//    "__metadata__": {...}}
// then the data; offsets are relative to the first byte after the header.
// "__metadata__" (optional) maps strings to strings; it is kept for the
// caller (the weights contract checks proofc's keys, Weights.cpp).
// Every check names the file and, where there is one, the tensor.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Safetensors.h"

#include "data/MemoryBudget.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/MessageText.h"
#include "support/StrictJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fmt/ranges.h>
#include <limits>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors data is little-endian; this reader assumes a matching host"
#endif

namespace proofc {

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

namespace {

using json = nlohmann::json;

constexpr const char *kMetadataKey = "__metadata__";
constexpr uint64_t kMaxHeaderBytes = kMaxSafetensorsHeaderBytes;
constexpr size_t kMaxTensors = kMaxSafetensorsTensors;

uint64_t readU64LE(const char *p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// A non-negative JSON integer, or an error naming `what`.
uint64_t asCount(const json &value, const std::string &path,
                 const std::string &name, const char *what) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>();
  if (value.is_number_integer())
    fail("{}: tensor '{}': negative {} {}", path, escapeForMessage(name), what,
         value.get<int64_t>());
  fail("{}: tensor '{}': {} must be an integer, found {}", path,
       escapeForMessage(name), what, escapeForMessage(value.dump()));
}

/// The first non-finite value of `t` as "nan", "inf" or "-inf" with its
/// index (row-major, one coordinate per dimension), or "" when all are
/// finite. One pass over the exponent bits: NaN and ±Inf are the floats whose
/// exponent is all ones (and no -ffast-math can fold the test away).
std::string firstNonFinite(const Tensor &t) {
  const float *values = t.data.data();
  for (size_t i = 0; i < t.data.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u)
      continue;
    const char *what = (bits & 0x007fffffu) ? "nan"
                       : (bits >> 31)       ? "-inf"
                                            : "inf";
    std::vector<int64_t> index(t.shape.size());
    uint64_t rest = i;
    for (size_t k = t.shape.size(); k-- > 0;) {
      uint64_t dim = static_cast<uint64_t>(t.shape[k]);
      index[k] = static_cast<int64_t>(rest % dim);
      rest /= dim;
    }
    return fmt::format("{} at index [{}]", what, fmt::join(index, ", "));
  }
  return "";
}

struct Entry {
  std::string name;
  uint64_t begin, end;
};

} // namespace

TensorMap parseSafetensors(std::string_view bytes, const std::string &path,
                           SafetensorsMetadata *metadata) {
  if (metadata)
    metadata->clear(); // a file without "__metadata__" has none
  if (bytes.size() < 8)
    fail("{}: file is {} bytes, shorter than the 8-byte header size", path,
         bytes.size());
  uint64_t headerSize = readU64LE(bytes.data());
  if (headerSize > bytes.size() - 8)
    fail("{}: header size {} runs past the end of the file ({} bytes)", path,
         headerSize, bytes.size());
  if (headerSize > kMaxHeaderBytes)
    fail("{}: header size {} is larger than {} bytes (the limit)", path,
         headerSize, kMaxHeaderBytes);
  std::string_view headerText = bytes.substr(8, headerSize);
  std::string_view data = bytes.substr(8 + headerSize);
  // nlohmann's lexer takes a NUL byte for the end of the input: the rest of
  // the header would be dropped without a word.
  if (size_t nul = headerText.find('\0'); nul != std::string_view::npos)
    fail("{}: header is not valid JSON: NUL byte at offset {}", path, 8 + nul);

  // nlohmann keeps the last of duplicate keys silently, and its callback
  // parser is quadratic in the entries: parseStrictJson is neither. The
  // entry limit stops a huge header after kMaxTensors entries, not at its end.
  StrictJsonResult parsed;
  try {
    parsed = parseStrictJson(headerText, kMaxTensors + 1); // + __metadata__
  } catch (const json::exception &e) {
    fail("{}: header is not valid JSON: {}", path,
         escapeForMessage(e.what(), kJsonErrorEchoBytes));
  }
  if (parsed.tooManyRootKeys)
    fail("{}: the header lists more than {} tensors (the limit)", path,
         kMaxTensors);
  if (parsed.duplicate) {
    if (parsed.duplicatePath.empty())
      fail("{}: tensor '{}' is listed twice in the header", path,
           escapeForMessage(parsed.duplicateKey));
    const JsonPathItem &top = parsed.duplicatePath.front();
    if (top.key == kMetadataKey)
      fail("{}: '{}': duplicate key '{}'", path, kMetadataKey,
           escapeForMessage(parsed.duplicateKey));
    fail("{}: tensor '{}': duplicate key '{}'", path, escapeForMessage(top.key),
         escapeForMessage(parsed.duplicateKey));
  }
  const json &header = parsed.value;
  if (!header.is_object())
    fail("{}: header is not a JSON object", path);

  TensorMap tensors;
  std::vector<Entry> entries;
  for (const auto &item : header.items()) {
    const std::string &name = item.key();
    const json &info = item.value();
    if (name == kMetadataKey) {
      if (!info.is_object())
        fail("{}: '{}' is not a JSON object", path, kMetadataKey);
      // The format: a map of strings to strings. A number or a nested
      // object is not "metadata we ignore": refuse it by key.
      for (const auto &field : info.items())
        if (!field.value().is_string())
          fail("{}: '{}': value of '{}' is not a string (found {})", path,
               kMetadataKey, escapeForMessage(field.key()),
               escapeForMessage(field.value().dump(), kJsonErrorEchoBytes));
      if (metadata) {
        metadata->clear();
        for (const auto &field : info.items())
          metadata->emplace(field.key(), field.value().get<std::string>());
      }
      continue;
    }
    if (!info.is_object())
      fail("{}: tensor '{}': entry is not a JSON object", path,
           escapeForMessage(name));
    for (const auto &field : info.items())
      if (field.key() != "dtype" && field.key() != "shape" &&
          field.key() != "data_offsets")
        fail("{}: tensor '{}': unexpected field '{}'", path,
             escapeForMessage(name), escapeForMessage(field.key()));
    if (!info.contains("dtype") || !info["dtype"].is_string())
      fail("{}: tensor '{}': missing or non-string 'dtype'", path,
           escapeForMessage(name));
    std::string dtype = info["dtype"].get<std::string>();
    if (dtype != "F32")
      fail("{}: tensor '{}' has dtype {}, only F32 is supported", path,
           escapeForMessage(name), escapeForMessage(dtype));
    if (!info.contains("shape") || !info["shape"].is_array())
      fail("{}: tensor '{}': missing or non-array 'shape'", path,
           escapeForMessage(name));
    Tensor tensor;
    uint64_t numel = 1;
    bool overflow = false;
    for (const json &dim : info["shape"]) {
      uint64_t n = asCount(dim, path, name, "dimension");
      if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        overflow = true;
      else if (n != 0 && numel > std::numeric_limits<uint64_t>::max() / 4 / n)
        overflow = true;
      else
        numel *= n;
      tensor.shape.push_back(static_cast<int64_t>(n));
    }
    if (overflow)
      fail("{}: tensor '{}': shape is too large", path, escapeForMessage(name));
    const json &offsets = info.value("data_offsets", json());
    if (!offsets.is_array() || offsets.size() != 2)
      fail("{}: tensor '{}': 'data_offsets' must be an array [begin, end]",
           path, escapeForMessage(name));
    uint64_t begin = asCount(offsets[0], path, name, "data offset");
    uint64_t end = asCount(offsets[1], path, name, "data offset");
    if (begin > end)
      fail("{}: tensor '{}': data_offsets [{}, {}] has begin > end", path,
           escapeForMessage(name), begin, end);
    if (end > data.size())
      fail("{}: tensor '{}': data_offsets [{}, {}] run past the end of the "
           "data ({} bytes)",
           path, escapeForMessage(name), begin, end, data.size());
    if (end - begin != numel * 4)
      fail("{}: tensor '{}': data is {} bytes, but shape needs {} x 4 bytes",
           path, escapeForMessage(name), end - begin, numel);
    tensor.data.resize(numel);
    if (numel > 0)
      std::memcpy(tensor.data.data(), data.data() + begin, numel * 4);
    // A NaN or an infinity in the weights makes every score it reaches NaN,
    // and NaN compares false: ranks would be silently wrong.
    if (std::string bad = firstNonFinite(tensor); !bad.empty())
      fail("{}: tensor '{}': non-finite value {}", path, escapeForMessage(name),
           bad);
    entries.push_back({name, begin, end});
    tensors.emplace(name, std::move(tensor));
  }

  // Safetensors data regions never share bytes; gaps are tolerated.
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  const Entry *previous = nullptr;
  for (const Entry &e : entries) {
    if (e.begin == e.end)
      continue;
    if (previous && e.begin < previous->end)
      fail("{}: tensors '{}' and '{}' overlap (data_offsets [{}, {}] and "
           "[{}, {}])",
           path, escapeForMessage(previous->name), escapeForMessage(e.name),
           previous->begin, previous->end, e.begin, e.end);
    previous = &e;
  }
  return tensors;
}

TensorMap readSafetensors(const std::string &path,
                          SafetensorsMetadata *metadata) {
  return parseSafetensors(readFile(path), path, metadata);
}

void writeSafetensors(const std::string &path, const TensorMap &tensors,
                      const SafetensorsMetadata &metadata) {
  json header = json::object();
  if (!metadata.empty())
    header[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (const auto &[name, tensor] : tensors) {
    if (name == kMetadataKey)
      fail("{}: cannot write a tensor named '{}'", path,
           escapeForMessage(name));
    for (int64_t dim : tensor.shape)
      if (dim < 0)
        fail("{}: tensor '{}' has a negative dimension {}", path,
             escapeForMessage(name), dim);
    if (tensor.numel() != static_cast<int64_t>(tensor.data.size()))
      fail("{}: tensor '{}' has {} values, but its shape needs {}", path,
           escapeForMessage(name), tensor.data.size(), tensor.numel());
    uint64_t size = tensor.data.size() * sizeof(float);
    header[name] = {{"dtype", "F32"},
                    {"shape", tensor.shape},
                    {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  // std::map keys: the JSON object lists the tensors sorted by name, the same
  // order as their data.
  std::string headerText;
  try {
    headerText = header.dump();
  } catch (const json::type_error &) {
    // nlohmann refuses to write invalid UTF-8, which the reader would refuse.
    fail("{}: a tensor name or a metadata string is not valid UTF-8", path);
  }
  headerText.append((8 - headerText.size() % 8) % 8, ' ');

  // The file is built whole in memory before the atomic write.
  checkMemoryFits(saturatingAdd(8 + headerText.size(), offset),
                  fmt::format("{}: writing the weights", path),
                  fmt::format("{} bytes of tensor data", formatCount(offset)));
  std::string bytes;
  bytes.reserve(8 + headerText.size() + offset);
  uint64_t headerSize = headerText.size();
  char sizeBytes[8];
  std::memcpy(sizeBytes, &headerSize, 8);
  bytes.append(sizeBytes, 8);
  bytes += headerText;
  for (const auto &entry : tensors) {
    const std::vector<float> &values = entry.second.data;
    bytes.append(reinterpret_cast<const char *>(values.data()),
                 values.size() * sizeof(float));
  }
  writeAtomically(path, bytes);
}

} // namespace proofc
