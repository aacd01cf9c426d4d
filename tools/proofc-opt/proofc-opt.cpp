//===- proofc-opt.cpp - mlir-opt with the eval dialect --------------------===//
//
// Registers every upstream dialect, extension and pass, the eval dialect, and
// (once they exist) the eval passes, then hands over to MlirOptMain -- after
// reading the input itself and refusing one nested deeper than
// kMaxSourceNesting brackets (include/proofc/Support/SourceNesting.h): MLIR's
// recursive parser would exhaust the stack on it.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/EvalOps.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Support/SourceNesting.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

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

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "proofc optimizer driver (eval dialect)\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // What MlirOptMain(argc, argv, ...) does, with the nesting check between
  // reading the input (a file or `-`, standard input) and parsing it.
  llvm::InitLLVM initLLVM(argc, argv);
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (std::optional<proofc::NestingExcess> deep =
          proofc::findExcessNesting(file->getBuffer())) {
    llvm::errs() << file->getBufferIdentifier() << ":" << deep->line << ":"
                 << deep->column
                 << ": error: " << proofc::excessNestingMessage() << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
