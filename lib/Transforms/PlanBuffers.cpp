//===- PlanBuffers.cpp - eval-plan-buffers --------------------------------===//
//
// Every value of the fused program gets device buffers, declared once at the
// program level (so nothing is allocated inside the loop) with symbolic
// extents. Values that must share buffers form classes:
//   loop-carried   an init, the block argument and the yielded value;
//   cond           an else operand, the result and the body's yield;
//   in place       eval.advance's slots operand and its result.
// Sharing is only valid when the older value is dead once the newer one is
// written; where it is not (a buffer read and written in one step), an
// eval.copy gives the value that must survive its own buffer. The programs
// eval-fuse-step makes need no copy.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/Dialect/Eval/Transforms/Passes.h"
#include "proofc/Dialect/Eval/Transforms/ValueBuffers.h"
#include "proofc/contract/kernel_abi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::eval {
#define GEN_PASS_DEF_EVALPLANBUFFERSPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

/// True when `value` is read by an op placed after `point` in `point`'s
/// block (a use nested in a later op counts as that op), or by an op outside
/// the block and its nested regions when `outside` is set.
bool usedAfter(Value value, Operation *point, bool outside = false) {
  Block *block = point->getBlock();
  for (Operation *user : value.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor) {
      if (outside)
        return true;
      continue;
    }
    if (point->isBeforeInBlock(ancestor))
      return true;
  }
  return false;
}

/// Replaces operand `index` of `user` by an eval.copy of it made just before
/// `at`, and returns the copy.
Value copyOperand(Operation *user, unsigned index, Operation *at) {
  OpBuilder builder(at);
  Value input = user->getOperand(index);
  auto copy = CopyOp::create(builder, user->getLoc(), input.getType(), input);
  user->setOperand(index, copy.getResult());
  return copy.getResult();
}

