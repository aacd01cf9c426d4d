//===- JsonNode.cpp - JSON from a file, read with a path for errors -------===//
#include "support/JsonNode.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <cmath>

namespace proofc {

JsonNode::JsonNode(const nlohmann::json &value, std::string path,
                   std::string where)
    : value_(value), path_(std::move(path)), where_(std::move(where)) {}

void JsonNode::error(const std::string &what) const {
  fail("{}: {}: {}", where_, path_.empty() ? "(top level)" : path_, what);
}

JsonNode JsonNode::child(const std::string &key) const {
  // Keys of unknown fields come from the file.
  std::string shown = escapeForMessage(key);
  return JsonNode(value_, path_.empty() ? shown : path_ + "." + shown, where_);
}

void JsonNode::expectObject(
    std::initializer_list<const char *> keys,
    std::initializer_list<const char *> optional) const {
  if (!value_.is_object())
    error("expected an object");
  for (const char *key : keys)
    if (!value_.contains(key))
      child(key).error("missing field");
  for (const auto &item : value_.items()) {
    bool known = false;
    for (const char *key : keys)
      known = known || item.key() == key;
    for (const char *key : optional)
      known = known || item.key() == key;
    if (!known)
      child(item.key()).error("unknown field");
  }
}

JsonNode JsonNode::operator[](const char *key) const {
  if (!value_.is_object())
    error("expected an object");
  const auto it = value_.find(key);
  if (it == value_.end())
    child(key).error("missing field");
  return JsonNode(*it, child(key).path_, where_);
}

std::string JsonNode::text() const {
  if (!value_.is_string())
    error("expected a string");
  return value_.get<std::string>();
}

std::string JsonNode::nonEmptyText() const {
  std::string s = text();
  if (s.empty())
    error("must not be empty");
  return s;
}

std::string JsonNode::str() const {
  std::string s = text();
  if (escapeForMessage(s, kMaxNameBytes) != s)
    error(fmt::format("'{}' is not a name (at most {} bytes of printable "
                      "UTF-8, no backslash)",
                      escapeForMessage(s), kMaxNameBytes));
  return s;
}

std::string JsonNode::nonEmptyStr() const {
  std::string s = str();
  if (s.empty())
    error("must not be empty");
  return s;
}

int64_t JsonNode::i64(int64_t lo, int64_t hi) const {
  // Only integer tokens: nlohmann converts a float with a C cast, undefined
  // past the target's range.
  if (!value_.is_number_integer())
    error("expected an integer");
  if (value_.is_number_unsigned() &&
      value_.get<uint64_t>() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    error(fmt::format("{} is out of range [{}, {}]", value_.get<uint64_t>(), lo,
                      hi));
  const int64_t v = value_.get<int64_t>();
  if (v < lo || v > hi)
    error(fmt::format("{} is out of range [{}, {}]", v, lo, hi));
  return v;
}

int32_t JsonNode::i32(int64_t lo, int64_t hi) const {
  return static_cast<int32_t>(i64(lo, hi));
}

uint64_t JsonNode::u64() const {
  if (!value_.is_number_integer())
    error("expected an integer");
  if (!value_.is_number_unsigned() && value_.get<int64_t>() < 0)
    error(fmt::format("{} is negative", value_.get<int64_t>()));
  return value_.get<uint64_t>();
}

double JsonNode::number() const {
  if (!value_.is_number())
    error("expected a number");
  return value_.get<double>();
}

float JsonNode::f32() const {
  const double v = number();
  if (!(std::abs(v) <= std::numeric_limits<float>::max()))
    error(fmt::format("{} is out of the float range", v));
  return static_cast<float>(v);
}

float JsonNode::positiveF32() const {
  const float v = f32();
  if (!(v > 0))
    error(fmt::format("must be positive and finite, got {}", v));
  return v;
}

bool JsonNode::boolean() const {
  if (!value_.is_boolean())
    error("expected true or false");
  return value_.get<bool>();
}

std::vector<JsonNode> JsonNode::array() const {
  if (!value_.is_array())
    error("expected an array");
  std::vector<JsonNode> items;
  items.reserve(value_.size());
  for (size_t i = 0; i < value_.size(); ++i)
    items.emplace_back(value_[i], fmt::format("{}[{}]", path_, i), where_);
  return items;
}

std::vector<JsonNode> JsonNode::array(size_t size) const {
  std::vector<JsonNode> items = array();
  if (items.size() != size)
    error(fmt::format("expected {} items, got {}", size, items.size()));
  return items;
}

std::vector<int64_t> JsonNode::i64s(int64_t lo, int64_t hi) const {
  std::vector<int64_t> out;
  for (const JsonNode &item : array())
    out.push_back(item.i64(lo, hi));
  return out;
}

} // namespace proofc
