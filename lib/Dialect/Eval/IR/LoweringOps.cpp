//===- LoweringOps.cpp - The eval dialect's lowered forms -----------------===//
//
// Verifiers of the ops the GPU pipeline creates. The names they carry
// (weights, buffers, launches, conds) are resolved here, so that a
// hand-written or mis-transformed plan fails at the op that is wrong rather
// than in the bundle or on the device.
//
//===----------------------------------------------------------------------===//
#include "VerifyUtils.h"

#include "proofc/contract/BundleNames.h"
#include "proofc/contract/kernel_abi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::eval;
using verifyutil::getStaticTensor;

#define GET_OP_CLASSES
#include "proofc/Dialect/Eval/EvalLoweringOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool mlir::eval::isLoweredProofLoop(Operation *op) {
  return isa<DeviceLoopOp, LaunchLoopOp>(op);
}

bool mlir::eval::isExtentSymbol(StringRef name) {
  return proofc::isBundleSymbol(std::string_view(name));
}

bool mlir::eval::isExtentFactor(StringRef factor) {
  if (isExtentSymbol(factor))
    return true;
  return !factor.empty() && factor.size() <= 18 &&
         llvm::all_of(factor, llvm::isDigit);
}

/// Fails unless every element of `extent` is an extent factor.
static LogicalResult verifyExtent(Operation *op, StringRef what,
                                  ArrayAttr extent) {
  if (extent.empty())
    return op->emitOpError() << what << " needs at least one factor";
  for (Attribute factor : extent) {
    StringRef text = cast<StringAttr>(factor).getValue();
    if (!isExtentFactor(text))
      return op->emitOpError()
             << what << " factor '" << text
             << "' is neither a decimal nor a run-time symbol (B, S, A, A2, "
                "D, d, L, E, R, R1, R2, RE1, NF, NR, NR1, NRB, N, MEMO, "
                "ACTIONS, AL, AN)";
  }
  return success();
}

/// The prologue op (fold_columns, transpose_weight, split_tf32_weight,
/// split_f16_weight, fold_atom_layer) of `program` making
/// tensor `name`, or null.
static Operation *findPrologueOp(ProgramOp program, StringRef name) {
  if (!program)
    return nullptr;
  for (Operation &op : program.getBody().front()) {
    if (auto fold = dyn_cast<FoldColumnsOp>(op); fold && fold.getDst() == name)
      return &op;
    if (auto t = dyn_cast<TransposeWeightOp>(op); t && t.getDst() == name)
      return &op;
    if (auto t = dyn_cast<SplitTf32WeightOp>(op); t && t.getDst() == name)
      return &op;
    if (auto t = dyn_cast<SplitF16WeightOp>(op); t && t.getDst() == name)
      return &op;
    if (auto t = dyn_cast<FoldAtomLayerOp>(op); t && t.getDst() == name)
      return &op;
  }
  return nullptr;
}

/// A prologue op's dst is new: not produced twice, not one of its inputs.
static LogicalResult verifyNewTensor(Operation *op, StringRef dst,
                                     ArrayRef<StringRef> inputs) {
  if (dst.empty())
    return op->emitOpError("attribute 'dst' must name the new tensor");
  for (StringRef input : inputs)
    if (input == dst)
      return op->emitOpError() << "'" << dst << "' is both made and read";
  auto program = op->getParentOfType<ProgramOp>();
  if (Operation *first = findPrologueOp(program, dst); first && first != op)
    return op->emitOpError() << "tensor '" << dst
                             << "' is already made by an earlier prologue op";
  return success();
}

//===----------------------------------------------------------------------===//
// Weight folding
//===----------------------------------------------------------------------===//

