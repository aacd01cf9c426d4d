//===- PolicyKernel.cpp - eval.score_select as a gpu.func -----------------===//
//
// Blocks of `groups` warps, B x parts of them: a slot's children are spread
// over `parts` blocks whose logits meet in a global row. A block encodes the
// parent (row 0) and up to rows - 1 children as the rows of a register-tiled
// matrix: Q threads share a row, each owning F consecutive features of T
// rows (d = 64: Q = 16, F = 4, so a warp holds 2 x T rows). A row never
// leaves its warp, so encoding needs no block barrier:
//
//   atoms     pre = (pred_proj[p] + arg0[a]) + arg1[b]   (p < R relations,
//             else the predicate row only), relu if the encoder has it, summed
//             over the goals; the state's words two at a time, 16-byte loads
//             of table rows at this thread's column; no branches and no
//             per-feature selects: TRUE/FALSE scale their argument rows and
//             padding its atom by 0 in an fma (exact: x * 1 + y rounds as
//             x + y), with every row index clamped in bounds. With the
//             tensor cores and an eval.fold_atom_layer table (N = "sym:AN"
//             != 0 at run time) a row is instead the sum of one table row
//             per atom, which is the first linear before its bias
//   Linear    the T rows go through the warp's workgroup rows (bar.warp.sync);
//             y = bias + sum_i x[i] * Wt[i][:] by fma: per V = 4 inputs, one
//             vector load per row and V weight-row loads feed T*V*F fmas
//             (Wt = [in, out] from eval.transpose_weight). Or, when the plan
//             gives TF32 or f16 fragments (eval.split_tf32_weight,
//             eval.split_f16_weight), on the tensor cores: the warp's 16 rows
//             are one m16 tile, three mma.sync per tile and k-step (3xTF32 or
//             3xF16: each operand in two parts), and the values stay in the
//             accumulator layout for the layers after it (linearTensorCores)
//   LayerNorm sums over the row's Q threads by butterfly shuffles; 1/sqrt is
//             sqrt.rn + div.rn, correctly rounded like the host's 1.f / sqrt
//   dot       with enc(parent) (through workgroup memory, one barrier), a
//             butterfly, times the scale, into the logits row
//
// Then warp 0 applies spec §4 exactly: the max (a butterfly of maxnum, exact),
// the threshold m - 1e-5 * max(1, |m|) in double, the smallest index at or
// above it (a butterfly of min), and log_softmax in double through libdevice's
// exp/log (__nv_exp/__nv_log): the host's selectAction, reductions aside.
// A slot with one successor gets action 0 and log-probability 0 unencoded.
// Every block barrier is reached by every thread of the block.
// This file is the entry point and the kernel's ABI: it checks the op and
// its weights' plan, chooses the tiling, sizes the shared memory, spells
// the launch's arguments (kernel_abi.h's order) and declares slot.cu's
// function; the generator's parts are in PolicyKernel/ (KernelGenerator.h
// lists them).
//
//===----------------------------------------------------------------------===//
#include "PolicyKernel.h"

#include "PolicyKernel/KernelGenerator.h"

#include "proofc/Dialect/Eval/Transforms/GpuHeuristics.h"
#include "proofc/Dialect/Eval/Transforms/ValueBuffers.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/MathExtras.h"

#include <string>

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

