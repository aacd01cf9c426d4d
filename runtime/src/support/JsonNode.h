//===- JsonNode.h - JSON from a file, read with a path for errors -*- C++
//-*-===//
//
// Every JSON the runtime and its tools read back (bundles, part and proofs
// part headers, checkpoint manifests, merged reports) comes from a file a
// user can edit or damage. nlohmann's `get<T>()` trusts the value: a float
// read as an integer is undefined behaviour past the integer's range (the
// fuzzer found a part header whose 9.2e19 did that), an unsigned read as a
// signed wraps, a missing key throws a message without the file. JsonNode
// is the one reader: a value together with the file it came from and its
// path ("plan.launches[2].args[3]"), whose accessors check the JSON type
// and the range before converting and fail with
//   "<where>: <path>: <what>"
// through proofc::fail. It only reads; it never owns the DOM.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SUPPORT_JSONNODE_H
#define PROOFC_RUNTIME_SUPPORT_JSONNODE_H

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

namespace proofc {

class JsonNode {
public:
  /// Longest name str() accepts (see there).
  static constexpr size_t kMaxNameBytes = 256;

  /// `value` at `path` ("" for the root) of the file `where` (a path, or a
  /// path and a few words: "run.part: the part header").
  JsonNode(const nlohmann::json &value, std::string path, std::string where);

  /// Fails with "<where>: <path>: <what>".
  [[noreturn]] void error(const std::string &what) const;

  const std::string &path() const { return path_; }
  const nlohmann::json &json() const { return value_; }

  /// An object whose keys must be exactly `keys` plus any of `optional`.
  void expectObject(std::initializer_list<const char *> keys,
                    std::initializer_list<const char *> optional = {}) const;
  bool isObject() const { return value_.is_object(); }
  bool has(const char *key) const {
    return value_.is_object() && value_.contains(key);
  }
  /// The member `key`: an error when this is not an object or has no such
  /// member.
  JsonNode operator[](const char *key) const;

  /// A string, as it is (kernel source, versions, paths, digests).
  std::string text() const;
  std::string nonEmptyText() const;
  /// A name (of a module, buffer, tensor...): printable on one line as it
  /// is (escapeForMessage leaves it unchanged), at most kMaxNameBytes.
  std::string str() const;
  std::string nonEmptyStr() const;

  /// An integer in [lo, hi]; a float, even an integral one, is not.
  int64_t i64(int64_t lo = std::numeric_limits<int64_t>::min(),
              int64_t hi = std::numeric_limits<int64_t>::max()) const;
  int32_t i32(int64_t lo = std::numeric_limits<int32_t>::min(),
              int64_t hi = std::numeric_limits<int32_t>::max()) const;
  /// A non-negative integer up to 2^64 - 1 (seeds).
  uint64_t u64() const;
  /// Any JSON number.
  double number() const;
  /// A number that a float holds (not rounded to inf on the way).
  float f32() const;
  /// A positive, finite float.
  float positiveF32() const;
  bool boolean() const;

  /// An array's items (of `size` items when given).
  std::vector<JsonNode> array() const;
  std::vector<JsonNode> array(size_t size) const;
  /// An array of integers in [lo, hi].
  std::vector<int64_t>
  i64s(int64_t lo = std::numeric_limits<int64_t>::min(),
       int64_t hi = std::numeric_limits<int64_t>::max()) const;

private:
  JsonNode child(const std::string &key) const;

  const nlohmann::json &value_;
  std::string path_;
  std::string where_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SUPPORT_JSONNODE_H
