//===- BundleJson.h - a bundle's JSON, with paths for errors ----*- C++ -*-===//
//
// What the bundle's reader (BundleReader.cpp), writer (BundleWriter.cpp)
// and verifier (BundleVerifier.cpp) share: the schema tag, the encoder
// ops' names, and Node, the runtime's JSON reader (support/JsonNode.h:
// a value with its file and path, whose accessors check the JSON type and
// range). Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SRC_BUNDLEJSON_H
#define PROOFC_RUNTIME_SRC_BUNDLEJSON_H

#include "bundle/Bundle.h"

#include "support/JsonNode.h"

#include <nlohmann/json.hpp>

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

/// A bundle's JSON value with its path: the runtime's one JSON reader.
using Node = proofc::JsonNode;

} // namespace proofc::bundle_json

#endif // PROOFC_RUNTIME_SRC_BUNDLEJSON_H
