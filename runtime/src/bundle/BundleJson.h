//===- BundleJson.h - a bundle's JSON, with paths for errors ----*- C++ -*-===//
//
// What the bundle's reader (BundleReader.cpp), writer (BundleWriter.cpp)
// and verifier (BundleVerifier.cpp) share: the schema tag, the encoder
// ops' names, and Node, a JSON value together with its path
// ("plan.launches[2].args[3]"), whose accessors check the JSON type and
// fail naming the file and the path. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SRC_BUNDLEJSON_H
#define PROOFC_RUNTIME_SRC_BUNDLEJSON_H

#include "proofc/runtime/Bundle.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace proofc::bundle_json {

using nlohmann::json;

/// The "schema" field of every bundle.
constexpr const char *kSchema = "proofc-bundle";

/// The bundle's name of an encoder op ("atom_embed", ...), and back.
const char *opKindName(PolicyOpKind kind);
std::optional<PolicyOpKind> opKindNamed(const std::string &name);

/// Longest name a bundle may hold (see Node::str).
constexpr size_t kMaxNameBytes = 256;

class Node {
public:
  Node(const json &value, std::string path, const std::string &file)
      : value_(value), path_(std::move(path)), file_(file) {}

  [[noreturn]] void error(const std::string &what) const {
    fail("{}: {}: {}", file_, path_.empty() ? "(top level)" : path_, what);
  }

  const std::string &path() const { return path_; }

  /// An object whose keys must be exactly `keys`.
  void expectObject(std::initializer_list<const char *> keys) const {
    if (!value_.is_object())
      error("expected an object");
    for (const char *key : keys)
      if (!value_.contains(key))
        child(key).error("missing field");
    for (const auto &item : value_.items()) {
      bool known = false;
      for (const char *key : keys)
        known = known || item.key() == key;
      if (!known)
        child(item.key()).error("unknown field");
    }
  }

  bool has(const char *key) const {
    return value_.is_object() && value_.contains(key);
  }

  Node operator[](const char *key) const {
    return Node(value_.at(key), child(key).path_, file_);
  }

  /// Free-form text: kernel source, compile options, versions, paths.
  std::string text() const {
    if (!value_.is_string())
      error("expected a string");
    return value_.get<std::string>();
  }
  std::string nonEmptyText() const {
    std::string s = text();
    if (s.empty())
      error("must not be empty");
    return s;
  }
  /// A name (of a module, buffer, launch, cond, tensor, op...). The runtime
  /// echoes names in its messages, so a name must be printable on one line
  /// as it is (escapeForMessage leaves it unchanged) and short.
  std::string str() const {
    std::string s = text();
    if (escapeForMessage(s, kMaxNameBytes) != s)
      error(fmt::format("'{}' is not a name (at most {} bytes of printable "
                        "UTF-8, no backslash)",
                        escapeForMessage(s), kMaxNameBytes));
    return s;
  }
  std::string nonEmptyStr() const {
    std::string s = str();
    if (s.empty())
      error("must not be empty");
    return s;
  }
  int64_t i64() const {
    if (!value_.is_number_integer())
      error("expected an integer");
    if (value_.is_number_unsigned() &&
        value_.get<uint64_t>() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      error("integer out of range");
    return value_.get<int64_t>();
  }
  int32_t i32(int64_t lo = std::numeric_limits<int32_t>::min(),
              int64_t hi = std::numeric_limits<int32_t>::max()) const {
    int64_t v = i64();
    if (v < lo || v > hi)
      error(fmt::format("{} is out of range [{}, {}]", v, lo, hi));
    return static_cast<int32_t>(v);
  }
  double number() const {
    if (!value_.is_number())
      error("expected a number");
    return value_.get<double>();
  }
  /// A number that a float holds (not rounded to inf on the way).
  float f32() const {
    double v = number();
    if (!(std::abs(v) <= std::numeric_limits<float>::max()))
      error(fmt::format("{} is out of the float range", v));
    return static_cast<float>(v);
  }
  /// A positive, finite float (score_scale, eps: as the program verifiers
  /// require of the attributes they come from).
  float positiveF32() const {
    float v = f32();
    if (!(v > 0))
      error(fmt::format("must be positive and finite, got {}", v));
    return v;
  }
  bool boolean() const {
    if (!value_.is_boolean())
      error("expected true or false");
    return value_.get<bool>();
  }
  std::vector<Node> array() const {
    if (!value_.is_array())
      error("expected an array");
    std::vector<Node> items;
    for (size_t i = 0; i < value_.size(); ++i)
      items.emplace_back(value_[i], fmt::format("{}[{}]", path_, i), file_);
    return items;
  }

private:
  // Keys of unknown fields come from the file.
  Node child(const std::string &key) const {
    std::string shown = escapeForMessage(key);
    return Node(value_, path_.empty() ? shown : path_ + "." + shown, file_);
  }

  const json &value_;
  std::string path_;
  const std::string &file_;
};

} // namespace proofc::bundle_json

#endif // PROOFC_RUNTIME_SRC_BUNDLEJSON_H
