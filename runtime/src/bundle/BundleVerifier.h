//===- BundleVerifier.h - a parsed bundle's cross-checks --------*- C++ -*-===//
//
// The checks that need more than one field: the encoder's widths chain and
// agree with shape.d and shape.L; the shape macros and literals the
// kernels were compiled with agree with the program's shape; and every
// reference of the plan (module, link, buffer, binding, cond, launch,
// argument) resolves. Each fails naming the file and the JSON path.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SRC_BUNDLEVERIFIER_H
#define PROOFC_RUNTIME_SRC_BUNDLEVERIFIER_H

#include "bundle/BundleJson.h"

namespace proofc::bundle_json {

/// The encoder's widths chain as the program's types did (each op takes the
/// width the previous one yields), and shape.d and shape.L are the encoder's
/// output width and linear-layer count, as the export computed them: the
/// kernels were generated for those, so an edited shape would size buffers
/// that the kernels read past (the rules of checkWeights' Requirements, here
/// with the JSON path).
void checkEncoderShape(const ProgramSpec &program, const Node &node);

/// The CUDA C++ modules are compiled with the shape as macros
/// (-DPROOFC_A=6 -DPROOFC_S=120, LowerToGpu's declareModules) and the
/// launches pass D and the score scale as literals: a field edited after
/// compilation must not disagree with what the kernels were built for.
void checkCompiledShape(const Bundle &bundle, const Node &root);

/// Cross-reference checks over a parsed plan; `root` gives the paths.
void verifyPlan(const Bundle &bundle, const Node &root);

} // namespace proofc::bundle_json

#endif // PROOFC_RUNTIME_SRC_BUNDLEVERIFIER_H
