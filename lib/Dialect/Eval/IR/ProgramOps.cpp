//===- ProgramOps.cpp - eval.program and its whole-program checks ---------===//
//
// The program owns the checks that need more than one op: its shape
// parameters against every eval type in the body, and one implied shape per
// weight name across all encoders. Each check reports the first problem only,
// so one mistake gives one diagnostic.
//
//===----------------------------------------------------------------------===//
#include "VerifyUtils.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <climits>
#include <string>

using namespace mlir;
using namespace mlir::eval;

namespace {
struct ShapeParam {
  StringRef name;
  IntegerAttr attr;
  StringRef meaning;
};
} // namespace

LogicalResult ProgramOp::verify() {
  ShapeParam params[] = {{"A", getAAttr(), "max atoms per proof state"},
                         {"S", getSAttr(), "max derived states per step"},
                         {"D", getDAttr(), "max proof depth"},
                         {"B", getBAttr(), "slots run in parallel"}};
  for (const ShapeParam &param : params) {
    if (!param.attr)
      return emitOpError() << "requires attribute '" << param.name << "' ("
                           << param.meaning << ")";
    int64_t value = param.attr.getInt();
    // The runtime stores the parameters as int32.
    if (value <= 0 || value > INT32_MAX)
      return emitOpError() << "attribute '" << param.name << "' ("
                           << param.meaning << ") must be in [1, " << INT32_MAX
                           << "], got " << value;
  }
  // The pieces are counted before the nested ops are verified, so a missing
  // piece is reported first rather than through its consequences.
  Block &body = getBody().front();
  // The GPU pipeline replaces the proof loop by its lowered forms.
  int64_t loops = llvm::count_if(body, [](Operation &op) {
    return isa<ProofLoopOp>(op) || isLoweredProofLoop(&op);
  });
  if (loops == 0)
    return emitOpError("has no 'eval.proof_loop'");
  if (loops > 1)
    return emitOpError() << "has " << loops
                         << " 'eval.proof_loop' ops; expected exactly one";
  if (body.getOps<EncoderOp>().empty())
    return emitOpError("has no 'eval.encoder'");
  return success();
}

ProofLoopOp ProgramOp::getProofLoop() {
  if (getBody().empty())
    return {};
  auto loops = getBody().front().getOps<ProofLoopOp>();
  return loops.empty() ? ProofLoopOp() : *loops.begin();
}

/// Reports `type` on `op` when its A, S or B differs from the program's (a B
/// written `?` is the program's).
static LogicalResult checkShapeParams(Operation *op, Type type,
                                      const verifyutil::ProgramShape &shape) {
  auto mismatch = [&](StringRef name, int64_t got,
                      int64_t expected) -> LogicalResult {
    if (got == expected || ShapedType::isDynamic(got)) // `?`: the program's
      return success();
    return op->emitOpError()
           << "type " << type << " has " << name << " = " << got
           << ", but the program has " << name << " = " << expected;
  };
  if (auto state = dyn_cast<StateType>(type))
    return mismatch("A", state.getAtoms(), shape.A);
  if (auto slots = dyn_cast<SlotsType>(type))
    return failure(failed(mismatch("B", slots.getSlots(), shape.B)) ||
                   failed(mismatch("A", slots.getAtoms(), shape.A)));
  if (auto derived = dyn_cast<DerivedType>(type))
    return failure(failed(mismatch("B", derived.getSlots(), shape.B)) ||
                   failed(mismatch("S", derived.getStates(), shape.S)) ||
                   failed(mismatch("A", derived.getAtoms(), shape.A)));
  return success();
}

