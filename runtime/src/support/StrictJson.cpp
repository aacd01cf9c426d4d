//===- StrictJson.cpp - A linear DOM builder that refuses duplicate keys --===//
//
// The SAX handler below builds what nlohmann's own DOM parser builds, keeping
// a stack of the open containers; a key already present in the object being
// built (std::map lookup, O(log n)) stops the parse. Nothing here recurses,
// so deeply nested input cannot exhaust the stack.
//
//===----------------------------------------------------------------------===//
#include "support/StrictJson.h"

#include "support/MessageText.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace proofc {

namespace {

using json = nlohmann::json;

class StrictDomBuilder {
public:
  StrictDomBuilder(StrictJsonResult &result, size_t maxRootKeys)
      : result_(result), maxRootKeys_(maxRootKeys) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(json::number_integer_t v) { return add(v); }
  bool number_unsigned(json::number_unsigned_t v) { return add(v); }
  bool number_float(json::number_float_t v, const json::string_t &) {
    return add(v);
  }
  bool string(json::string_t &v) { return add(std::move(v)); }
  bool binary(json::binary_t &v) { return add(std::move(v)); }

  bool start_object(std::size_t) {
    open(place(json::value_t::object));
    return true;
  }
  bool key(json::string_t &k) {
    Frame &frame = stack_.back();
    if (frame.value->contains(k)) {
      result_.duplicate = true;
      result_.duplicatePath = pathToTop();
      result_.duplicateKey = std::move(k);
      return false;
    }
    if (stack_.size() == 1 && frame.value->size() >= maxRootKeys_) {
      result_.tooManyRootKeys = true;
      return false;
    }
    frame.element = &(*frame.value)[k];
    frame.key = std::move(k);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    open(place(json::value_t::array));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string &, const Exception &e) {
    throw e; // parse_error or out_of_range, caught as json::exception
  }

private:
  struct Frame {
    json *value;             ///< the open object or array
    json *element = nullptr; ///< an object's slot for the value of `key`
    std::string key;
  };

  template <class Value> bool add(Value &&v) {
    place(std::forward<Value>(v));
    return true;
  }

  /// Where the next value goes: the root, an array's new last element, or
  /// the slot of the current key.
  template <class Value> json *place(Value &&v) {
    if (stack_.empty()) {
      result_.value = json(std::forward<Value>(v));
      return &result_.value;
    }
    Frame &frame = stack_.back();
    if (frame.value->is_array()) {
      frame.value->emplace_back(std::forward<Value>(v));
      return &frame.value->back();
    }
    *frame.element = json(std::forward<Value>(v));
    return frame.element;
  }

  void open(json *container) { stack_.push_back({container, nullptr, {}}); }

  /// The path of the innermost open container.
  std::vector<JsonPathItem> pathToTop() const {
    std::vector<JsonPathItem> path;
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame &frame = stack_[i];
      if (frame.value->is_array())
        path.push_back({"", static_cast<int64_t>(frame.value->size()) - 1});
      else
        path.push_back({frame.key, -1});
    }
    return path;
  }

  StrictJsonResult &result_;
  size_t maxRootKeys_;
  std::vector<Frame> stack_;
};

} // namespace

StrictJsonResult parseStrictJson(std::string_view text, size_t maxRootKeys) {
  StrictJsonResult result;
  StrictDomBuilder builder(result, maxRootKeys);
  bool complete = json::sax_parse(text.begin(), text.end(), &builder);
  if (!complete && !result.duplicate && !result.tooManyRootKeys)
    throw std::logic_error("JSON parse stopped without a reason");
  if (!complete)
    result.value = json();
  return result;
}

std::string formatJsonPath(const std::vector<JsonPathItem> &path) {
  // A message is one line of bounded length: past kShownBytes the path of a
  // deeply nested value is cut at an item boundary, with its depth.
  constexpr size_t kShownBytes = 240;
  std::string out;
  for (const JsonPathItem &item : path) {
    if (out.size() > kShownBytes) {
      out += fmt::format("…({} levels deep)", path.size());
      break;
    }
    if (item.index >= 0) {
      out += fmt::format("[{}]", item.index);
    } else {
      if (!out.empty())
        out += '.';
      out += escapeForMessage(item.key);
    }
  }
  return out;
}

} // namespace proofc