LogicalResult FoldColumnsOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyutil::verifyWeightName(op, "table", getTableAttr())) ||
      failed(verifyutil::verifyWeightName(op, "weight", getWeightAttr())) ||
      failed(
          verifyNewTensor(op, getDst(), {getTable(), getWeight(), getBias()})))
    return failure();
  if (getColBeginAttr().getInt() < 0 || getColsAttr().getInt() <= 0 ||
      getWidthAttr().getInt() <= 0)
    return emitOpError() << "needs col_begin >= 0, cols > 0 and width > 0, "
                            "got "
                         << getColBeginAttr().getInt() << ", "
                         << getColsAttr().getInt() << ", "
                         << getWidthAttr().getInt();
  if (!isExtentFactor(getRows()))
    return emitOpError() << "rows '" << getRows()
                         << "' is neither a decimal nor a run-time symbol";
  return success();
}

LogicalResult TransposeWeightOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyutil::verifyWeightName(op, "table", getTableAttr())) ||
      failed(verifyNewTensor(op, getDst(), {getTable()})))
    return failure();
  if (getRowsAttr().getInt() <= 0 || getColsAttr().getInt() <= 0)
    return emitOpError() << "needs positive rows and cols, got "
                         << getRowsAttr().getInt() << " x "
                         << getColsAttr().getInt();
  return success();
}

LogicalResult FoldAtomLayerOp::verify() {
  Operation *op = getOperation();
  const std::pair<StringRef, StringAttr> inputs[] = {
      {"pred_proj", getPredProjAttr()},   {"arg0_const", getArg0ConstAttr()},
      {"arg1_const", getArg1ConstAttr()}, {"arg0_var", getArg0VarAttr()},
      {"arg1_var", getArg1VarAttr()},     {"weight", getWeightAttr()}};
  SmallVector<StringRef> names;
  for (const auto &[what, name] : inputs) {
    if (failed(verifyutil::verifyWeightName(op, what, name)))
      return failure();
    names.push_back(name.getValue());
  }
  if (failed(verifyNewTensor(op, getDst(), names)))
    return failure();
  if (getWidthAttr().getInt() <= 0)
    return emitOpError() << "needs width > 0, got " << getWidthAttr().getInt();
  return success();
}

/// A split_*_weight op (`f16`: split_f16_weight): its table, its new dst,
/// and rows and cols that are positive multiples of kernel_abi.h's mma
/// tile's n and k.
static LogicalResult verifySplitWeight(Operation *op, StringAttr table,
                                       StringRef dst, int64_t rows,
                                       int64_t cols, bool f16) {
  if (failed(verifyutil::verifyWeightName(op, "table", table)) ||
      failed(verifyNewTensor(op, dst, {table.getValue()})))
    return failure();
  const int64_t n = proofc_abi::kMmaN, k = proofc_abi::mmaK(f16);
  if (rows <= 0 || cols <= 0 || rows % n != 0 || cols % k != 0)
    return op->emitOpError()
           << "needs positive rows, a multiple of " << n
           << ", and cols, a multiple of " << k << " (the mma tile), got "
           << rows << " x " << cols;
  return success();
}

LogicalResult SplitTf32WeightOp::verify() {
  return verifySplitWeight(getOperation(), getTableAttr(), getDst(),
                           getRowsAttr().getInt(), getColsAttr().getInt(),
                           /*f16=*/false);
}

LogicalResult SplitF16WeightOp::verify() {
  return verifySplitWeight(getOperation(), getTableAttr(), getDst(),
                           getRowsAttr().getInt(), getColsAttr().getInt(),
                           /*f16=*/true);
}

