//===- StrictJson.h - Untrusted JSON: linear, no duplicate keys -*- C++ -*-===//
//
// Weights headers and bundles are JSON from a user. nlohmann::json::parse
// keeps the last of two equal keys without a word (a second "D": 21 in a
// bundle silently changed the results), and its parser-callback mode, the
// way to watch keys while parsing, is quadratic in the entries of an object
// (on every nested object's end it scans the parent for a discarded value:
// 40,000 tensors took 13.5 s). parseStrictJson builds the same DOM with a
// SAX handler in time linear in the text and stops at the first repeated
// key, with the JSON path of the object that repeats it.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_STRICTJSON_H
#define PROOFC_RUNTIME_STRICTJSON_H

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

/// One step of a JSON path: an object key, or an array index (key empty).
struct JsonPathItem {
  std::string key; ///< raw bytes from the file
  int64_t index = -1;
};

struct StrictJsonResult {
  nlohmann::json value; ///< the DOM, when neither stop below happened
  /// Set when an object repeats a key: the path of that object (empty for
  /// the root) and the key.
  bool duplicate = false;
  std::vector<JsonPathItem> duplicatePath;
  std::string duplicateKey;
  /// Set when the root object has more than `maxRootKeys` keys; parsing
  /// stopped at the first key past the limit.
  bool tooManyRootKeys = false;
};

/// Parses `text` (all of it) as one JSON value. A syntax error or a number
/// out of range throws nlohmann::json::exception, as json::parse does. A NUL
/// byte ends nlohmann's input early: callers reject NUL bytes first.
StrictJsonResult
parseStrictJson(std::string_view text,
                size_t maxRootKeys = std::numeric_limits<size_t>::max());

/// `path` as "a.b[2].c" (keys escaped with escapeForMessage), or "" for the
/// root; a path deeper than a few hundred bytes ends in "…(N levels deep)".
std::string formatJsonPath(const std::vector<JsonPathItem> &path);

} // namespace proofc

#endif // PROOFC_RUNTIME_STRICTJSON_H
