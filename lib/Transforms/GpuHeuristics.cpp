//===- GpuHeuristics.cpp - The GPU kernels' shape, chosen from a program --===//
//
// The choices behind the pipeline's `auto` options (GpuHeuristics.h); the
// numbers are the V10 sweeps of docs/performance.md.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"

#include "proofc/contract/kernel_abi.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::eval;

StringRef mlir::eval::chooseMatmul(ProgramOp program) {
  // The encoders the policy runs: the fused step's, else all of them.
  SmallVector<EncoderOp> encoders;
  program.walk([&](ScoreSelectOp score) {
    if (auto encoder = dyn_cast_or_null<EncoderOp>(
            SymbolTable::lookupSymbolIn(program, score.getEncoderAttr())))
      encoders.push_back(encoder);
  });
  if (encoders.empty())
    llvm::append_range(encoders, program.getBody().front().getOps<EncoderOp>());
  // kernel_abi.h's mma tiles; f16 where they allow it (docs/performance.md
  // row 48: V10 at B = 8192 5.7 % faster than tf32x3, the same agreement).
  using proofc_abi::mmaK;
  bool linears = false, k16 = true;
  for (EncoderOp encoder : encoders)
    for (LinearOp linear : encoder.getBody().getOps<LinearOp>()) {
      int64_t in = linear.getInput().getType().getDimSize(0),
              out = linear.getType().getDimSize(0);
      if (in % mmaK(false) != 0 || out % proofc_abi::kMmaN != 0)
        return kMatmulFma;
      k16 &= in % mmaK(true) == 0;
      linears = true;
    }
  return !linears ? kMatmulFma : k16 ? kMatmulF16x3 : kMatmulTf32x3;
}

StringRef mlir::eval::chooseSchedule(bool tensorCores, int64_t B,
                                     bool fusedStep) {
  return fusedStep && tensorCores && B <= 256 ? "persistent" : "step";
}

int64_t mlir::eval::chooseGroups(bool tensorCores, int64_t B,
                                 StringRef schedule) {
  if (schedule == "persistent")
    return 0;
  if (!tensorCores)
    return 4;
  return B < 1024 ? 8 : B < 4096 ? 2 : 1;
}

/// The step schedule's one-warp policy blocks (B >= 4096) with the first
/// linear folded: 21 blocks an SM, one k-step in flight (both choices
/// below, measured together: docs/performance.md row 32).
static bool foldedOneWarpSteps(int64_t B, StringRef schedule,
                               bool foldedAtomLayer) {
  return schedule != "persistent" && B >= 4096 && foldedAtomLayer;
}

int64_t mlir::eval::chooseMinBlocksPerSm(StringRef matmul, int64_t B,
                                         StringRef schedule,
                                         bool foldedAtomLayer) {
  if (schedule == "persistent")
    return 2;
  if (matmul == kMatmulFma)
    return B >= 1024 ? 8 : 6;
  if (foldedOneWarpSteps(B, schedule, foldedAtomLayer))
    return matmul == kMatmulF16x3 ? 20 : 21;
  return B < 1024 ? 2 : B < 4096 ? 10 : 18;
}

bool mlir::eval::plansAtomLayerTable(ProgramOp program) {
  return !program.getBody().front().getOps<FoldAtomLayerOp>().empty();
}

StringRef mlir::eval::plannedMatmul(ProgramOp program) {
  StringRef matmul = kMatmulFma;
  program.walk([&](Operation *op) {
    if (isa<SplitTf32WeightOp>(op))
      matmul = kMatmulTf32x3;
    else if (isa<SplitF16WeightOp>(op))
      matmul = kMatmulF16x3;
  });
  return matmul;
}

int64_t mlir::eval::chooseStepsInFlight(int64_t B, StringRef schedule,
                                        bool foldedAtomLayer) {
  return foldedOneWarpSteps(B, schedule, foldedAtomLayer) ? 1
                                                          : kMaxStepsInFlight;
}

int64_t mlir::eval::chooseEngineThreads(int64_t B) {
  return B < 4096 ? 64 : 32;
}

int64_t mlir::eval::chooseEngineMaxRegisters(int64_t B) {
  return B >= 16384 ? 96 : 0;
}

int64_t mlir::eval::chooseMemoMaxWaits(int64_t B) { return B < 16384 ? 2 : 0; }

bool mlir::eval::choosePolicyGridResize(int64_t B) { return B >= 1024; }

bool mlir::eval::chooseEngineGridResize(int64_t B) { return B >= 8192; }

int64_t mlir::eval::chooseTailHandoff(bool tensorCores, int64_t B) {
  return tensorCores && chooseEngineGridResize(B) && B < 16384 ? 264 : 0;
}