LogicalResult FoldedAtomEmbedOp::verify() {
  Operation *op = getOperation();
  struct Table {
    StringRef attr;
    StringAttr name;
    std::string rows; ///< the rows a fold_columns making it must have
  };
  int64_t atoms = getState().getType().getAtoms();
  Table tables[] = {{"pred_proj", getPredProjAttr(), "R2"},
                    {"arg0_const", getArg0ConstAttr(), "E"},
                    {"arg1_const", getArg1ConstAttr(), "E"},
                    {"arg0_var", getArg0VarAttr(), std::to_string(2 * atoms)},
                    {"arg1_var", getArg1VarAttr(), std::to_string(2 * atoms)}};
  for (const Table &table : tables)
    if (failed(verifyutil::verifyWeightName(op, table.attr, table.name)))
      return failure();
  RankedTensorType result = getStaticTensor(getType(), 2);
  if (!result || result.getDimSize(0) != atoms)
    return emitOpError() << "result must be a static tensor<" << atoms
                         << "xWxf32>, got " << getType();
  // Tables folded in this program must fit; others come from the weights
  // file and are checked against the data when they load.
  auto program = op->getParentOfType<ProgramOp>();
  for (const Table &table : tables) {
    auto fold = dyn_cast_or_null<FoldColumnsOp>(
        findPrologueOp(program, table.name.getValue()));
    if (!fold)
      continue;
    if (fold.getWidthAttr().getInt() != result.getDimSize(1) ||
        fold.getRows() != table.rows)
      return emitOpError() << table.attr << " '" << table.name.getValue()
                           << "' is folded as [" << fold.getRows() << ", "
                           << fold.getWidthAttr().getInt() << "], expected ["
                           << table.rows << ", " << result.getDimSize(1) << "]";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The fused step
//===----------------------------------------------------------------------===//

/// `what` has types `got` where `expected` are required.
static LogicalResult verifyTypes(Operation *op, StringRef what, TypeRange got,
                                 TypeRange expected, StringRef expectedWhat) {
  if (got == expected)
    return success();
  InFlightDiagnostic diag = op->emitOpError() << what << " (";
  llvm::interleaveComma(got, diag);
  diag << ") must have the types of " << expectedWhat << " (";
  llvm::interleaveComma(expected, diag);
  return diag << ")";
}

LogicalResult DeviceLoopOp::verify() {
  Block &body = getBody().front();
  if (failed(verifyTypes(*this, "the body's arguments", body.getArgumentTypes(),
                         getInits().getTypes(), "the inits")))
    return failure();
  if (body.empty() || !isa<DeviceYieldOp>(body.back()))
    return emitOpError("body must end in 'eval.device_yield'");
  return success();
}

LogicalResult DeviceYieldOp::verify() {
  auto loop = cast<DeviceLoopOp>((*this)->getParentOp());
  return verifyTypes(*this, "yielded values", getValues().getTypes(),
                     loop.getInits().getTypes(), "the loop's inits");
}

/// The B and A of `derived` must be those of `slots`.
static LogicalResult verifySameSlots(Operation *op, SlotsType slots,
                                     DerivedType derived) {
  if (derived.getSlots() == slots.getSlots() &&
      derived.getAtoms() == slots.getAtoms())
    return success();
  return op->emitOpError() << derived << " must have the B and A of " << slots;
}

LogicalResult EngineOp::verify() {
  return verifySameSlots(*this, getSlots().getType(), getDerived().getType());
}

/// tensor<B x i32> and tensor<B x f32>: the action and its logp.
static LogicalResult verifyActionTypes(Operation *op, int64_t slots,
                                       Type action, Type logp) {
  MLIRContext *ctx = op->getContext();
  auto expectedAction =
      RankedTensorType::get({slots}, IntegerType::get(ctx, 32));
  auto expectedLogp = RankedTensorType::get({slots}, Float32Type::get(ctx));
  if (action == expectedAction && logp == expectedLogp)
    return success();
  return op->emitOpError() << "action and logp must be " << expectedAction
                           << " and " << expectedLogp << ", got " << action
                           << " and " << logp;
}

LogicalResult ScoreSelectOp::verify() {
  SlotsType slots = getSlots().getType();
  if (failed(verifySameSlots(*this, slots, getDerived().getType())) ||
      failed(verifyActionTypes(*this, slots.getSlots(), getAction().getType(),
                               getLogp().getType())))
    return failure();
  double scale = getScaleAttr().getValueAsDouble();
  if (!(scale > 0) || !std::isfinite(scale))
    return emitOpError()
           << "attribute 'scale' must be positive and finite, got " << scale;
  if (failed(verifyutil::verifySelectModes(*this, getModesAttr())))
    return failure();
  auto program = (*this)->getParentOfType<ProgramOp>();
  auto encoder = dyn_cast_or_null<EncoderOp>(
      program ? SymbolTable::lookupSymbolIn(program, getEncoderAttr())
              : nullptr);
  if (!encoder)
    return emitOpError() << getEncoderAttr()
                         << " does not name an 'eval.encoder' of the program";
  if (StateType state = encoder.getStateType();
      state && state.getAtoms() != slots.getAtoms())
    return emitOpError() << getEncoderAttr() << " encodes " << state
                         << ", but the slots are " << slots;
  return success();
}

LogicalResult AdvanceOp::verify() {
  SlotsType slots = getSlots().getType();
  if (failed(verifySameSlots(*this, slots, getDerived().getType())) ||
      failed(verifyActionTypes(*this, slots.getSlots(), getAction().getType(),
                               getLogp().getType())))
    return failure();
  if (getResult().getType() != slots)
    return emitOpError() << "result " << getResult().getType() << " must be "
                         << slots;
  std::optional<verifyutil::ProgramShape> shape =
      verifyutil::getEnclosingProgramShape(*this);
  if (getMaxDepthAttr().getInt() <= 0 ||
      (shape && getMaxDepthAttr().getInt() != shape->D))
    return emitOpError() << "max_depth = " << getMaxDepthAttr().getInt()
                         << " must be the program's D"
                         << (shape ? " = " + std::to_string(shape->D) : "");
  return success();
}

//===----------------------------------------------------------------------===//
// The engine cond
//===----------------------------------------------------------------------===//

void CondOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   Value flag, ValueRange passthru) {
  build(builder, state, passthru.getTypes(), builder.getStringAttr(name), flag,
        passthru);
  state.regions.front()->emplaceBlock();
}

LogicalResult CondOp::verify() {
  if (getName().empty())
    return emitOpError("needs a name (the cond of the GPU plan)");
  if (failed(verifyTypes(*this, "results", getResults().getTypes(),
                         getPassthru().getTypes(), "the else operands")))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != 0)
    return emitOpError("body takes no arguments");
  if (body.empty() || !isa<CondYieldOp>(body.back()))
    return emitOpError("body must end in 'eval.cond_yield'");
  return success();
}

