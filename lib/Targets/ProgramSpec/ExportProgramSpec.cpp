//===- ExportProgramSpec.cpp - eval.program -> proofc::ProgramSpec --------===//
//
// The runtime implements one proof loop (spec §5) and one policy encoder
// applied to parent and child states alike. The export therefore checks the
// loop's data flow piece by piece and flattens the encoder's chain of ops into
// PolicyOps; any other shape is reported, never silently reinterpreted.
//
//===----------------------------------------------------------------------===//
#include "proofc/Target/ExportProgramSpec.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::eval;

/// Starts an error on `op` for a program the runtime cannot run.
static InFlightDiagnostic exportError(Operation *op) {
  return op->emitError() << "cannot export to the runtime: ";
}

template <typename OpTy> static OpTy getPiece(ProofLoopOp loop) {
  return *loop.getBody().front().getOps<OpTy>().begin();
}

/// `user`'s operand `index` must be `expected` (described as `what`).
static LogicalResult expectOperand(Operation *user, unsigned index,
                                   Value expected, StringRef what) {
  if (user->getOperand(index) == expected)
    return success();
  return exportError(user) << "operand #" << index << " must be " << what;
}

/// The encode op that defines `value`, if any.
static EncodeOp getEncode(Value value) {
  return value.getDefiningOp<EncodeOp>();
}

/// Checks that the loop is wired as spec §5 runs it and returns the encoder
/// that scores parent and child states.
static FailureOr<EncoderOp> verifyLoopWiring(ProgramOp program,
                                             ProofLoopOp loop) {
  Value slots = loop.getSlots();
  auto derive = getPiece<DeriveOp>(loop);
  auto score = getPiece<DotScoreOp>(loop);
  auto select = getPiece<SelectOp>(loop);
  auto transition = getPiece<TransitionOp>(loop);
  auto terminal = getPiece<TerminalCheckOp>(loop);
  auto recycle = getPiece<RecycleOp>(loop);
  auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());

  EncodeOp parent = getEncode(score.getParent());
  EncodeOp children = getEncode(score.getChildren());
  if (!parent || parent.getStates() != slots)
    return exportError(score)
           << "the parent embeddings must be 'eval.encode' of the loop's slots";
  if (!children || children.getStates() != derive.getDerived())
    return exportError(score) << "the child embeddings must be 'eval.encode' "
                                 "of the 'eval.derive' result";
  if (parent.getCallee() != children.getCallee())
    return exportError(children)
           << "the runtime scores parent and child states with one encoder, "
              "but they use "
           << parent.getCalleeAttr() << " and " << children.getCalleeAttr();

  if (failed(expectOperand(derive, 1, slots, "the loop's slots")) ||
      failed(expectOperand(select, 0, score.getLogits(),
                           "the 'eval.dot_score' result")) ||
      failed(expectOperand(select, 1, derive.getDerived(),
                           "the 'eval.derive' result")) ||
      failed(expectOperand(transition, 0, slots, "the loop's slots")) ||
      failed(expectOperand(transition, 1, derive.getDerived(),
                           "the 'eval.derive' result")) ||
      failed(expectOperand(transition, 2, select.getAction(),
                           "the 'eval.select' action")) ||
      failed(expectOperand(transition, 3, select.getLogp(),
                           "the 'eval.select' log-probability")) ||
      failed(expectOperand(terminal, 0, transition.getResult(),
                           "the 'eval.transition' result")) ||
      failed(expectOperand(recycle, 0, terminal.getResult(),
                           "the 'eval.terminal_check' result")) ||
      failed(expectOperand(yield, 0, recycle.getResult(),
                           "the 'eval.recycle' result")))
    return failure();

  // Nothing else may run in the step: the runtime would not run it.
  for (Operation &op : loop.getBody().front()) {
    if (auto encode = dyn_cast<EncodeOp>(op)) {
      if (encode.getCallee() != parent.getCallee())
        return exportError(encode)
               << "the runtime has one policy encoder, but the loop uses "
               << parent.getCalleeAttr() << " and " << encode.getCalleeAttr();
      continue;
    }
    if (!isa<DeriveOp, DotScoreOp, SelectOp, TransitionOp, TerminalCheckOp,
             RecycleOp, YieldOp>(op))
      return exportError(&op) << "'" << op.getName()
                              << "' is not part of the runtime's proof loop";
  }
  return cast<EncoderOp>(
      SymbolTable::lookupSymbolIn(program, parent.getCalleeAttr()));
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
  FailureOr<EncoderOp> encoder = verifyLoopWiring(program, loop);
  if (failed(encoder))
    return failure();

  proofc::ProgramSpec spec;
  spec.name = program.getSymName().str();
  if (failed(exportEncoder(*encoder, spec.policy.encoder)))
    return failure();
  spec.policy.scoreScale =
      getPiece<DotScoreOp>(loop).getScaleAttr().getValue().convertToFloat();

  proofc::ShapeParams &shape = spec.shape;
  shape.A = static_cast<int32_t>(program.getAAttr().getInt());
  shape.S = static_cast<int32_t>(program.getSAttr().getInt());
  shape.D = static_cast<int32_t>(program.getDAttr().getInt());
  shape.B = static_cast<int32_t>(program.getBAttr().getInt());
  shape.d = static_cast<int32_t>(encoder->getEmbeddingType().getDimSize(0));
  shape.L = static_cast<int32_t>(
      llvm::count_if(spec.policy.encoder, [](const proofc::PolicyOp &op) {
        return op.kind == proofc::PolicyOpKind::Linear;
      }));
  return spec;
}
