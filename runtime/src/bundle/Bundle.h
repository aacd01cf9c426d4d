//===- Bundle.h - Reading, verifying and writing a bundle -------*- C++ -*-===//
//
// The runtime's side of the bundle (the model is the contract's,
// proofc/contract/Bundle.h): queries over it, its JSON text, the strict
// reader that verifies it before use, and the atomic writer.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_BUNDLE_H
#define PROOFC_RUNTIME_BUNDLE_H

#include "proofc/contract/Bundle.h"

#include <string>

namespace proofc {

/// A buffer's dtype as the bundle's JSON spells it.
const char *dtypeName(DType dtype);
/// The module of `bundle` named `name`, or null.
const KernelModule *findModule(const Bundle &bundle, const std::string &name);
/// Whether a module of `bundle` links the module named `name` (which then
/// has no kernels of its own).
bool isLinkedModule(const Bundle &bundle, const std::string &name);
/// Whether `launch` is a step policy that advances the slots it selects for
/// (proofc compile --advance-in-policy): a policy launch whose module links
/// another (slot.cu; docs/gpu-kernels.md, "The advance in the policy").
bool advancesInPolicy(const Bundle &bundle, const Launch &launch);
/// Whether any launch of `bundle` advancesInPolicy.
bool advancesInPolicy(const Bundle &bundle);

/// JSON text of `bundle`.
std::string serializeBundle(const Bundle &bundle);
/// Parses and verifies (schema, version, every name reference resolves);
/// throws proofc::Error naming `path` and the offending field.
Bundle parseBundle(const std::string &text, const std::string &path);
Bundle readBundle(const std::string &path);
void writeBundle(const std::string &path, const Bundle &bundle); // atomic

} // namespace proofc

#endif // PROOFC_RUNTIME_BUNDLE_H