LogicalResult CondYieldOp::verify() {
  auto cond = cast<CondOp>((*this)->getParentOp());
  return verifyTypes(*this, "yielded values", getValues().getTypes(),
                     cond.getResults().getTypes(), "the cond's results");
}

//===----------------------------------------------------------------------===//
// The buffer plan and the launches
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  Type dtype = getDtype();
  bool isF32 = dtype.isF32();
  if (!isF32 && !dtype.isSignlessInteger(32))
    return emitOpError() << "dtype must be i32 or f32, got " << dtype;
  if (failed(verifyExtent(*this, "elements", getElements())))
    return failure();
  StringRef init = getInit();
  if (init.empty())
    return success();
  if (init.consume_front(proofc::binding::kWeightsPrefix)) {
    if (init.empty())
      return emitOpError("init 'weights:' needs a tensor name");
    if (!isF32)
      return emitOpError() << "a weights init needs dtype f32, got " << dtype;
    return success();
  }
  const proofc::BufferTable *known =
      proofc::binding::find(std::string_view(init));
  if (!known)
    return emitOpError() << "init '" << getInit()
                         << "' is neither empty, 'weights:<name>' nor a "
                            "binding of the runtime (kb.facts, pool.triples, "
                            "out.status, ...: BundleNames.h)";
  if (isF32 != (known->dtype == proofc::DType::F32))
    return emitOpError() << "binding '" << getInit() << "' needs dtype "
                         << (isF32 ? "i32" : "f32") << ", got " << dtype;
  return success();
}