FailureOr<PolicyKernel> mlir::eval::buildPolicyKernel(
    ScoreSelectOp op, gpu::GPUModuleOp module, StringRef name, StringRef guard,
    int64_t groups, int64_t statesPerThread, int64_t minBlocksPerSm,
    StringRef logitsBuffer, StringRef arrivalsBuffer,
    StringRef policyGridBuffer, StringRef policyListBuffer,
    int64_t maxSharedPerBlock, ArrayRef<std::string> slotStepArgs,
    bool advances) {
  auto program = op->getParentOfType<ProgramOp>();
  auto encoder = dyn_cast_or_null<EncoderOp>(
      SymbolTable::lookupSymbolIn(program, op.getEncoderAttr()));
  if (!encoder)
    return op.emitOpError() << op.getEncoderAttr() << " is not an encoder";
  FailureOr<EncoderShape> shape = describeEncoder(op, encoder);
  if (failed(shape))
    return failure();

  int64_t A = program.getAAttr().getInt(), S = program.getSAttr().getInt(),
          B = program.getBAttr().getInt();
  bool persistent = !slotStepArgs.empty() && !advances;
  if (groups < (persistent ? 0 : 1) || groups > 32)
    return op.emitOpError() << "the GPU policy kernel takes 1 to 32 warps per "
                               "block (--groups), got "
                            << groups;
  // The kernel reads each linear weight as Wt [in, out] (fma) or as TF32 or
  // f16 fragments (tensor cores), as eval-plan-buffers planned it; one form
  // for all layers.
  using Matmul = Tiling::Matmul;
  SmallVector<Matmul> forms;
  for (const VectorLayer &layer : shape->layers) {
    if (layer.kind != VectorLayer::Linear)
      continue;
    FailureOr<BufferOp> weight = getWeightBuffer(op, layer.weight);
    if (failed(weight))
      return failure();
    StringRef init = weight->getInit();
    std::optional<Matmul> form;
    auto made = [&](auto t) {
      return t.getDst() == init && t.getTable() == layer.weight;
    };
    if (init.consume_front("weights:")) {
      for (auto t : program.getBody().front().getOps<TransposeWeightOp>())
        if (made(t))
          form = Matmul::Fma;
      for (auto t : program.getBody().front().getOps<SplitTf32WeightOp>())
        if (made(t))
          form = Matmul::Tf32x3;
      for (auto t : program.getBody().front().getOps<SplitF16WeightOp>())
        if (made(t))
          form = Matmul::F16x3;
    }
    if (!form)
      return op.emitOpError() << "linear weight '" << layer.weight
                              << "' must be planned as its transpose or as "
                                 "TF32 or f16 fragments (run "
                                 "eval-plan-buffers)";
    forms.push_back(*form);
  }
  if (llvm::any_of(forms, [&](Matmul m) { return m != forms.front(); }))
    return op.emitOpError() << "the linear weights must all be in one form "
                               "(all transposed, all TF32 fragments or all "
                               "f16 fragments)";
  Matmul matmul = forms.empty() ? Matmul::Fma : forms.front();
  Tiling tiling =
      chooseTiling(*shape, std::max<int64_t>(groups, 1), statesPerThread);
  if (matmul != Matmul::Fma) {
    // With the tensor cores a warp's rows are one m16 tile: T follows.
    if (kWarp % tiling.Q != 0 || 16 % tiling.R != 0 ||
        tiling.width() != shape->maxWidth)
      return op.emitOpError()
             << "the tensor-core policy kernel needs row groups that tile a "
                "warp's 16 rows, got width "
             << shape->maxWidth << " (plan with matmul=fma)";
    tiling.T = 16 / tiling.R; // a warp's R row groups x T rows = 16
    tiling.matmul = matmul;
  }
  // groups = 0: the fewest warps whose rows hold the parent and S children,
  // a power of two (the persistent kernel's block also derives: engine.cu's
  // items are one per thread, a power of two of them).
  if (groups == 0) {
    int64_t rowsPerWarp = tiling.rowsPerWarp();
    tiling.warps = std::min<int64_t>(
        32, llvm::PowerOf2Ceil((S + 1 + rowsPerWarp - 1) / rowsPerWarp));
  }
  if (tiling.F * tiling.T > 64)
    return op.emitOpError()
           << "the GPU policy kernel would hold " << tiling.F * tiling.T
           << " values per thread (width " << shape->maxWidth
           << "); lower the states per thread";
  if (tiling.rowsPerPass() < 2)
    return op.emitOpError() << "the GPU policy kernel needs at least 2 rows "
                               "per block (the parent and a child)";
  // Rows, enc(parent) and the "last block" flag; the persistent kernel's
  // (dynamic, up to the chip's limit with the slot function's few static
  // words): PersistentLayout; the advancing form's (dynamic, the derive's
  // scratch and the arguments over the rows): PolicyAdvanceLayout.
  int64_t sharedBytes =
      persistent ? persistentLayout(tiling, A, S, slotStepArgs.size()).total
      : advances ? policyAdvanceLayout(tiling, A, S, slotStepArgs.size()).total
                 : 4 * (tiling.rowsPerPass() * tiling.actStride() +
                        tiling.width() + 1);
  if (!persistent && sharedBytes > 48 * 1024)
    return op.emitOpError()
           << "the GPU policy kernel would need " << sharedBytes
           << " bytes of workgroup memory (limit 49152); "
              "lower S, the groups or the states per thread";

  // Arguments (docs/gpu-kernels.md): the guard and the slots' state, the
  // tables in encoder order, R, the scale, the outputs.
  FailureOr<SmallVector<BufferOp>> slots = getValueBuffers(op.getSlots(), op);
  FailureOr<SmallVector<BufferOp>> derived =
      getValueBuffers(op.getDerived(), op);
  FailureOr<SmallVector<BufferOp>> action = getValueBuffers(op.getAction(), op);
  FailureOr<SmallVector<BufferOp>> logp = getValueBuffers(op.getLogp(), op);
  if (failed(slots) || failed(derived) || failed(action) || failed(logp))
    return failure();
  auto buf = [](BufferOp buffer) {
    return ("buf:" + buffer.getSymName()).str();
  };
  PolicyKernel kernel;
  kernel.args = {("buf:" + guard).str(), buf((*slots)[0]), buf((*derived)[0]),
                 buf((*derived)[1]), buf((*slots)[1])};
  SmallVector<std::string> tables = {
      shape->embed.getPredProj().str(), shape->embed.getArg0Const().str(),
      shape->embed.getArg1Const().str(), shape->embed.getArg0Var().str(),
      shape->embed.getArg1Var().str()};
  for (const VectorLayer &layer : shape->layers)
    if (layer.kind != VectorLayer::Relu) {
      tables.push_back(layer.weight);
      tables.push_back(layer.bias);
    }
  // The eval.fold_atom_layer table of this encoder's first linear, when
  // the plan made one (tensor cores only): the table, then N ("sym:AN", 0
  // when the run's table exceeds its budget and the kernel does not fold).
  bool atomLayer = false;
  if (matmul != Matmul::Fma && !shape->layers.empty() &&
      shape->layers.front().kind == VectorLayer::Linear) {
    const VectorLayer &first = shape->layers.front();
    FoldedAtomEmbedOp embed = shape->embed;
    for (auto fold : program.getBody().front().getOps<FoldAtomLayerOp>())
      if (fold.getWeight() == first.weight &&
          fold.getPredProj() == embed.getPredProj() &&
          fold.getArg0Const() == embed.getArg0Const() &&
          fold.getArg1Const() == embed.getArg1Const() &&
          fold.getArg0Var() == embed.getArg0Var() &&
          fold.getArg1Var() == embed.getArg1Var() &&
          fold.getRelu() == shape->atomRelu &&
          fold.getWidthAttr().getInt() == shape->atomWidth &&
          first.in == shape->atomWidth && first.out == shape->atomWidth) {
        tables.push_back(fold.getDst().str());
        atomLayer = true;
        break;
      }
  }
  if (tiling.tensorCores())
    tiling.stepsInFlight = chooseStepsInFlight(
        B, persistent ? "persistent" : "step", plansAtomLayerTable(program));
  for (const std::string &table : tables) {
    FailureOr<BufferOp> buffer = getWeightBuffer(op, table);
    if (failed(buffer))
      return failure();
    kernel.args.push_back(buf(*buffer));
  }
  if (atomLayer)
    kernel.args.push_back("sym:AN");
  kernel.args.push_back("sym:R");
  SmallString<16> scale; // the shortest text that reads back as this float
  op.getScaleAttr().getValue().toString(scale);
  kernel.args.push_back(("f32:" + scale).str());
  kernel.args.push_back(buf((*action)[0]));
  kernel.args.push_back(buf((*logp)[0]));
  // The step form follows the step policy grid only where the
  // advance-engine resizes it (a grid buffer given).
  const bool gridWords = !persistent && !policyGridBuffer.empty();
  const bool slotList = persistent && !policyGridBuffer.empty();
  if (!persistent) {
    kernel.args.push_back(("buf:" + logitsBuffer).str());
    kernel.args.push_back(("buf:" + arrivalsBuffer).str());
  }
  if (gridWords || slotList) {
    kernel.args.push_back(("buf:" + policyGridBuffer).str());
    kernel.args.push_back(("buf:" + policyListBuffer).str());
  }
  // B x parts blocks: enough parts of childrenPerBlock() children for S.
  int64_t parts = tiling.parts(S);
  kernel.grid = {"B", std::to_string(parts)};
  kernel.parts = parts;
  kernel.childrenPerPart = tiling.childrenPerBlock();
  if (persistent && parts != 1)
    return op.emitOpError()
           << "the persistent policy kernel scores a slot's S = " << S
           << " children in one block, which holds "
           << tiling.childrenPerBlock() << " (raise --groups)";
  const int64_t persistentLimit =
      maxSharedPerBlock - proofc_abi::kSlotStaticSharedBytes;
  if (persistent && sharedBytes > persistentLimit)
    return op.emitOpError()
           << "the persistent policy kernel would need " << sharedBytes
           << " bytes of dynamic shared memory, its derive's included (limit "
           << persistentLimit << "); lower S, A or the groups";
  kernel.sharedBytes = persistent || advances ? sharedBytes : 0;
  if (advances && !gridWords)
    return op.emitOpError() << "the advancing policy kernel needs the step "
                               "policy grid's words and list";

  MLIRContext *ctx = op.getContext();
  auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  auto ptr = [&](Type element) {
    return MemRefType::get({}, element, MemRefLayoutAttrInterface(), global);
  };
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  SmallVector<Type> argTypes = {ptr(i32), ptr(i32), ptr(i32), ptr(i32),
                                ptr(i32)};
  argTypes.append(tables.size(), ptr(f32));
  if (atomLayer)
    argTypes.push_back(i32); // N
  argTypes.append({i32, f32, ptr(i32), ptr(f32)});
  if (!persistent)
    argTypes.append({ptr(f32), ptr(i32)}); // logits rows, arrival counts
  if (gridWords || slotList)
    argTypes.append({ptr(i32), ptr(i32)}); // the grid's words and list

  // The persistent form also takes slot.cu's arguments and hands them to
  // its advance-and-derive function, declared here and linked at load; the
  // advancing form its advance function's.
  LLVM::LLVMFuncOp slotStep, policyAdvance;
  if (persistent || advances) {
    const size_t first = kernel.args.size();
    for (const std::string &arg : slotStepArgs) {
      bool pointer = StringRef(arg).starts_with("buf:");
      argTypes.push_back(pointer ? Type(ptr(i32)) : i32);
      kernel.args.push_back(arg);
    }
    if (advances)
      kernel.args[first + proofc_abi::kPolicyAdvanceChildrenPerPart] =
          "i32:" + std::to_string(tiling.childrenPerBlock());
    SmallVector<Type> params = {i32, LLVM::LLVMPointerType::get(ctx)};
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    if (!SymbolTable::lookupSymbolIn(module, kPolicyRowsSymbol))
      LLVM::GlobalOp::create(
          builder, op.getLoc(),
          LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kPolicyRowsSymbol,
          /*value=*/Attribute(), /*alignment=*/16,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    StringRef callee = advances ? kPolicyAdvanceFunction : kSlotStepFunction;
    auto fn = dyn_cast_or_null<LLVM::LLVMFuncOp>(
        SymbolTable::lookupSymbolIn(module, callee));
    auto fnType = LLVM::LLVMFunctionType::get(i32, params);
    if (!fn) {
      fn = LLVM::LLVMFuncOp::create(builder, op.getLoc(), callee, fnType);
      // Every thread of the block calls it: it holds block barriers.
      fn.setPassthroughAttr(
          builder.getArrayAttr({builder.getStringAttr("convergent")}));
    } else if (fn.getFunctionType() != fnType) {
      return op.emitOpError()
             << "two policy kernels disagree on " << callee << "'s signature";
    }
    if (advances) {
      policyAdvance = fn;
    } else {
      slotStep = fn;
      kernel.grid = {"B"};
    }
  }

  KernelGenerator generator(op, *shape, A, S, B, tiling, module, slotStep,
                            policyAdvance, atomLayer, gridWords, slotList);
  kernel.func = generator.emit(name, argTypes);
  // ptxas caps the registers so that this many blocks fit on an SM.
  if (minBlocksPerSm > 0)
    kernel.func->setAttr("nvvm.minctasm",
                         IntegerAttr::get(IntegerType::get(op.getContext(), 32),
                                          minBlocksPerSm));
  kernel.block = tiling.threads();
  return kernel;
}