/// Inserts the copies that let each class share one set of buffers.
void insertCopies(ProgramOp program) {
  SmallVector<Operation *> ops;
  program.getBody().walk([&](Operation *op) {
    if (isa<AdvanceOp, CondOp, DeviceLoopOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    if (auto advance = dyn_cast<AdvanceOp>(op)) {
      // The kernel updates the slots in place.
      if (usedAfter(advance.getSlots(), advance))
        copyOperand(advance, 0, advance);
      continue;
    }
    if (auto cond = dyn_cast<CondOp>(op)) {
      // The body writes the else operands' buffers.
      for (unsigned i = 0, e = cond.getPassthru().size(); i < e; ++i)
        if (usedAfter(cond.getPassthru()[i], cond))
          copyOperand(cond, 1 + i, cond);
      continue;
    }
    auto loop = cast<DeviceLoopOp>(op);
    Block &body = loop.getBody().front();
    auto yield = cast<DeviceYieldOp>(body.getTerminator());
    // Inits: the loop overwrites them, so they may not be read afterwards,
    // inside the loop, or be passed twice.
    llvm::SmallPtrSet<Value, 8> seen;
    for (unsigned i = 0, e = loop->getNumOperands(); i < e; ++i) {
      Value init = loop->getOperand(i);
      bool readInside = llvm::any_of(init.getUsers(), [&](Operation *user) {
        return user != loop && loop->isAncestor(user);
      });
      if (!seen.insert(init).second || readInside || usedAfter(init, loop))
        copyOperand(loop, i, loop);
    }
    // Yielded values overwrite their block argument when defined.
    for (unsigned i = 0, e = yield->getNumOperands(); i < e; ++i) {
      Value next = yield->getOperand(i);
      BlockArgument arg = i == 0 ? BlockArgument() : body.getArgument(i - 1);
      if (arg && next == arg)
        continue;
      Operation *def = next.getDefiningOp();
      Operation *defInBody = def ? body.findAncestorOpInBlock(*def) : nullptr;
      bool conflict = !defInBody || (arg && usedAfter(arg, defInBody)) ||
                      llvm::count(yield->getOperands(), next) > 1;
      if (conflict)
        copyOperand(yield, i, yield);
    }
  }
}

/// Union-find over values.
class ValueClasses {
public:
  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }
  void unite(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent[rb] = ra;
  }

private:
  llvm::DenseMap<Value, Value> parent;
};

struct EvalPlanBuffersPass
    : public eval::impl::EvalPlanBuffersPassBase<EvalPlanBuffersPass> {
  using EvalPlanBuffersPassBase::EvalPlanBuffersPassBase;
  /// matmul, resolved (auto: chooseMatmul): "tf32x3" or "f16x3", the
  /// linear layers get fragment tables for the tensor cores; "fma", their
  /// transposes.
  std::string resolvedMatmul;
  bool tensorCores() const { return onTensorCores(resolvedMatmul); }

  void runOnOperation() override {
    ProgramOp program = getOperation();
    if (program.getProofLoop()) {
      program.emitOpError("eval-plan-buffers needs the fused step (run "
                          "eval-fuse-step first)");
      return signalPassFailure();
    }
    if (matmul != kMatmulFma && matmul != kMatmulTf32x3 &&
        matmul != kMatmulF16x3 && matmul != kAutoWord) {
      program.emitOpError() << "eval-plan-buffers: unknown matmul '" << matmul
                            << "' (fma, tf32x3, f16x3, auto)";
      return signalPassFailure();
    }
    resolvedMatmul =
        (matmul == kAutoWord ? chooseMatmul(program) : StringRef(matmul)).str();
    if (!program.getBody().front().getOps<BufferOp>().empty())
      return; // already planned
    insertCopies(program);
    if (failed(assignBuffers(program)) || failed(assignWeights(program)))
      return signalPassFailure();
  }

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  LogicalResult assignBuffers(ProgramOp program) {
    ValueClasses classes;
    SmallVector<Value> values; // in program order
    llvm::DenseMap<Value, std::string> tensorRoles;
    program.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<EncoderOp>(op))
        return WalkResult::skip();
      if (auto loop = dyn_cast<DeviceLoopOp>(op))
        for (BlockArgument arg : loop.getBody().getArguments())
          values.push_back(arg);
      if (isa<KnowledgeBaseOp, CandidatePoolOp, InitSlotsOp, EngineOp,
              ScoreSelectOp, AdvanceOp, CondOp, CopyOp>(op))
        llvm::append_range(values, op->getResults());
      if (auto score = dyn_cast<ScoreSelectOp>(op)) {
        tensorRoles[score.getAction()] = "action";
        tensorRoles[score.getLogp()] = "action_logp";
      }
      // The sharing rules of the file comment.
      if (auto advance = dyn_cast<AdvanceOp>(op))
        classes.unite(advance.getSlots(), advance.getResult());
      if (auto cond = dyn_cast<CondOp>(op)) {
        auto yield = cast<CondYieldOp>(cond.getBody().front().getTerminator());
        for (auto [i, result] : llvm::enumerate(cond.getResults())) {
          classes.unite(result, cond.getPassthru()[i]);
          classes.unite(result, yield.getValues()[i]);
        }
      }
      if (auto copy = dyn_cast<CopyOp>(op))
        tensorRoles[copy.getResult()] = tensorRoles.lookup(copy.getInput());
      if (auto loop = dyn_cast<DeviceLoopOp>(op)) {
        Block &body = loop.getBody().front();
        auto yield = cast<DeviceYieldOp>(body.getTerminator());
        classes.unite(loop.getFlag(), yield.getFlag());
        for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
          classes.unite(arg, loop.getInits()[i]);
          classes.unite(arg, yield.getValues()[i]);
        }
      }
      return WalkResult::advance();
    });

    // Name and declare one set of buffers per class, in program order.
    OpBuilder builder = afterPrologueOps(program);
    insertionPoint = builder.saveInsertionPoint();

    llvm::DenseMap<Value, ArrayAttr> classBuffers;
    for (Value value : values) {
      Value root = classes.find(value);
      if (classBuffers.count(root))
        continue;
      std::string role = tensorRoles.lookup(value);
      FailureOr<SmallVector<BufferComponent>> components =
          getBufferComponents(value.getType(), role);
      if (failed(components)) {
        Operation *at = value.getDefiningOp()
                            ? value.getDefiningOp()
                            : value.getParentBlock()->getParentOp();
        return at->emitOpError() << "eval-plan-buffers: no buffer form for a "
                                    "value of type "
                                 << value.getType();
      }
      SmallVector<Attribute> refs;
      for (const BufferComponent &c : *components)
        refs.push_back(declare(program, c.role, c.dtype, c.elements, c.init));
      classBuffers[root] = builder.getArrayAttr(refs);
    }

    // Annotate every op with the buffers of its results.
    auto listFor = [&](ValueRange range) {
      SmallVector<Attribute> lists;
      for (Value v : range)
        lists.push_back(classBuffers.lookup(classes.find(v)));
      return builder.getArrayAttr(lists);
    };
    for (Value value : values) {
      if (auto result = dyn_cast<OpResult>(value)) {
        Operation *op = result.getOwner();
        if (!op->hasAttr(kBuffersAttr))
          op->setAttr(kBuffersAttr, listFor(op->getResults()));
      } else {
        Operation *loop = cast<BlockArgument>(value).getOwner()->getParentOp();
        if (!loop->hasAttr(kArgBuffersAttr))
          loop->setAttr(kArgBuffersAttr,
                        listFor(loop->getRegion(0).getArguments()));
      }
    }
    return success();
  }

  /// Declares a buffer named `role` (or `role_<n>` if taken); returns its ref.
  FlatSymbolRefAttr declare(ProgramOp program, StringRef role, Type dtype,
                            ArrayRef<std::string> elements, StringRef init) {
    std::string name = role.str();
    for (int n = 1; !names.insert(name).second; ++n)
      name = role.str() + "_" + std::to_string(n);
    OpBuilder builder(program.getContext());
    builder.restoreInsertionPoint(insertionPoint);
    SmallVector<StringRef> factors(elements.begin(), elements.end());
    BufferOp::create(builder, program.getLoc(), name, dtype,
                     builder.getStrArrayAttr(factors), init);
    insertionPoint = builder.saveInsertionPoint();
    return FlatSymbolRefAttr::get(program.getContext(), name);
  }

  //===--------------------------------------------------------------------===//
  // Weights of the policy kernel
  //===--------------------------------------------------------------------===//

  LogicalResult assignWeights(ProgramOp program) {
    SmallVector<ScoreSelectOp> scores;
    program.walk([&](ScoreSelectOp op) { scores.push_back(op); });
    for (ScoreSelectOp score : scores) {
      auto encoder = cast<EncoderOp>(
          SymbolTable::lookupSymbolIn(program, score.getEncoderAttr()));
      SmallVector<NamedAttribute> entries;
      auto bind = [&](StringRef name, Type dtype, StringRef tensor,
                      ArrayRef<std::string> elements) {
        FlatSymbolRefAttr ref = weightBuffer(program, tensor, dtype, elements);
        entries.push_back(
            NamedAttribute(StringAttr::get(&getContext(), name), ref));
      };
      Type f32 = Float32Type::get(&getContext());
      int64_t atoms = encoder.getStateType().getAtoms();
      for (Operation &op : encoder.getBody().front()) {
        if (auto embed = dyn_cast<FoldedAtomEmbedOp>(op)) {
          std::string w = std::to_string(embed.getType().getDimSize(1));
          std::string varRows = std::to_string(2 * atoms);
          bind(embed.getPredProj(), f32, embed.getPredProj(), {"R2", w});
          bind(embed.getArg0Const(), f32, embed.getArg0Const(), {"E", w});
          bind(embed.getArg1Const(), f32, embed.getArg1Const(), {"E", w});
          bind(embed.getArg0Var(), f32, embed.getArg0Var(), {varRows, w});
          bind(embed.getArg1Var(), f32, embed.getArg1Var(), {varRows, w});
        } else if (auto linear = dyn_cast<LinearOp>(op)) {
          int64_t in = linear.getInput().getType().getDimSize(0);
          int64_t out = linear.getType().getDimSize(0);
          if (tensorCores()) {
            // kernel_abi.h's mma tiles.
            bool f16 = resolvedMatmul == kMatmulF16x3;
            if (in % proofc_abi::mmaK(f16) != 0 || out % proofc_abi::kMmaN != 0)
              return linear.emitOpError()
                     << "matmul=" << resolvedMatmul
                     << (f16 ? " needs linear layers whose input width is a "
                               "multiple of 16 and output width a multiple "
                               "of 8 (the mma tile), got "
                             : " needs linear layers whose widths are "
                               "multiples of 8 (the mma tile), got ")
                     << in << " -> " << out
                     << (f16 ? " (use matmul=tf32x3 or fma)"
                             : " (use matmul=fma)");
            bind(linear.getWeight(), f32,
                 f16 ? weightForm<SplitF16WeightOp>(program, linear, ".f16", in,
                                                    out)
                     : weightForm<SplitTf32WeightOp>(program, linear, ".tf32",
                                                     in, out),
                 {std::to_string(proofc_abi::fragmentWordsPerElement(f16) * in *
                                 out)});
          } else {
            bind(linear.getWeight(), f32,
                 transposeWeight(program, linear, in, out),
                 {std::to_string(in), std::to_string(out)});
          }
          bind(linear.getBias(), f32, linear.getBias(), {std::to_string(out)});
        } else if (auto norm = dyn_cast<LayerNormOp>(op)) {
          std::string w = std::to_string(norm.getType().getDimSize(0));
          bind(norm.getWeight(), f32, norm.getWeight(), {w});
          bind(norm.getBias(), f32, norm.getBias(), {w});
        } else if (isa<AtomEmbedOp>(op)) {
          return op.emitOpError("eval-plan-buffers: the policy kernel reads "
                                "folded tables (run eval-fold-atom-embedding "
                                "first)");
        } else if (!isa<ReluOp, SumAtomsOp, ReturnOp>(op)) {
          return op.emitOpError("eval-plan-buffers: not an encoder op the "
                                "policy kernel implements");
        }
      }
      if (tensorCores() && atomLayer)
        if (auto table = foldAtomLayer(program, encoder))
          bind(table->first, f32, table->first,
               {"AL", std::to_string(table->second)});
      score->setAttr(kWeightBuffersAttr,
                     DictionaryAttr::get(&getContext(), entries));
    }
    return success();
  }

  /// The buffer holding tensor `tensor` (init "weights:<tensor>").
  FlatSymbolRefAttr weightBuffer(ProgramOp program, StringRef tensor,
                                 Type dtype, ArrayRef<std::string> elements) {
    auto it = weightBuffers.find(tensor);
    if (it != weightBuffers.end())
      return it->second;
    FlatSymbolRefAttr ref =
        declare(program, "w_" + sanitizeBufferName(tensor), dtype, elements,
                ("weights:" + tensor).str());
    weightBuffers[tensor] = ref;
    return ref;
  }

  /// A builder after the program's leading prologue ops (the weight tables
  /// made when the weights load), where new ones and the buffers go.
  static OpBuilder afterPrologueOps(ProgramOp program) {
    Block &block = program.getBody().front();
    OpBuilder builder = OpBuilder::atBlockBegin(&block);
    while (builder.getInsertionPoint() != block.end() &&
           isa<FoldColumnsOp, TransposeWeightOp, SplitTf32WeightOp,
               SplitF16WeightOp, FoldAtomLayerOp>(*builder.getInsertionPoint()))
      builder.setInsertionPointAfter(&*builder.getInsertionPoint());
    return builder;
  }

  /// Makes (once) the eval.fold_atom_layer table of `encoder` when its ops
  /// are folded_atom_embed, [relu], sum_atoms, then a linear whose input and
  /// output are the atoms' width; returns its name and width, or nothing
  /// for another encoder.
  std::optional<std::pair<std::string, int64_t>>
  foldAtomLayer(ProgramOp program, EncoderOp encoder) {
    FoldedAtomEmbedOp embed;
    bool relu = false, summed = false;
    LinearOp linear;
    for (Operation &op : encoder.getBody().front()) {
      if (auto e = dyn_cast<FoldedAtomEmbedOp>(op)) {
        embed = e;
      } else if (isa<ReluOp>(op) && embed && !summed) {
        relu = true;
      } else if (isa<SumAtomsOp>(op) && embed) {
        summed = true;
      } else {
        linear = dyn_cast<LinearOp>(op);
        break;
      }
    }
    if (!embed || !summed || !linear)
      return std::nullopt;
    int64_t width = embed.getType().getDimSize(1);
    if (linear.getInput().getType().getDimSize(0) != width ||
        linear.getType().getDimSize(0) != width)
      return std::nullopt;
    std::string dst = (linear.getWeight() + ".atom_layer").str();
    for (auto op : program.getBody().front().getOps<FoldAtomLayerOp>())
      if (op.getDst() == dst)
        return std::make_pair(dst, width);
    OpBuilder builder = afterPrologueOps(program);
    FoldAtomLayerOp::create(builder, linear.getLoc(), dst, embed.getPredProj(),
                            embed.getArg0Const(), embed.getArg1Const(),
                            embed.getArg0Var(), embed.getArg1Var(),
                            linear.getWeight(), relu, width);
    return std::make_pair(dst, width);
  }

  /// Makes (once) the transposed copy of `linear`'s weight; returns its name.
  std::string transposeWeight(ProgramOp program, LinearOp linear, int64_t in,
                              int64_t out) {
    return weightForm<TransposeWeightOp>(program, linear, ".T", in, out);
  }

  /// The prologue op OpTy (dst, table, rows = out, cols = in) that makes
  /// `linear`'s weight in the form the kernel reads, named weight + suffix,
  /// once per weight.
  template <typename OpTy>
  std::string weightForm(ProgramOp program, LinearOp linear, StringRef suffix,
                         int64_t in, int64_t out) {
    std::string dst = (linear.getWeight() + suffix).str();
    for (auto op : program.getBody().front().getOps<OpTy>())
      if (op.getDst() == dst)
        return dst;
    OpBuilder builder = afterPrologueOps(program);
    OpTy::create(builder, linear.getLoc(), dst, linear.getWeight(), out, in);
    return dst;
  }

  llvm::StringSet<> names;
  llvm::StringMap<FlatSymbolRefAttr> weightBuffers;
  OpBuilder::InsertPoint insertionPoint;
};

} // namespace