LogicalResult CudaModuleOp::verify() {
  if (getSource().empty())
    return emitOpError("needs the name of a kernel template");
  for (Attribute option : getOptions())
    if (cast<StringAttr>(option).getValue().starts_with("-arch"))
      return emitOpError(
          "must not pass -arch (the runtime picks the device's)");
  for (Attribute option : getOptions())
    if (cast<StringAttr>(option).getValue().starts_with("-rdc"))
      return emitOpError("must not pass -rdc (the runtime adds -rdc=true to "
                         "a module with link_into)");
  return success();
}

/// The enclosing program, for ops that resolve names in it.
static FailureOr<ProgramOp> getProgram(Operation *op) {
  if (auto program = op->getParentOfType<ProgramOp>())
    return program;
  return op->emitOpError("must be inside an 'eval.program'");
}

/// The eval.buffer named `name` in `program`, or an error on `op`.
static FailureOr<BufferOp> lookupBuffer(Operation *op, ProgramOp program,
                                        StringRef name) {
  auto buffer = dyn_cast_or_null<BufferOp>(SymbolTable::lookupSymbolIn(
      program, StringAttr::get(op->getContext(), name)));
  if (!buffer)
    return op->emitOpError() << "'" << name
                             << "' does not name an 'eval.buffer' of the "
                                "program";
  return buffer;
}

/// A cond flag is an i32 buffer of one element.
static LogicalResult verifyFlag(Operation *op, FlatSymbolRefAttr flag) {
  FailureOr<ProgramOp> program = getProgram(op);
  if (failed(program))
    return failure();
  FailureOr<BufferOp> buffer = lookupBuffer(op, *program, flag.getValue());
  if (failed(buffer))
    return failure();
  ArrayAttr elements = buffer->getElements();
  if (!buffer->getDtype().isSignlessInteger(32) || elements.size() != 1 ||
      cast<StringAttr>(elements[0]).getValue() != "1")
    return op->emitOpError()
           << "flag " << flag << " must be an i32 buffer of [\"1\"]";
  return success();
}

/// The names of the conds (launch_cond and launch_loop) in `program`.
static bool hasCond(ProgramOp program, StringRef name) {
  bool found = false;
  program.walk([&](Operation *op) {
    if (auto c = dyn_cast<LaunchCondOp>(op))
      found |= c.getName() == name;
    else if (auto l = dyn_cast<LaunchLoopOp>(op))
      found |= l.getName() == name;
  });
  return found;
}

/// Cond names are unique in a program (they name graph conditional handles).
template <typename OpTy> static LogicalResult verifyCondName(OpTy op) {
  if (op.getName().empty())
    return op.emitOpError("needs a name");
  FailureOr<ProgramOp> program = getProgram(op);
  if (failed(program))
    return failure();
  // Reported once, at the later op (walk order: the earlier one is first).
  Operation *first = nullptr;
  program->walk<WalkOrder::PreOrder>([&](Operation *other) {
    auto c = dyn_cast<LaunchCondOp>(other);
    auto l = dyn_cast<LaunchLoopOp>(other);
    if (!first && ((c && c.getName() == op.getName()) ||
                   (l && l.getName() == op.getName())))
      first = other;
  });
  if (first != op.getOperation())
    return op.emitOpError()
           << "cond name '" << op.getName() << "' is used more than once";
  return verifyFlag(op, op.getFlagAttr());
}

LogicalResult LaunchCondOp::verify() { return verifyCondName(*this); }
LogicalResult LaunchLoopOp::verify() { return verifyCondName(*this); }

