//===- Bundle.cpp - the bundle's names and queries ------------------------===//
//
// The bundle (proofc/runtime/Bundle.h) is the compiler/runtime contract.
// Its parts, one a file:
//   Bundle.cpp          the names of dtypes and encoder ops, module queries
//   BundleJson.h        the JSON node with its path, shared by the three:
//   BundleWriter.cpp    serializeBundle / writeBundle
//   BundleReader.cpp    parseBundle / readBundle: strict, every field typed
//   BundleVerifier.cpp  cross-references and the shape the kernels were
//                       compiled for
//
//===----------------------------------------------------------------------===//
#include "bundle/Bundle.h"

#include "bundle/BundleJson.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <algorithm>

namespace proofc {

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::I32:
    return "i32";
  case DType::F32:
    return "f32";
  case DType::U32:
    return "u32";
  }
  return "?";
}

namespace {

struct OpName {
  PolicyOpKind kind;
  const char *name;
};
constexpr OpName kOpNames[] = {{PolicyOpKind::AtomEmbed, "atom_embed"},
                               {PolicyOpKind::Relu, "relu"},
                               {PolicyOpKind::SumAtoms, "sum_atoms"},
                               {PolicyOpKind::Linear, "linear"},
                               {PolicyOpKind::LayerNorm, "layer_norm"}};

} // namespace

const char *bundle_json::opKindName(PolicyOpKind kind) {
  for (const OpName &op : kOpNames)
    if (op.kind == kind)
      return op.name;
  return "?";
}

std::optional<PolicyOpKind> bundle_json::opKindNamed(const std::string &name) {
  for (const OpName &op : kOpNames)
    if (name == op.name)
      return op.kind;
  return std::nullopt;
}

const KernelModule *findModule(const Bundle &bundle, const std::string &name) {
  for (const KernelModule &m : bundle.modules)
    if (m.name == name)
      return &m;
  return nullptr;
}

bool advancesInPolicy(const Bundle &bundle, const Launch &launch) {
  const KernelModule *m = findModule(bundle, launch.module);
  return launch.role == LaunchRole::Policy && m && !m->link.empty();
}

bool advancesInPolicy(const Bundle &bundle) {
  return std::any_of(
      bundle.plan.launches.begin(), bundle.plan.launches.end(),
      [&](const Launch &l) { return advancesInPolicy(bundle, l); });
}

bool isLinkedModule(const Bundle &bundle, const std::string &name) {
  for (const KernelModule &m : bundle.modules)
    if (std::find(m.link.begin(), m.link.end(), name) != m.link.end())
      return true;
  return false;
}

} // namespace proofc
