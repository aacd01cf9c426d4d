//===- proofc-opt.cpp - mlir-opt with the eval dialect --------------------===//
//
// Registers every upstream dialect, extension and pass, the eval dialect, and
// (once they exist) the eval passes, then hands over to MlirOptMain.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

/// Passes of the proofc compiler. Each pass library adds its registration
/// call here (e.g. mlir::eval::registerEvalPasses()).
static void registerProofcPasses() { mlir::eval::registerEvalPasses(); }

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  registerProofcPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::eval::EvalDialect>();
  // gpu-module-to-binary translates gpu.module to LLVM IR (eval pipeline).
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "proofc optimizer driver (eval dialect)\n", registry));
}