/// One launch argument in the bundle's `<kind>:<value>` form.
static LogicalResult verifyLaunchArg(LaunchOp launch, ProgramOp program,
                                     StringRef arg) {
  auto [kind, value] = arg.split(':');
  // "node:<launch>": the record of that launch's next graph node (the
  // kernel may resize it); "node:" alone, none.
  if (kind == "node" && arg.contains(':')) {
    if (value.empty())
      return success();
    StringRef name = value; // a lambda may not capture a structured binding
    if (program
            ->walk([&](LaunchOp other) {
              return other.getName() == name ? WalkResult::interrupt()
                                             : WalkResult::advance();
            })
            .wasInterrupted())
      return success();
    return launch.emitOpError()
           << "argument '" << arg << "' names no launch of the program";
  }
  if (value.empty())
    return launch.emitOpError()
           << "argument '" << arg << "' is not <kind>:<value>";
  if (kind == "buf")
    return lookupBuffer(launch, program, value);
  if (kind == "sym") {
    if (isExtentSymbol(value))
      return success();
    return launch.emitOpError()
           << "argument '" << arg << "' names no run-time symbol";
  }
  if (kind == "cond") {
    if (hasCond(program, value))
      return success();
    return launch.emitOpError()
           << "argument '" << arg << "' names no cond of the program";
  }
  if (kind == "i32") {
    int32_t unused;
    if (!value.getAsInteger(10, unused))
      return success();
    return launch.emitOpError()
           << "argument '" << arg << "' is not an int32 literal";
  }
  if (kind == "f32") {
    double unused;
    if (!value.getAsDouble(unused))
      return success();
    return launch.emitOpError()
           << "argument '" << arg << "' is not a float literal";
  }
  return launch.emitOpError() << "argument '" << arg
                              << "' has an unknown kind (buf, sym, i32, f32, "
                                 "cond, node)";
}

LogicalResult LaunchOp::verify() {
  if (getName().empty())
    return emitOpError("needs a name");
  FailureOr<ProgramOp> program = getProgram(*this);
  if (failed(program))
    return failure();
  LaunchOp first;
  program->walk<WalkOrder::PreOrder>([&](LaunchOp other) {
    if (!first && other.getName() == getName())
      first = other;
  });
  if (first != *this)
    return emitOpError() << "launch name '" << getName()
                         << "' is used more than once";

  // The module: a CUDA C++ template of the program, or a GPU module (PTX)
  // beside the program.
  SymbolRefAttr kernel = getKernel();
  if (kernel.getNestedReferences().size() != 1)
    return emitOpError() << "kernel " << kernel << " must be @module::@entry";
  Operation *module =
      SymbolTable::lookupSymbolIn(*program, kernel.getRootReference());
  if (module && !isa<CudaModuleOp>(module))
    return emitOpError() << "kernel module @"
                         << kernel.getRootReference().getValue()
                         << " is not an 'eval.cuda_module'";
  if (auto cuda = dyn_cast_or_null<CudaModuleOp>(module);
      cuda && cuda.getLinkIntoAttr())
    return emitOpError() << "kernel module @"
                         << kernel.getRootReference().getValue()
                         << " is linked into @"
                         << cuda.getLinkIntoAttr().getValue()
                         << " and has no kernels of its own";
  if (!module) {
    Operation *parent = (*program)->getParentOp();
    Operation *table =
        parent ? SymbolTable::getNearestSymbolTable(parent) : nullptr;
    Operation *gpu =
        table ? SymbolTable::lookupSymbolIn(table, kernel.getRootReference())
              : nullptr;
    StringRef name = gpu ? gpu->getName().getStringRef() : "";
    if (name != "gpu.module" && name != "gpu.binary")
      return emitOpError() << "kernel module @"
                           << kernel.getRootReference().getValue()
                           << " names neither an 'eval.cuda_module' of the "
                              "program nor a 'gpu.module' / 'gpu.binary'";
  }

  if (!proofc::launchRoleNamed(std::string_view(getRole())))
    return emitOpError() << "unknown role '" << getRole() << "' ("
                         << proofc::launchRoleList() << ")";
  if (failed(verifyExtent(*this, "grid", getGrid())))
    return failure();
  if (getBlockAttr().getInt() < 1 || getBlockAttr().getInt() > 1024 ||
      getSharedBytesAttr().getInt() < 0)
    return emitOpError() << "block must be in [1, 1024] and shared bytes >= "
                            "0, got "
                         << getBlockAttr().getInt() << " and "
                         << getSharedBytesAttr().getInt();
  for (Attribute arg : getArgs())
    if (failed(
            verifyLaunchArg(*this, *program, cast<StringAttr>(arg).getValue())))
      return failure();
  return success();
}