/// Every eval type in the program agrees with A, S and B. Results and entry
/// block arguments cover every value; the encoder's signature is checked
/// directly so that a body-less encoder is covered too.
static LogicalResult verifyShapeParams(ProgramOp program,
                                       const verifyutil::ProgramShape &shape) {
  WalkResult result = program.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) -> WalkResult {
        auto check = [&](TypeRange types) {
          for (Type type : types)
            if (failed(checkShapeParams(op, type, shape)))
              return failure();
          return success();
        };
        if (auto encoder = dyn_cast<EncoderOp>(op)) {
          if (failed(check(encoder.getArgumentTypes())))
            return WalkResult::interrupt();
          return WalkResult::advance();
        }
        if (failed(check(op->getResultTypes())))
          return WalkResult::interrupt();
        for (Region &region : op->getRegions())
          if (!region.empty() &&
              failed(check(region.front().getArgumentTypes())))
            return WalkResult::interrupt();
        return WalkResult::advance();
      });
  return failure(result.wasInterrupted());
}

namespace {
/// A weight tensor's shape as implied by one use. Dataset-dependent sizes are
/// symbols ("R+2", "E"); the rest are numbers.
using ImpliedShape = SmallVector<std::string, 2>;

std::string formatShape(const ImpliedShape &shape) {
  return "[" + llvm::join(shape, ", ") + "]";
}

class WeightShapes {
public:
  /// Records that `op` uses tensor `name` with `shape`; fails on the first
  /// name already used with another shape.
  LogicalResult use(Operation *op, StringRef name, ImpliedShape shape) {
    auto [it, inserted] = uses.try_emplace(name, Use{shape, op});
    if (inserted || it->second.shape == shape)
      return success();
    InFlightDiagnostic diag = op->emitOpError()
                              << "uses weight '" << name << "' with shape "
                              << formatShape(shape) << ", but it has shape "
                              << formatShape(it->second.shape) << " elsewhere";
    diag.attachNote(it->second.op->getLoc())
        << "weight '" << name << "' used with shape "
        << formatShape(it->second.shape) << " here";
    return diag;
  }

private:
  struct Use {
    ImpliedShape shape;
    Operation *op;
  };
  llvm::StringMap<Use> uses;
};

std::string num(int64_t value) { return std::to_string(value); }
} // namespace

/// One weight name implies one tensor shape (spec §4 table) wherever used.
static LogicalResult verifyWeightShapes(ProgramOp program,
                                        const verifyutil::ProgramShape &shape) {
  WeightShapes weights;
  WalkResult result = program.getBody().walk([&](Operation *op) -> WalkResult {
    LogicalResult ok = success();
    if (auto embed = dyn_cast<AtomEmbedOp>(op)) {
      std::string e = num(embed.getEmbeddingWidth());
      std::string w = num(embed.getType().getDimSize(1));
      ok = failure(
          failed(weights.use(op, embed.getPreds(), {"R+2", e})) ||
          failed(weights.use(op, embed.getConsts(), {"E", e})) ||
          failed(weights.use(op, embed.getVars(), {num(2 * shape.A), e})) ||
          failed(weights.use(op, embed.getWeight(),
                             {w, num(3 * embed.getEmbeddingWidth())})) ||
          failed(weights.use(op, embed.getBias(), {w})));
    } else if (auto linear = dyn_cast<LinearOp>(op)) {
      std::string in = num(linear.getInput().getType().getDimSize(0));
      std::string out = num(linear.getType().getDimSize(0));
      ok = failure(failed(weights.use(op, linear.getWeight(), {out, in})) ||
                   failed(weights.use(op, linear.getBias(), {out})));
    } else if (auto norm = dyn_cast<LayerNormOp>(op)) {
      std::string w = num(norm.getType().getDimSize(0));
      ok = failure(failed(weights.use(op, norm.getWeight(), {w})) ||
                   failed(weights.use(op, norm.getBias(), {w})));
    }
    return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult ProgramOp::verifyRegions() {
  std::optional<verifyutil::ProgramShape> shape =
      verifyutil::getProgramShape(*this);
  if (!shape)
    return failure(); // ProgramOp::verify has reported it.
  if (failed(verifyShapeParams(*this, *shape)))
    return failure();
  return verifyWeightShapes(*this, *shape);
}
