//===- ExportProgramSpec.cpp - eval.program -> proofc::ProgramSpec --------===//
//
// The runtime implements one proof loop (spec §5) and one policy encoder
// applied to parent and child states alike. The export therefore checks the
// loop's data flow (matchProofStep, the rules eval-fuse-step applies too) and
// flattens the encoder's chain of ops into
// PolicyOps; any other shape is reported, never silently reinterpreted.
//
//===----------------------------------------------------------------------===//
#include "proofc/Target/ExportProgramSpec.h"

#include "proofc/Dialect/Eval/ProofStep.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::eval;

/// Starts an error on `op` for a program the runtime cannot run.
static InFlightDiagnostic exportError(Operation *op) {
  return op->emitError() << "cannot export to the runtime: ";
}

/// The PolicyOp for one op of the encoder chain, or failure for an op the
/// runtime does not implement.
static FailureOr<proofc::PolicyOp> exportPolicyOp(Operation &op) {
  proofc::PolicyOp out{};
  auto width = [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return static_cast<int32_t>(type.getDimSize(type.getRank() - 1));
  };
  if (auto embed = dyn_cast<AtomEmbedOp>(op)) {
    out.kind = proofc::PolicyOpKind::AtomEmbed;
    out.predTable = embed.getPreds().str();
    out.constTable = embed.getConsts().str();
    out.varTable = embed.getVars().str();
    out.weight = embed.getWeight().str();
    out.bias = embed.getBias().str();
    out.in = static_cast<int32_t>(3 * embed.getEmbeddingWidth());
    out.out = width(embed.getResult());
    return out;
  }
  if (auto relu = dyn_cast<ReluOp>(op)) {
    out.kind = proofc::PolicyOpKind::Relu;
    out.in = out.out = width(relu.getResult());
    return out;
  }
  if (auto sum = dyn_cast<SumAtomsOp>(op)) {
    out.kind = proofc::PolicyOpKind::SumAtoms;
    out.in = out.out = width(sum.getResult());
    return out;
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    out.kind = proofc::PolicyOpKind::Linear;
    out.weight = linear.getWeight().str();
    out.bias = linear.getBias().str();
    out.in = width(linear.getInput());
    out.out = width(linear.getResult());
    return out;
  }
  if (auto norm = dyn_cast<LayerNormOp>(op)) {
    out.kind = proofc::PolicyOpKind::LayerNorm;
    out.weight = norm.getWeight().str();
    out.bias = norm.getBias().str();
    out.in = out.out = width(norm.getResult());
    out.eps = norm.getEpsAttr().getValue().convertToFloat();
    return out;
  }
  return exportError(&op) << "'" << op.getName()
                          << "' is not an encoder op the runtime implements";
}

/// Flattens the encoder body, which must be one chain from the argument to
/// eval.return (each op consumes exactly the previous op's result).
static LogicalResult exportEncoder(EncoderOp encoder,
                                   std::vector<proofc::PolicyOp> &ops) {
  Block &body = encoder.getBody().front();
  Value current = body.getArgument(0);
  for (Operation &op : body) {
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      if (ret.getValue() != current)
        return exportError(ret) << "must return the last value of the "
                                   "encoder's chain of ops";
      return success();
    }
    if (op.getNumOperands() != 1 || op.getOperand(0) != current ||
        op.getNumResults() != 1)
      return exportError(&op) << "the encoder must be a single chain of ops; "
                                 "this op does not consume the previous "
                                 "value of the chain";
    FailureOr<proofc::PolicyOp> policyOp = exportPolicyOp(op);
    if (failed(policyOp))
      return failure();
    ops.push_back(std::move(*policyOp));
    current = op.getResult(0);
  }
  return exportError(encoder) << "the encoder has no 'eval.return'";
}

FailureOr<proofc::ProgramSpec>
mlir::eval::exportProgramSpec(ProgramOp program) {
  ProofLoopOp loop = program.getProofLoop();
  if (!loop)
    return exportError(program) << "the program has no 'eval.proof_loop'";
  FailureOr<ProofStep> step = matchProofStep(loop, exportError);
  if (failed(step))
    return failure();
  // The encoder that scores parent and child states (rule 4: one).
  auto encoder = cast<EncoderOp>(
      SymbolTable::lookupSymbolIn(program, step->parent.getCalleeAttr()));

  proofc::ProgramSpec spec;
  spec.name = program.getSymName().str();
  if (failed(exportEncoder(encoder, spec.policy.encoder)))
    return failure();
  spec.policy.scoreScale = step->score.getEffectiveScale();
  spec.policy.sampled = step->select.supportsSampled();

  proofc::ShapeParams &shape = spec.shape;
  shape.A = static_cast<int32_t>(program.getAAttr().getInt());
  shape.S = static_cast<int32_t>(program.getSAttr().getInt());
  shape.D = static_cast<int32_t>(program.getDAttr().getInt());
  shape.B = static_cast<int32_t>(program.getBAttr().getInt());
  shape.d = static_cast<int32_t>(encoder.getEmbeddingType().getDimSize(0));
  shape.L = static_cast<int32_t>(
      llvm::count_if(spec.policy.encoder, [](const proofc::PolicyOp &op) {
        return op.kind == proofc::PolicyOpKind::Linear;
      }));
  return spec;
}
