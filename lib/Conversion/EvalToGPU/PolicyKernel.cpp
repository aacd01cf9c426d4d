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
//             x + y), with every row index clamped in bounds
//   Linear    the T rows go through the warp's workgroup rows (bar.warp.sync);
//             y = bias + sum_i x[i] * Wt[i][:] by fma: per V = 4 inputs, one
//             vector load per row and V weight-row loads feed T*V*F fmas
//             (Wt = [in, out] from eval.transpose_weight). Or, when the plan
//             gives TF32 fragments (eval.split_tf32_weight), on the tensor
//             cores: the warp's 16 rows are one m16 tile, three mma.sync per
//             tile (3xTF32, FP32 accurate), and the values stay in the
//             accumulator layout for the layers after it (linearTf32)
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
//
//===----------------------------------------------------------------------===//
#include "PolicyKernel.h"

#include "proofc/Dialect/Eval/Transforms/BufferPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::eval;

namespace {

/// The persistent kernel's dynamic shared memory (rows, enc(parent), logits,
/// the slot function's arguments).
constexpr StringLiteral kPolicyRowsSymbol = "proofc_policy_rows";

//===----------------------------------------------------------------------===//
// The encoder as the kernel sees it
//===----------------------------------------------------------------------===//

struct VectorLayer {
  enum Kind { Relu, Linear, LayerNorm } kind;
  int64_t in = 0, out = 0;
  std::string weight, bias; ///< Linear: W and b; LayerNorm: gamma and beta
  double eps = 0;
};

/// Most vector layers (relu, linear, layer_norm after sum_atoms) the kernel
/// is generated for. Each layer is unrolled into the one kernel function,
/// and LLVM's NVPTX back end (straight-line strength reduction, GVN, loop
/// strength reduction) takes time quadratic in that function's length:
/// `proofc compile` of 50 / 100 / 200 linear+relu layers took 4.8 / 13.5 /
/// 45 s, 1,000 over a minute. 128 layers (64 linear+relu pairs, 20 times the
/// reference policy's 6) compile in a few seconds.
constexpr size_t kMaxKernelLayers = 128;

struct EncoderShape {
  FoldedAtomEmbedOp embed;
  bool atomRelu = false;
  int64_t atomWidth = 0;
  SmallVector<VectorLayer> layers;
  int64_t outWidth = 0, maxWidth = 0;
};

/// The encoder must be: folded_atom_embed, [relu], sum_atoms, then relu /
/// linear / layer_norm on the vector, each op consuming the previous result.
FailureOr<EncoderShape> describeEncoder(ScoreSelectOp op, EncoderOp encoder) {
  auto unsupported = [&](Operation *at, StringRef why) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "the GPU policy kernel cannot encode with "
                              << op.getEncoderAttr() << ": " << why;
    diag.attachNote(at->getLoc()) << "here";
    return diag;
  };
  Block &body = encoder.getBody().front();
  Value current = body.getArgument(0);
  EncoderShape shape;
  enum Stage { Atoms, AtomsRelu, Vector } stage = Atoms;
  for (Operation &inner : body) {
    if (auto ret = dyn_cast<ReturnOp>(inner)) {
      if (stage != Vector || ret.getValue() != current)
        return unsupported(&inner, "it must return the end of the op chain");
      shape.outWidth = cast<RankedTensorType>(current.getType()).getDimSize(0);
      return shape;
    }
    if (inner.getNumOperands() != 1 || inner.getOperand(0) != current ||
        inner.getNumResults() != 1)
      return unsupported(&inner, "the encoder must be one chain of ops");
    current = inner.getResult(0);
    int64_t width = cast<RankedTensorType>(current.getType()).getShape().back();
    shape.maxWidth = std::max(shape.maxWidth, width);
    if (auto embed = dyn_cast<FoldedAtomEmbedOp>(inner)) {
      if (shape.embed)
        return unsupported(&inner, "more than one atom embedding");
      shape.embed = embed;
      shape.atomWidth = width;
      continue;
    }
    if (!shape.embed)
      return unsupported(&inner, "it must start with eval.folded_atom_embed "
                                 "(run eval-fold-atom-embedding)");
    if (isa<ReluOp>(inner) && stage == Atoms) {
      if (cast<RankedTensorType>(current.getType()).getRank() == 2) {
        stage = AtomsRelu;
        shape.atomRelu = true;
        continue;
      }
    }
    if (isa<SumAtomsOp>(inner) && stage != Vector) {
      stage = Vector;
      continue;
    }
    if (stage != Vector)
      return unsupported(&inner, "only relu may come between the atom "
                                 "embedding and eval.sum_atoms");
    VectorLayer layer;
    if (isa<ReluOp>(inner)) {
      layer.kind = VectorLayer::Relu;
      layer.in = layer.out = width;
    } else if (auto linear = dyn_cast<LinearOp>(inner)) {
      layer.kind = VectorLayer::Linear;
      layer.in = linear.getInput().getType().getDimSize(0);
      layer.out = width;
      layer.weight = linear.getWeight().str();
      layer.bias = linear.getBias().str();
    } else if (auto norm = dyn_cast<LayerNormOp>(inner)) {
      layer.kind = VectorLayer::LayerNorm;
      layer.in = layer.out = width;
      layer.weight = norm.getWeight().str();
      layer.bias = norm.getBias().str();
      layer.eps = norm.getEpsAttr().getValueAsDouble();
    } else {
      return unsupported(&inner, "not an encoder op the kernel implements");
    }
    if (shape.layers.size() == kMaxKernelLayers)
      return unsupported(&inner, "more than " +
                                     std::to_string(kMaxKernelLayers) +
                                     " layers (relu, linear, layer_norm) "
                                     "after eval.sum_atoms, the limit of the "
                                     "GPU compiler (docs/errors.md)");
    shape.layers.push_back(layer);
  }
  return unsupported(encoder, "it has no eval.return");
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

constexpr int64_t kWarp = 32;
/// States of at most this many atoms are encoded with the atom loop unrolled.
constexpr int64_t kUnrolledAtoms = 16;
/// Inputs of a linear layer per loop iteration (unrolled inside): enough
/// loads in flight without hoisting a whole layer's weights into registers.
constexpr int64_t kInputsPerIteration = 16;
/// Tensor-core k-steps per loop iteration (their loads issued together).
constexpr int64_t kStepsPerIteration = 2;

/// How a block tiles the (state, feature) plane: Q threads share a state row,
/// each owning F consecutive features of T rows; a warp holds R = 32 / Q row
/// groups. Rows are read with V-wide (16-byte when V = 4) loads.
struct Tiling {
  int64_t F = 1, V = 1, Q = 1, R = 1, T = 1, warps = 1;
  /// Linear layers by mma.sync 3xTF32: a warp's 16 rows are one m16 tile,
  /// and the activation rows are padded by 4 floats so that the A-fragment
  /// loads (8 rows x 4 columns) hit 32 different banks.
  bool tf32 = false;
  int64_t width() const { return Q * F; }
  int64_t actStride() const { return tf32 ? width() + 4 : width(); }
  int64_t rowsPerWarp() const { return R * T; }
  int64_t rowsPerPass() const { return warps * R * T; }
  /// Children per block: the first row of every block is the parent.
  int64_t childrenPerBlock() const { return rowsPerPass() - 1; }
  int64_t threads() const { return warps * kWarp; }
};

Tiling chooseTiling(const EncoderShape &shape, int64_t warps, int64_t T) {
  bool quads = shape.atomWidth % 4 == 0;
  for (const VectorLayer &layer : shape.layers)
    quads &= layer.in % 4 == 0 && layer.out % 4 == 0;
  Tiling t;
  t.V = quads ? 4 : 1;
  int64_t perThread = (shape.maxWidth + kWarp - 1) / kWarp; // so that Q <= 32
  t.F = std::max(t.V, (perThread + t.V - 1) / t.V * t.V);
  t.Q = static_cast<int64_t>(
      llvm::PowerOf2Ceil((shape.maxWidth + t.F - 1) / t.F));
  t.R = kWarp / t.Q;
  t.T = T;
  t.warps = warps;
  return t;
}

/// Byte offsets in the persistent kernel's dynamic shared memory: the
/// derive's (engine.cu's DeriveScratch, whose first member is the slot's
/// kept states and second its state, which the encoding reads from there)
/// at 0, then the rows, enc(parent), the logits and the slot function's
/// arguments.
struct PersistentLayout {
  int64_t rows = 0, parent = 0, logits = 0, args = 0, total = 0;
};

PersistentLayout persistentLayout(const Tiling &tl, int64_t A, int64_t S,
                                  int64_t numArgs) {
  PersistentLayout l;
  l.rows = static_cast<int64_t>(
      llvm::alignTo(deriveScratchBytes(A, S, tl.threads()), 16));
  l.parent = l.rows + 4 * tl.rowsPerPass() * tl.actStride();
  l.logits = l.parent + 4 * tl.width();
  l.args = l.logits + static_cast<int64_t>(llvm::alignTo(4 * S, 8));
  l.total = l.args + 8 * numArgs;
  return l;
}

class KernelGenerator {
public:
  KernelGenerator(ScoreSelectOp op, const EncoderShape &shape, int64_t A,
                  int64_t S, int64_t B, const Tiling &tiling,
                  gpu::GPUModuleOp module, LLVM::LLVMFuncOp slotStep)
      : op(op), shape(shape), A(A), S(S), B(B), tl(tiling), slotStep(slotStep),
        b(op.getLoc(), OpBuilder::atBlockEnd(module.getBody())) {
    MLIRContext *ctx = op.getContext();
    i1 = b.getI1Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    f64 = b.getF64Type();
    index = b.getIndexType();
    vec4 = VectorType::get({4}, f32);
    global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
    workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    globalPtr = LLVM::LLVMPointerType::get(ctx, 1);
    sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
  }

  /// Emits the kernel with arguments `argTypes` (docs/gpu-kernels.md).
  gpu::GPUFuncOp emit(StringRef name, ArrayRef<Type> argTypes) {
    auto fnType = b.getFunctionType(argTypes, {});
    // The persistent kernel's rows are in dynamic shared memory: the slot
    // function's static shared memory (the engine's) takes most of the 48 KiB
    // a kernel may declare statically.
    SmallVector<Type> shared;
    if (!slotStep)
      shared = {wgType({tl.rowsPerPass(), tl.actStride()}), // a warp's rows
                wgType({tl.width()}),                       // enc(parent)
                MemRefType::get({1}, i32, MemRefLayoutAttrInterface(),
                                workgroup)}; // "this block is the last"
    func = gpu::GPUFuncOp::create(b, name, fnType, shared);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    // Rows are read and written 16 bytes at a time.
    for (unsigned i = 0; i < shared.size(); ++i)
      func.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(16));
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(tl.threads()), 1, 1}));
    b.setInsertionPointToStart(&func.getBody().front());
    emitBody();
    return func;
  }

private:
  //===------------------------------------------------------------------===//
  // Small helpers
  //===------------------------------------------------------------------===//

  MemRefType wgType(ArrayRef<int64_t> shape) {
    return MemRefType::get(shape, f32, MemRefLayoutAttrInterface(), workgroup);
  }
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cI32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value cI64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  Value cF32(double v) {
    return arith::ConstantFloatOp::create(b, cast<FloatType>(f32),
                                          APFloat(static_cast<float>(v)));
  }
  Value cF64(double v) {
    return arith::ConstantFloatOp::create(b, cast<FloatType>(f64), APFloat(v));
  }
  Value toIndex(Value v) { return arith::IndexCastOp::create(b, index, v); }
  Value toI32(Value v) { return arith::IndexCastOp::create(b, i32, v); }
  Value toI64(Value v) { return arith::IndexCastOp::create(b, i64, v); }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value addI(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mulI(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value load(Value mem, ValueRange idx) {
    return memref::LoadOp::create(b, mem, idx);
  }
  void store(Value v, Value mem, ValueRange idx) {
    memref::StoreOp::create(b, v, mem, idx);
  }
  void barrier() { gpu::BarrierOp::create(b); }
  /// Orders a warp's workgroup-memory writes before its reads (and back).
  void syncWarp() { NVVM::SyncWarpOp::create(b, cI32(-1)); }

  /// A typed view of bare pointer `arg`: `sizes` static, or dynamic
  /// (index Values) where given.
  Value view(Value arg, Type element, ArrayRef<OpFoldResult> sizes) {
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> strides(sizes.size());
    int64_t stride = 1;
    for (int64_t i = sizes.size() - 1; i >= 0; --i) {
      strides[i] = b.getIndexAttr(stride);
      if (auto attr = dyn_cast<Attribute>(sizes[i]))
        stride *= cast<IntegerAttr>(attr).getInt();
      else
        assert(i == 0 && "only the leading extent may be dynamic");
    }
    for (OpFoldResult size : sizes)
      shape.push_back(isa<Attribute>(size)
                          ? cast<IntegerAttr>(cast<Attribute>(size)).getInt()
                          : ShapedType::kDynamic);
    auto type =
        MemRefType::get(shape, element, MemRefLayoutAttrInterface(), global);
    return memref::ReinterpretCastOp::create(b, type, arg, b.getIndexAttr(0),
                                             sizes, strides);
  }
  OpFoldResult fixed(int64_t v) { return b.getIndexAttr(v); }

  /// scf.if with results; `thenFn`/`elseFn` return the yielded values.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> thenFn,
                            function_ref<SmallVector<Value>()> elseFn) {
    auto ifOp = scf::IfOp::create(b, types, cond, /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, thenFn());
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, elseFn());
    }
    return ifOp.getResults();
  }
  /// scf.if without results.
  void ifThen(Value cond, function_ref<void()> thenFn) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    thenFn();
  }
  /// scf.for over [lb, ub) by step with loop-carried `inits`.
  SmallVector<Value>
  forLoop(Value lb, Value ub, Value step, ValueRange inits,
          function_ref<SmallVector<Value>(Value, ValueRange)> bodyFn) {
    auto forOp = scf::ForOp::create(
        b, lb, ub, step, inits,
        [&](OpBuilder &, Location, Value iv, ValueRange iters) {
          scf::YieldOp::create(b, bodyFn(iv, iters));
        });
    return forOp.getResults();
  }

  /// relu as the host computes it: x > 0 ? x : 0.
  Value relu(Value x) {
    Value zero = cF32(0);
    Value pos = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x, zero);
    return sel(pos, x, zero);
  }

  /// Butterfly over `lanes` (a power of two) aligned lanes of a warp.
  Value butterfly(Value v, int64_t lanes,
                  function_ref<Value(Value, Value)> combine) {
    for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(b, v, static_cast<int32_t>(offset),
                                            static_cast<int32_t>(kWarp),
                                            gpu::ShuffleMode::XOR);
      v = combine(v, shuffle.getShuffleResult());
    }
    return v;
  }
  Value warpReduce(Value v, function_ref<Value(Value, Value)> combine) {
    return butterfly(v, kWarp, combine);
  }
  /// The sum of `v` over the Q threads of this thread's state row; every one
  /// of them gets the same value (the butterfly is symmetric).
  Value rowSum(Value v) {
    return butterfly(v, tl.Q, [&](Value x, Value y) {
      return arith::AddFOp::create(b, x, y);
    });
  }

  //===------------------------------------------------------------------===//
  // Row access: F consecutive features from column col0 = (lane % Q) * F
  //===------------------------------------------------------------------===//

  /// The address (i64) of `mem`'s first element.
  Value baseAddress(Value mem) {
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, mem);
    return toI64(ptr);
  }
  /// `base` + (row * cols + col) * 4 for f32 elements; row, col index.
  Value elementAddress(Value base, Value row, int64_t cols, Value col) {
    Value offset = addI(mulI(row, cIdx(cols)), col);
    return addI(base, mulI(toI64(offset), cI64(4)));
  }
  /// This thread's F features of the f32 row at byte address `rowAddr`
  /// (width `width`; features past it read as 0). `shared` picks the
  /// address space; `invariant` marks read-only tables.
  SmallVector<Value> loadRow(Value rowAddr, int64_t width, bool shared,
                             bool invariant) {
    // A row's threads never reach past the width: no clamps or selects.
    if (tl.width() <= width)
      return loadColumns(addI(rowAddr, mulI(toI64(col0), cI64(4))), shared,
                         invariant);
    Type ptrType = shared ? sharedPtr : globalPtr;
    SmallVector<Value> values;
    Value zero = cF32(0);
    for (int64_t c = 0; c < tl.F; c += tl.V) {
      Value col = addI(col0, cIdx(c));
      Value inRange = cmpI(arith::CmpIPredicate::ult, col, cIdx(width));
      // Past the width the load is clamped into the row, then zeroed.
      Value clamped = arith::MinUIOp::create(b, col, cIdx(width - tl.V));
      Value addr = addI(rowAddr, mulI(toI64(clamped), cI64(4)));
      Value ptr = LLVM::IntToPtrOp::create(b, ptrType, addr);
      if (tl.V == 4) {
        Value v = LLVM::LoadOp::create(b, vec4, ptr, /*alignment=*/16,
                                       /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, invariant);
        for (int64_t e = 0; e < 4; ++e) {
          Value x = LLVM::ExtractElementOp::create(b, f32, v, cI32(e));
          values.push_back(sel(inRange, x, zero));
        }
      } else {
        Value x = LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4,
                                       /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, invariant);
        values.push_back(sel(inRange, x, zero));
      }
    }
    return values;
  }
  /// The F features at byte address `addr` (this thread's first column of
  /// a row it knows to be in range), V-wide loads.
  SmallVector<Value> loadColumns(Value addr, bool shared, bool invariant) {
    Type ptrType = shared ? sharedPtr : globalPtr;
    SmallVector<Value> values;
    for (int64_t c = 0; c < tl.F; c += tl.V) {
      Value ptr = LLVM::IntToPtrOp::create(b, ptrType, addI(addr, cI64(4 * c)));
      if (tl.V == 4) {
        Value v = LLVM::LoadOp::create(b, vec4, ptr, /*alignment=*/16,
                                       /*isVolatile=*/false,
                                       /*isNonTemporal=*/false, invariant);
        for (int64_t e = 0; e < 4; ++e)
          values.push_back(LLVM::ExtractElementOp::create(b, f32, v, cI32(e)));
      } else {
        values.push_back(LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4,
                                              /*isVolatile=*/false,
                                              /*isNonTemporal=*/false,
                                              invariant));
      }
    }
    return values;
  }
  /// `n` i32 words of a state row at byte address `addr` (8-byte aligned
  /// when n is even: state rows are 12 * A bytes apart), two per load where
  /// they can be; global memory, or (persistent) the derive's shared
  /// memory (stateSpace).
  SmallVector<Value> loadWords(Value addr, int64_t n) {
    auto vec2 = VectorType::get({2}, i32);
    bool pairs = n % 2 == 0;
    SmallVector<Value> words;
    for (int64_t i = 0; i < n; i += pairs ? 2 : 1) {
      Value ptr =
          LLVM::IntToPtrOp::create(b, stateSpace(), addI(addr, cI64(4 * i)));
      if (pairs) {
        Value v = LLVM::LoadOp::create(b, vec2, ptr, /*alignment=*/8);
        for (int64_t e = 0; e < 2; ++e)
          words.push_back(LLVM::ExtractElementOp::create(b, i32, v, cI32(e)));
      } else {
        words.push_back(LLVM::LoadOp::create(b, i32, ptr, /*alignment=*/4));
      }
    }
    return words;
  }
  /// Writes this thread's F features to the workgroup row at `rowAddr`.
  void storeRow(Value rowAddr, ArrayRef<Value> values) {
    for (int64_t c = 0; c < tl.F; c += tl.V) {
      Value addr = addI(rowAddr, mulI(toI64(addI(col0, cIdx(c))), cI64(4)));
      Value ptr = LLVM::IntToPtrOp::create(b, sharedPtr, addr);
      if (tl.V == 4) {
        Value v = LLVM::PoisonOp::create(b, vec4);
        for (int64_t e = 0; e < 4; ++e)
          v = LLVM::InsertElementOp::create(b, vec4, v, values[c + e], cI32(e));
        LLVM::StoreOp::create(b, v, ptr, /*alignment=*/16);
      } else {
        LLVM::StoreOp::create(b, values[c], ptr, /*alignment=*/4);
      }
    }
  }

  //===------------------------------------------------------------------===//
  // The kernel
  //===------------------------------------------------------------------===//

  void emitBody() {
    Block &entry = func.getBody().front();
    unsigned arg = 0;
    Value guardPtr = entry.getArgument(arg++);
    Value statePtr = entry.getArgument(arg++);
    Value derivedPtr = entry.getArgument(arg++);
    Value countPtr = entry.getArgument(arg++);
    Value candPtr = entry.getArgument(arg++);
    SmallVector<Value> tablePtrs;
    for (unsigned i = 0; i < numTables(); ++i)
      tablePtrs.push_back(entry.getArgument(arg++));
    numR = entry.getArgument(arg++);
    scale = entry.getArgument(arg++);
    Value actionPtr = entry.getArgument(arg++);
    Value logpPtr = entry.getArgument(arg++);
    // The step form's scratch, where a slot's blocks meet (the persistent
    // block is its slot's only one and keeps its logits in shared memory).
    Value logitsPtr, arrivalsPtr;
    if (!slotStep) {
      logitsPtr = entry.getArgument(arg++);
      arrivalsPtr = entry.getArgument(arg++);
    }

    SmallVector<Value> slotStepArgs(entry.getArguments().drop_front(arg));

    Value guard = load(guardPtr, {});
    // Block bid is part bid / B of slot bid % B (persistent: one part).
    Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value slot = arith::RemUIOp::create(b, bid, cIdx(B));
    Value part = arith::DivUIOp::create(b, bid, cIdx(B));
    Value slotCand = view(candPtr, i32, {fixed(B)});
    Value cand = load(slotCand, {slot});
    Value run = andI(cmpI(arith::CmpIPredicate::ne, guard, cI32(0)),
                     cmpI(arith::CmpIPredicate::sge, cand, cI32(0)));
    // Block-uniform: every thread of a block sees the same guard and slot.
    ifThen(run, [&] {
      makeViews(statePtr, derivedPtr, countPtr, tablePtrs, actionPtr, logpPtr);
      if (slotStep)
        return emitPersistentLoop(slot, part, slotStepArgs);
      logitsBase = baseAddress(logitsPtr);
      arrivals = view(arrivalsPtr, i32, {fixed(B)});
      emitSlot(slot, part);
    });
    gpu::ReturnOp::create(b);
  }

  /// The persistent kernel's dynamic shared memory (PersistentLayout).
  /// `extern __shared__`: it
  /// starts after all static shared memory, the linked function's included.
  void persistentSharedBases() {
    PersistentLayout l = persistentLayout(tl, A, S, numSlotStepArgs);
    Value dyn = LLVM::AddressOfOp::create(b, sharedPtr, kPolicyRowsSymbol);
    scratchBase = LLVM::PtrToIntOp::create(b, i64, dyn);
    actBase = addI(scratchBase, cI64(l.rows));
    parentBase = addI(scratchBase, cI64(l.parent));
    logitsShared = addI(scratchBase, cI64(l.logits));
    slotArgsShared = addI(scratchBase, cI64(l.args));
  }

  /// The persistent kernel's block: score the slot, then advance and derive
  /// it (slot.cu's function, linked in), until the pool is empty.
  void emitPersistentLoop(Value slot, Value part, ValueRange slotStepArgs) {
    // The function's arguments go through shared memory, 8 bytes each,
    // stored once by thread 0: a call with 29 parameters cost ~4k cycles
    // per step (spilled argument registers), one with 2 does not.
    numSlotStepArgs = static_cast<int64_t>(slotStepArgs.size());
    persistentSharedBases();
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    // The slot's first state and derived states (the init and engine
    // launches') into the derive's shared memory, where each later derive
    // leaves them (slot.cu).
    int64_t words = 3 * A;
    Value stateAddr =
        addI(baseAddress(state), mulI(toI64(slot), cI64(4 * words)));
    Value derivedAddr =
        addI(baseAddress(derived), mulI(toI64(slot), cI64(4 * S * words)));
    auto copyWord = [&](Value i, ValueRange) -> SmallVector<Value> {
      // Word i: derived[slot] for i < S * W, then state[slot]; the scratch
      // holds them in that order.
      Value inDerived = cmpI(arith::CmpIPredicate::ult, i, cIdx(S * words));
      Value offset = mulI(toI64(i), cI64(4));
      Value src = sel(inDerived, addI(derivedAddr, offset),
                      addI(stateAddr, addI(offset, cI64(-4 * S * words))));
      Value v = LLVM::LoadOp::create(
          b, i32, LLVM::IntToPtrOp::create(b, globalPtr, src), 4);
      Value dst =
          LLVM::IntToPtrOp::create(b, sharedPtr, addI(scratchBase, offset));
      LLVM::StoreOp::create(b, v, dst, 4);
      return {};
    };
    forLoop(tid, cIdx((S + 1) * words), cIdx(tl.threads()), {}, copyWord);
    barrier();
    ifThen(cmpI(arith::CmpIPredicate::eq, tid, cIdx(0)), [&] {
      for (auto [i, a] : llvm::enumerate(slotStepArgs)) {
        Value word = isa<MemRefType>(a.getType())
                         ? baseAddress(a)
                         : Value(arith::ExtSIOp::create(b, i64, a));
        Value addr = addI(slotArgsShared, cI64(8 * static_cast<int64_t>(i)));
        LLVM::StoreOp::create(b, word,
                              LLVM::IntToPtrOp::create(b, sharedPtr, addr), 8);
      }
    });
    Value argsPtr = LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext()),
        LLVM::IntToPtrOp::create(b, sharedPtr, slotArgsShared));
    SmallVector<Value> callArgs = {toI32(slot), argsPtr};
    auto loop = scf::WhileOp::create(b, TypeRange{}, ValueRange{});
    Block *before = b.createBlock(&loop.getBefore());
    b.setInsertionPointToStart(before);
    emitSlot(slot, part);
    // The select's action is written before thread 0 advances the slot.
    barrier();
    Value active = LLVM::CallOp::create(b, slotStep, callArgs).getResult();
    scf::ConditionOp::create(b, cmpI(arith::CmpIPredicate::ne, active, cI32(0)),
                             ValueRange{});
    Block *after = b.createBlock(&loop.getAfter());
    b.setInsertionPointToStart(after);
    scf::YieldOp::create(b, ValueRange{});
    b.setInsertionPointAfter(loop);
  }

  unsigned numTables() const {
    unsigned n = 5;
    for (const VectorLayer &layer : shape.layers)
      n += layer.kind == VectorLayer::Relu ? 0 : 2;
    return n;
  }

  void makeViews(Value statePtr, Value derivedPtr, Value countPtr,
                 ArrayRef<Value> tablePtrs, Value actionPtr, Value logpPtr) {
    state = view(statePtr, i32, {fixed(B), fixed(A), fixed(3)});
    derived = view(derivedPtr, i32, {fixed(B), fixed(S), fixed(A), fixed(3)});
    count = view(countPtr, i32, {fixed(B)});
    action = view(actionPtr, i32, {fixed(B)});
    actionLogp = view(logpPtr, f32, {fixed(B)});
    // Tables are read through 16-byte vector loads at computed addresses:
    // only their base addresses are kept. The kernel is not told E
    // (docs/gpu-kernels.md's signature): constant ids come from engine-made
    // states, so they are < E.
    for (unsigned i = 0; i < 5; ++i)
      atomTables[i] = baseAddress(tablePtrs[i]);
    unsigned next = 5;
    for (const VectorLayer &layer : shape.layers) {
      LayerTables tables;
      if (layer.kind != VectorLayer::Relu) {
        tables.weight = baseAddress(tablePtrs[next++]);
        tables.bias = baseAddress(tablePtrs[next++]);
      }
      layerTables.push_back(tables);
    }
  }

  void emitSlot(Value slot, Value part) {
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    lane = arith::RemUIOp::create(b, tid, cIdx(kWarp));
    warp = arith::DivUIOp::create(b, tid, cIdx(kWarp));
    Value rowGroup = arith::DivUIOp::create(b, lane, cIdx(tl.Q));
    featureThread = arith::RemUIOp::create(b, lane, cIdx(tl.Q));
    quadGroup = arith::DivUIOp::create(b, lane, cIdx(4));
    quadLane = arith::RemUIOp::create(b, lane, cIdx(4));
    col0 = mulI(featureThread, cIdx(tl.F));
    // Row t of this thread: the warp's R*T rows, T per row group.
    Value firstRow = addI(mulI(warp, cIdx(tl.rowsPerWarp())),
                          mulI(rowGroup, cIdx(tl.T)));
    rows.clear();
    for (int64_t t = 0; t < tl.T; ++t)
      rows.push_back(addI(firstRow, cIdx(t)));
    if (slotStep) {
      persistentSharedBases();
    } else {
      actBase = baseAddress(func.getWorkgroupAttributions()[0]);
      parentBase = baseAddress(func.getWorkgroupAttributions()[1]);
    }

    Value k = toIndex(load(count, {slot}));
    Value first = cmpI(arith::CmpIPredicate::eq, tid, cIdx(0));
    Value firstPart = cmpI(arith::CmpIPredicate::eq, part, cIdx(0));
    Value single = cmpI(arith::CmpIPredicate::ule, k, cIdx(1));
    // One successor (TRUE, FALSE or a lone state): action 0, log-probability
    // 0, without encoding anything (spec §4).
    ifThen(andI(andI(single, firstPart), first), [&] {
      store(cI32(0), action, {slot});
      store(cF32(0), actionLogp, {slot});
    });
    // The blocks this slot's k children need; the others return at once.
    Value parts = arith::DivUIOp::create(
        b, addI(k, cIdx(tl.childrenPerBlock() - 1)),
        cIdx(tl.childrenPerBlock()));
    Value busy = andI(cmpI(arith::CmpIPredicate::ugt, k, cIdx(1)),
                      cmpI(arith::CmpIPredicate::ult, part, parts));
    ifThen(busy, [&] { emitPart(slot, part, k, parts, tid); });
  }

  /// Part `part` of a slot: the parent (row 0) and the children
  /// part * (rows - 1) + row - 1; their logits go to the slot's global
  /// logits row, and the last of the slot's blocks to finish selects.
  void emitPart(Value slot, Value part, Value k, Value parts, Value tid) {
    Value childBase = mulI(part, cIdx(tl.childrenPerBlock()));
    SmallVector<Value> item, valid, childOf;
    for (int64_t t = 0; t < tl.T; ++t) {
      Value isParent = cmpI(arith::CmpIPredicate::eq, rows[t], cIdx(0));
      // Item 0 is the parent, item i child i - 1.
      Value child = childOfRow(rows[t], childBase);
      childOf.push_back(child);
      item.push_back(itemOfRow(rows[t], childBase));
      Value inList = cmpI(arith::CmpIPredicate::ult, child, k);
      valid.push_back(arith::OrIOp::create(b, isParent, inList));
    }
    // Warp-uniform: a warp whose rows are all past the list encodes nothing
    // (its workgroup rows are its own; no block barrier inside).
    Value used = addI(cIdx(1), arith::MinUIOp::create(
                                   b, arith::SubIOp::create(b, k, childBase),
                                   cIdx(tl.childrenPerBlock())));
    Value warpFirst = mulI(warp, cIdx(tl.rowsPerWarp()));
    Value warpBusy = cmpI(arith::CmpIPredicate::ult, warpFirst, used);
    blockUsed = used;
    // Q x F rows [T][F], or the C layout of the tensor-core layers.
    int64_t encCount = tl.tf32 ? shape.outWidth / 2 : tl.T * tl.F;
    SmallVector<Type> encTypes(encCount, f32);
    if (tl.tf32) {
      // Every warp embeds rows (the rows in use spread over all of them),
      // then the warps whose m16 tile holds rows run the layers.
      encode(slot, item, childBase);
      SmallVector<Value> enc = ifElse(
          warpBusy, encTypes, [&] { return vectorLayersTf32(); },
          [&] { return SmallVector<Value>(encCount, cF32(0)); });
      emitLogitsC(slot, childBase, k, enc);
      return emitArrival(slot, k, parts, tid);
    }
    SmallVector<Value> enc = ifElse(
        warpBusy, encTypes, [&] { return encode(slot, item, childBase); },
        [&] { return SmallVector<Value>(encCount, cF32(0)); });

    // enc(parent) = row 0, shared through workgroup memory.
    ifThen(cmpI(arith::CmpIPredicate::eq, rows[0], cIdx(0)), [&] {
      storeRow(parentBase, ArrayRef<Value>(enc).take_front(tl.F));
    });
    barrier();
    SmallVector<Value> parentFeatures =
        loadRow(parentBase, shape.outWidth, /*shared=*/true, false);
    Value firstFeature =
        cmpI(arith::CmpIPredicate::eq, featureThread, cIdx(0));
    for (int64_t t = 0; t < tl.T; ++t) {
      Value dot = cF32(0);
      for (int64_t c = 0; c < tl.F; ++c)
        dot =
            math::FmaOp::create(b, enc[t * tl.F + c], parentFeatures[c], dot);
      dot = rowSum(dot);
      Value isChild = andI(valid[t],
                           cmpI(arith::CmpIPredicate::ugt, rows[t], cIdx(0)));
      ifThen(andI(isChild, firstFeature), [&] {
        Value logit = arith::MulFOp::create(b, dot, scale);
        LLVM::StoreOp::create(b, logit, logitAddress(slot, childOf[t]), 4);
      });
    }

    emitArrival(slot, k, parts, tid);
  }

  /// The logits of the C-layout encodings `enc`: enc(parent) (block row 0,
  /// the quad g = 0 of warp 0) through workgroup memory, then each row's dot
  /// as a quad sum, stored by the row's first lane.
  void emitLogitsC(Value slot, Value childBase, Value k, ArrayRef<Value> enc) {
    int64_t width = shape.outWidth;
    Value isParentQuad =
        andI(cmpI(arith::CmpIPredicate::eq, warp, cIdx(0)),
             cmpI(arith::CmpIPredicate::eq, quadGroup, cIdx(0)));
    ifThen(isParentQuad, [&] {
      for (int64_t nt = 0; nt < width / 8; ++nt) {
        Value col = addI(cIdx(8 * nt), mulI(quadLane, cIdx(2)));
        Value addr = addI(parentBase, mulI(toI64(col), cI64(4)));
        storePair(addr, enc[cIndex(width, 0, nt, 0)],
                  enc[cIndex(width, 0, nt, 1)]);
      }
    });
    barrier();
    SmallVector<Value> parent =
        loadCColumns(parentBase, width, /*shared=*/true, false);
    Value firstLane = cmpI(arith::CmpIPredicate::eq, quadLane, cIdx(0));
    for (int64_t h = 0; h < 2; ++h) {
      Value dot = cF32(0);
      for (int64_t i = 0; i < width / 4; ++i)
        dot = math::FmaOp::create(b, enc[h * (width / 4) + i], parent[i], dot);
      dot = quadSum(dot);
      Value row = cRow(h);
      Value child = childOfRow(row, childBase);
      Value isChild = andI(cmpI(arith::CmpIPredicate::ugt, row, cIdx(0)),
                           cmpI(arith::CmpIPredicate::ult, child, k));
      ifThen(andI(isChild, firstLane), [&] {
        Value logit = arith::MulFOp::create(b, dot, scale);
        LLVM::StoreOp::create(b, logit, logitAddress(slot, child), 4);
      });
    }
  }

  /// The block's logits are in its slot's row: count the arrival; the last
  /// block of the slot selects.
  void emitArrival(Value slot, Value k, Value parts, Value tid) {
    if (slotStep) {
      // One block per slot: its logits are visible to warp 0 after the
      // barrier (global stores of the block, ordered by bar.sync).
      barrier();
      ifThen(cmpI(arith::CmpIPredicate::ult, tid, cIdx(kWarp)),
             [&] { emitSelect(slot, k); });
      return;
    }
    // Arrival: the logits are visible GPU-wide before the count is
    // (threadfence-reduction pattern).
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    barrier();
    Value lastFlag = func.getWorkgroupAttributions()[2];
    ifThen(cmpI(arith::CmpIPredicate::eq, tid, cIdx(0)), [&] {
      Value before = memref::AtomicRMWOp::create(
          b, arith::AtomicRMWKind::addi, cI32(1), arrivals, ValueRange{slot});
      Value isLast = cmpI(arith::CmpIPredicate::eq, toIndex(before),
                          arith::SubIOp::create(b, parts, cIdx(1)));
      store(arith::ExtUIOp::create(b, i32, isLast), lastFlag, {cIdx(0)});
    });
    barrier();
    Value last =
        cmpI(arith::CmpIPredicate::ne, load(lastFlag, {cIdx(0)}), cI32(0));
    Value selector =
        andI(last, cmpI(arith::CmpIPredicate::ult, tid, cIdx(kWarp)));
    ifThen(selector, [&] {
      NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
      emitSelect(slot, k);
      // Ready for the next step's arrivals.
      ifThen(cmpI(arith::CmpIPredicate::eq, lane, cIdx(0)),
             [&] { store(cI32(0), arrivals, {slot}); });
    });
  }

  /// The address of logit `child` of `slot` in the global logits rows.
  /// (The persistent kernel's block is its slot's only one: its logits row
  /// is in shared memory, after enc(parent).)
  Value logitAddress(Value slot, Value child) {
    if (slotStep)
      return LLVM::IntToPtrOp::create(
          b, sharedPtr, addI(logitsShared, mulI(toI64(child), cI64(4))));
    Value addr = elementAddress(logitsBase, slot, S, child);
    return LLVM::IntToPtrOp::create(b, globalPtr, addr);
  }
  /// A logit another block may have written: volatile, so not from L1.
  Value loadLogit(Value slot, Value child) {
    return LLVM::LoadOp::create(b, f32, logitAddress(slot, child), 4,
                                /*isVolatile=*/!slotStep);
  }

  /// enc(item[t]) for this thread's F features of each of its T rows,
  /// flattened [T][F] (0 past the output width). Items past the list encode
  /// whatever their (in-bounds) derived row holds; nothing reads the result.
  /// With the tensor cores: the block's rows in use, embedded into the
  /// activation rows by all warps (every thread calls it: it ends with a
  /// block barrier); returns nothing, vectorLayersTf32() goes on.
  SmallVector<Value> encode(Value slot, ArrayRef<Value> items,
                            Value childBase) {
    int64_t w = shape.atomWidth;
    int64_t words = 3 * A;
    Value rowBytes = cI64(4 * w);
    Value hiVarRow = cI32(2 * A - 1);
    Value hiPredRow = addI(numR, cI32(1));
    Value one = cF32(1), zero = cF32(0);
    // Table t's row r is at base(t) + r * rowBytes. When the row's threads
    // cover the width exactly, base(t) already points at this thread's first
    // feature, so a row costs one multiply-add of address arithmetic.
    bool exact = tl.width() == w;
    Value tableBase[5];
    for (int i = 0; i < 5; ++i)
      tableBase[i] = exact ? addI(atomTables[i], mulI(toI64(col0), cI64(4)))
                           : atomTables[i];
    auto readRow = [&](Value base, Value row) {
      Value addr = addI(base, mulI(arith::ExtUIOp::create(b, i64, row),
                                   rowBytes));
      return exact ? loadColumns(addr, /*shared=*/false, /*invariant=*/true)
                   : loadRow(addr, w, /*shared=*/false, /*invariant=*/true);
    };
    // The persistent kernel reads the slot's state and derived states
    // where its derive left them (its shared memory: the DeriveScratch's
    // first two members, emitPersistentLoop), the step kernel from global
    // memory.
    Value stateBase, derivedBase;
    if (slotStep) {
      derivedBase = scratchBase;
      stateBase = addI(scratchBase, cI64(4 * S * words));
    } else {
      derivedBase = addI(baseAddress(derived),
                         mulI(toI64(slot), cI64(4 * S * words)));
      stateBase = addI(baseAddress(state), mulI(toI64(slot), cI64(4 * words)));
    }

    // The address of item's state row.
    auto stateRow = [&](Value item) {
      Value isState = cmpI(arith::CmpIPredicate::eq, item, cIdx(0));
      Value child = arith::SubIOp::create(
          b, arith::MaxUIOp::create(b, item, cIdx(1)), cIdx(1));
      // The item's state row: the slot's state, or its derived row (clamped
      // into the slot's S rows for items past the list).
      Value derivedRow = arith::MinUIOp::create(b, child, cIdx(S - 1));
      return sel(isState, stateBase,
                 addI(derivedBase, mulI(toI64(derivedRow), cI64(4 * words))));
    };
    // emb(item) for this thread's F features; `stateWords`, when given, are
    // its 3A state words, already loaded.
    auto embed = [&](Value item, ArrayRef<Value> stateWords = {}) {

      // Argument `which` of term `term`: argN_const[t] for a constant,
      // argN_var[k-1] (= ~t) for variable Vk.
      auto argRow = [&](int which, Value term) {
        Value isConst = cmpI(arith::CmpIPredicate::sge, term, cI32(0));
        Value varRow = arith::MinUIOp::create(
            b, arith::XOrIOp::create(b, term, cI32(-1)), hiVarRow);
        return readRow(sel(isConst, tableBase[1 + which], tableBase[3 + which]),
                       sel(isConst, term, varRow));
      };
      // relu?((pred[p] + arg0[x]) + arg1[y]) added to `acc`, without
      // branches or per-feature selects: TRUE/FALSE (p >= R) scale their
      // argument rows by 0, padding (p < 0) scales the atom by 0. Every row
      // read is in bounds and finite, and x * 1 + y rounds as x + y, so a
      // goal adds exactly what the host adds.
      auto addAtom = [&](SmallVector<Value> acc, Value p, Value x, Value y) {
        Value isAtom = cmpI(arith::CmpIPredicate::sge, p, cI32(0));
        Value hasArgs = cmpI(arith::CmpIPredicate::ult, p, numR);
        Value argScale = sel(hasArgs, one, zero);
        Value atomScale = sel(isAtom, one, zero);
        SmallVector<Value> pre = readRow(
            tableBase[0], arith::MinUIOp::create(b, p, hiPredRow));
        SmallVector<Value> arg0 = argRow(0, x), arg1 = argRow(1, y);
        for (int64_t c = 0; c < tl.F; ++c) {
          Value sum = math::FmaOp::create(b, arg0[c], argScale, pre[c]);
          sum = math::FmaOp::create(b, arg1[c], argScale, sum);
          if (shape.atomRelu)
            sum = arith::MaxNumFOp::create(b, sum, zero);
          acc[c] = math::FmaOp::create(b, sum, atomScale, acc[c]);
        }
        return acc;
      };

      SmallVector<Value> acc(tl.F, zero);
      if (A <= kUnrolledAtoms) {
        // Straight-line code: all 3A state words, then all table rows, are
        // independent loads in flight together.
        SmallVector<Value> atoms(stateWords);
        if (atoms.empty())
          atoms = loadWords(stateRow(item), words);
        for (int64_t a = 0; a < A; ++a)
          acc = addAtom(acc, atoms[3 * a], atoms[3 * a + 1], atoms[3 * a + 2]);
      } else {
        Value rowAddr = stateRow(item);
        acc = forLoop(
            cIdx(0), cIdx(A), cIdx(1), acc, [&](Value a, ValueRange iters) {
              Value atomAddr = addI(rowAddr, mulI(toI64(a), cI64(12)));
              SmallVector<Value> atom;
              for (int64_t c = 0; c < 3; ++c)
                atom.push_back(LLVM::LoadOp::create(
                    b, i32,
                    LLVM::IntToPtrOp::create(b, stateSpace(),
                                             addI(atomAddr, cI64(4 * c))),
                    /*alignment=*/4));
              return addAtom(llvm::to_vector(iters), atom[0], atom[1],
                             atom[2]);
            });
      }
      return acc;
    };

    if (tl.tf32) {
      // One row at a time, through the layers before the first linear, into
      // the block's activation rows: with all T rows at once their 3A state
      // words each would be live together (spills). The rows in use are
      // dealt round the block's warps (iteration t of warp w embeds row
      // (t * warps + w) * R + (row group)), not kept in the warp whose m16
      // tile holds them: each row is a chain of dependent L1/L2 reads, and a
      // slot's ~60 rows would otherwise queue in 4 of the 8 warps. Each warp
      // stops after its rows in use (warp-uniform); the block barrier at the
      // end hands the rows to the tiles' warps. Rows past the ones in use
      // keep stale values; their results are never read.
      Value stride = cIdx(tl.warps * tl.R);
      Value warpFirst = mulI(warp, cIdx(tl.R));
      Value left = arith::SubIOp::create(
          b, arith::MaxUIOp::create(b, blockUsed, warpFirst), warpFirst);
      Value trips = arith::DivUIOp::create(
          b, addI(left, arith::SubIOp::create(b, stride, cIdx(1))), stride);
      Value rowGroup = arith::DivUIOp::create(b, lane, cIdx(tl.Q));
      Value warpRow0 = addI(warpFirst, rowGroup);
      // The next row's state words are loaded before this row is embedded
      // (one row of words in flight: the L2 latency of a derived row is
      // hidden behind the table reads of the previous one).
      auto rowOf = [&](Value t) { return addI(warpRow0, mulI(t, stride)); };
      bool prefetch = A <= kUnrolledAtoms;
      SmallVector<Value> first;
      if (prefetch)
        first = loadWords(stateRow(itemOfRow(rowOf(cIdx(0)), childBase)), words);
      forLoop(cIdx(0), trips, cIdx(1), first, [&](Value t, ValueRange cur0) {
        Value row = rowOf(t);
        SmallVector<Value> next;
        if (prefetch)
          next = loadWords(
              stateRow(itemOfRow(rowOf(addI(t, cIdx(1))), childBase)), words);
        SmallVector<SmallVector<Value>> cur = {
            embed(itemOfRow(row, childBase), llvm::to_vector(cur0))};
        cur = vectorLayers(ArrayRef(shape.layers).take_front(firstLinear()),
                           ArrayRef(layerTables).take_front(firstLinear()),
                           cur);
        storeRow(actAddress(row, cIdx(0)), cur[0]);
        return next;
      });
      barrier();
      return {};
    }

    SmallVector<SmallVector<Value>> curs;
    for (int64_t t = 0; t < tl.T; ++t)
      curs.push_back(embed(items[t]));
    // The vector layers, on the T rows together.
    curs = vectorLayers(shape.layers, layerTables, curs);
    SmallVector<Value> flat;
    for (const SmallVector<Value> &cur : curs)
      llvm::append_range(flat, cur);
    return flat;
  }

  struct LayerTables {
    Value weight, bias; ///< base addresses (i64)
  };

  /// Item of block row `row` of part `childBase / rows-1`: 0 (the parent)
  /// for row 0, else child childBase + row - 1, as item child + 1.
  Value itemOfRow(Value row, Value childBase) {
    Value isParent = cmpI(arith::CmpIPredicate::eq, row, cIdx(0));
    return sel(isParent, cIdx(0), addI(childOfRow(row, childBase), cIdx(1)));
  }
  /// Child childBase + row - 1 of block row `row` (row 0, the parent, maps
  /// to childBase).
  Value childOfRow(Value row, Value childBase) {
    return addI(childBase,
                arith::SubIOp::create(
                    b, arith::MaxUIOp::create(b, row, cIdx(1)), cIdx(1)));
  }
  /// The index of the first linear layer (layers before it run on the Q x F
  /// rows in the tensor-core kernel).
  size_t firstLinear() const {
    for (size_t i = 0; i < shape.layers.size(); ++i)
      if (shape.layers[i].kind == VectorLayer::Linear)
        return i;
    return shape.layers.size();
  }
  /// `layers` on the Q x F rows `curs` (any number of them).
  SmallVector<SmallVector<Value>>
  vectorLayers(ArrayRef<VectorLayer> layers, ArrayRef<LayerTables> tables,
               SmallVector<SmallVector<Value>> curs) {
    for (auto [layer, t] : llvm::zip(layers, tables)) {
      if (layer.kind == VectorLayer::Relu) {
        for (SmallVector<Value> &cur : curs)
          for (Value &x : cur)
            x = relu(x);
      } else if (layer.kind == VectorLayer::Linear) {
        curs = linear(layer, t, curs);
      } else {
        curs = layerNorm(layer, t, curs);
      }
    }
    return curs;
  }

  /// y[j] = bias[j] + sum_i x[i] * Wt[i][j] for the T rows: the rows go
  /// through the warp's workgroup rows; each step reads V inputs of every
  /// row and V weight rows, for T * V * F fused multiply-adds.
  SmallVector<SmallVector<Value>> linear(const VectorLayer &layer,
                                         const LayerTables &tables,
                                         ArrayRef<SmallVector<Value>> curs) {
    SmallVector<Value> rowAddrs;
    for (int64_t t = 0; t < tl.T; ++t) {
      rowAddrs.push_back(
          elementAddress(actBase, rows[t], tl.actStride(), cIdx(0)));
      storeRow(rowAddrs[t], curs[t]);
    }
    syncWarp();
    SmallVector<Value> bias = loadRow(tables.bias, layer.out, false, true);
    SmallVector<Value> inits;
    for (int64_t t = 0; t < tl.T; ++t)
      llvm::append_range(inits, bias);
    // `chunk` inputs per loop iteration, fully unrolled inside.
    int64_t chunk =
        layer.in % kInputsPerIteration == 0 ? kInputsPerIteration : tl.V;
    auto body = [&](Value i0, ValueRange iters) {
      SmallVector<Value> ys(iters.begin(), iters.end());
      for (int64_t i = 0; i < chunk; i += tl.V) {
        Value in = addI(i0, cIdx(i));
        // x[t][in .. in + V) of each row (one vector load per row).
        SmallVector<SmallVector<Value>> xs;
        for (int64_t t = 0; t < tl.T; ++t) {
          Value addr = addI(rowAddrs[t], mulI(toI64(in), cI64(4)));
          Value ptr = LLVM::IntToPtrOp::create(b, sharedPtr, addr);
          SmallVector<Value> x;
          if (tl.V == 4) {
            Value v = LLVM::LoadOp::create(b, vec4, ptr, /*alignment=*/16);
            for (int64_t e = 0; e < 4; ++e)
              x.push_back(LLVM::ExtractElementOp::create(b, f32, v, cI32(e)));
          } else {
            x.push_back(LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4));
          }
          xs.push_back(x);
        }
        for (int64_t e = 0; e < tl.V; ++e) {
          Value wRow = elementAddress(tables.weight, addI(in, cIdx(e)),
                                      layer.out, cIdx(0));
          SmallVector<Value> w = loadRow(wRow, layer.out, false, true);
          for (int64_t t = 0; t < tl.T; ++t)
            for (int64_t c = 0; c < tl.F; ++c)
              ys[t * tl.F + c] =
                  math::FmaOp::create(b, xs[t][e], w[c], ys[t * tl.F + c]);
        }
      }
      return ys;
    };
    SmallVector<Value> ys =
        chunk == layer.in
            ? body(cIdx(0), inits)
            : forLoop(cIdx(0), cIdx(layer.in), cIdx(chunk), inits, body);
    // The next layer's writes wait for every lane's reads.
    syncWarp();
    SmallVector<SmallVector<Value>> out(tl.T);
    for (int64_t t = 0; t < tl.T; ++t)
      out[t].assign(ys.begin() + t * tl.F, ys.begin() + (t + 1) * tl.F);
    return out;
  }

  /// LayerNorm of one row of which this thread holds `x` (with `inWidth`,
  /// the values past the width read as 0): the row's sums by `rowReduce`,
  /// ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta, the host's order.
  SmallVector<Value> normalizeRow(ArrayRef<Value> x, ArrayRef<Value> inWidth,
                                  ArrayRef<Value> gamma, ArrayRef<Value> beta,
                                  const VectorLayer &layer,
                                  function_ref<Value(Value)> rowReduce) {
    Value zero = cF32(0);
    Value n = cF32(static_cast<double>(layer.out));
    auto masked = [&](size_t i, Value v) {
      return inWidth.empty() ? v : sel(inWidth[i], v, zero);
    };
    Value sum = zero;
    for (size_t i = 0; i < x.size(); ++i)
      sum = arith::AddFOp::create(b, sum, masked(i, x[i]));
    Value mean = arith::DivFOp::create(b, rowReduce(sum), n);
    SmallVector<Value> centered;
    Value squares = zero;
    for (size_t i = 0; i < x.size(); ++i) {
      centered.push_back(masked(i, arith::SubFOp::create(b, x[i], mean)));
      squares = math::FmaOp::create(b, centered[i], centered[i], squares);
    }
    Value var = arith::DivFOp::create(b, rowReduce(squares), n);
    Value shifted = arith::AddFOp::create(b, var, cF32(layer.eps));
    // llvm.nvvm.sqrt.rn.f: IEEE sqrt (libdevice's __nv_sqrtf would be the
    // approximate sqrt unless __CUDA_PREC_SQRT is reflected as 1).
    Value root = LLVM::CallIntrinsicOp::create(
                     b, f32, b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                     ValueRange{shifted})
                     .getResult(0);
    Value rstd = arith::DivFOp::create(b, cF32(1), root);
    SmallVector<Value> y;
    for (size_t i = 0; i < x.size(); ++i) {
      Value scaled = arith::MulFOp::create(
          b, arith::MulFOp::create(b, centered[i], rstd), gamma[i]);
      y.push_back(arith::AddFOp::create(b, scaled, beta[i]));
    }
    return y;
  }

  /// ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta over the width, for
  /// each of the T rows (the sums over the row's Q threads by butterfly).
  SmallVector<SmallVector<Value>>
  layerNorm(const VectorLayer &layer, const LayerTables &tables,
            ArrayRef<SmallVector<Value>> curs) {
    SmallVector<Value> inW;
    for (int64_t c = 0; c < tl.F; ++c)
      inW.push_back(cmpI(arith::CmpIPredicate::ult, addI(col0, cIdx(c)),
                         cIdx(layer.out)));
    SmallVector<Value> gamma = loadRow(tables.weight, layer.out, false, true);
    SmallVector<Value> beta = loadRow(tables.bias, layer.out, false, true);
    SmallVector<SmallVector<Value>> out;
    for (const SmallVector<Value> &cur : curs)
      out.push_back(normalizeRow(cur, inW, gamma, beta, layer,
                                 [&](Value v) { return rowSum(v); }));
    return out;
  }

  //===------------------------------------------------------------------===//
  // Linear layers on the tensor cores (Tiling::tf32)
  //
  // A warp's 16 rows are one m16 tile. After the first linear the values
  // live in the mma accumulator layout ("C layout"): lane l = 4g + t holds,
  // for n-tile nt, the columns 8nt + 2t + {0, 1} of the warp's rows g
  // (h = 0) and g + 8 (h = 1), flattened [h][nt][e]. A row's sums are over
  // its 4 lanes (a quad butterfly).
  //===------------------------------------------------------------------===//

  /// Index of (h, nt, e) in a C-layout vector of `width` columns.
  static int64_t cIndex(int64_t width, int64_t h, int64_t nt, int64_t e) {
    return (h * (width / 8) + nt) * 2 + e;
  }
  /// The block row of this lane's C-layout row h.
  Value cRow(int64_t h) {
    return addI(mulI(warp, cIdx(16)), addI(quadGroup, cIdx(8 * h)));
  }
  /// The address of column `col` (index) of block row `row` in the
  /// activation rows.
  Value actAddress(Value row, Value col) {
    return elementAddress(actBase, row, tl.actStride(), col);
  }
  /// Two consecutive f32 at byte address `addr` (8-byte aligned).
  SmallVector<Value> loadPair(Value addr, bool shared, bool invariant) {
    auto vec2 = VectorType::get({2}, f32);
    Value v = LLVM::LoadOp::create(
        b, vec2, LLVM::IntToPtrOp::create(b, shared ? sharedPtr : globalPtr, addr),
        /*alignment=*/8, /*isVolatile=*/false, /*isNonTemporal=*/false,
        invariant);
    return {LLVM::ExtractElementOp::create(b, f32, v, cI32(0)),
            LLVM::ExtractElementOp::create(b, f32, v, cI32(1))};
  }
  void storePair(Value addr, Value x, Value y) {
    auto vec2 = VectorType::get({2}, f32);
    Value v = LLVM::PoisonOp::create(b, vec2);
    v = LLVM::InsertElementOp::create(b, vec2, v, x, cI32(0));
    v = LLVM::InsertElementOp::create(b, vec2, v, y, cI32(1));
    LLVM::StoreOp::create(b, v, LLVM::IntToPtrOp::create(b, sharedPtr, addr),
                          /*alignment=*/8);
  }
  /// This lane's columns 8nt + 2t + {0, 1} of an f32 vector (a bias, a
  /// LayerNorm's gamma or beta, enc(parent)) at `base`: [nt][e].
  SmallVector<Value> loadCColumns(Value base, int64_t width, bool shared,
                                  bool invariant) {
    SmallVector<Value> out;
    for (int64_t nt = 0; nt < width / 8; ++nt) {
      Value col = addI(cIdx(8 * nt), mulI(quadLane, cIdx(2)));
      llvm::append_range(out, loadPair(addI(base, mulI(toI64(col), cI64(4))),
                                       shared, invariant));
    }
    return out;
  }
  /// The sum of `v` over the 4 lanes of this lane's quad (one row).
  Value quadSum(Value v) {
    return butterfly(v, 4, [&](Value x, Value y) {
      return arith::AddFOp::create(b, x, y);
    });
  }
  /// tf32(x), round to nearest with ties away (cvt.rna.tf32.f32): the TF32
  /// bits in an i32.
  Value toTf32(Value x) {
    return LLVM::CallIntrinsicOp::create(
               b, i32, b.getStringAttr("llvm.nvvm.f2tf32.rna"), ValueRange{x})
        .getResult(0);
  }

  /// The vector layers from the first linear on, when the linears use the
  /// tensor cores: the rows are in the warp's activation rows (padded
  /// stride); every linear reads them from there, and its output stays in
  /// the C layout for the layers after it. Returns the C-layout encoding.
  SmallVector<Value> vectorLayersTf32() {
    SmallVector<Value> cv;
    int64_t width = 0; // of cv; 0 before the first linear
    for (size_t i = firstLinear(); i < shape.layers.size(); ++i) {
      const VectorLayer &layer = shape.layers[i];
      const LayerTables &tables = layerTables[i];
      if (layer.kind == VectorLayer::Relu) {
        for (Value &x : cv)
          x = relu(x);
      } else if (layer.kind == VectorLayer::LayerNorm) {
        cv = layerNormC(layer, tables, cv);
      } else {
        if (width) { // the previous linear's output into the rows
          for (int64_t h = 0; h < 2; ++h)
            for (int64_t nt = 0; nt < width / 8; ++nt) {
              Value col = addI(cIdx(8 * nt), mulI(quadLane, cIdx(2)));
              storePair(actAddress(cRow(h), col), cv[cIndex(width, h, nt, 0)],
                        cv[cIndex(width, h, nt, 1)]);
            }
          syncWarp();
        }
        cv = linearTf32(layer, tables);
        width = layer.out;
        // The next layer's writes wait for every lane's reads.
        syncWarp();
      }
    }
    return cv;
  }

  /// y = bias + x · Wᵀ for the warp's 16 rows (read from its activation
  /// rows) by mma.sync m16n8k8 with 3xTF32: x and W split into TF32 high and
  /// low parts, x_lo·W_hi + x_hi·W_lo + x_hi·W_hi accumulated in f32 (the
  /// dropped x_lo·W_lo is below f32 rounding). W comes split and in
  /// fragment order from eval.split_tf32_weight: one 16-byte load per lane
  /// and tile.
  SmallVector<Value> linearTf32(const VectorLayer &layer,
                                const LayerTables &tables) {
    MLIRContext *ctx = b.getContext();
    int64_t tiles = layer.out / 8;
    SmallVector<Value> bias = loadCColumns(tables.bias, layer.out, false, true);
    SmallVector<Value> inits; // [nt][c0..c3]: (g, 2t), (g, 2t+1), (g+8, ..)
    for (int64_t nt = 0; nt < tiles; ++nt)
      inits.append({bias[2 * nt], bias[2 * nt + 1], bias[2 * nt],
                    bias[2 * nt + 1]});
    Type accType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    Value lanesBase =
        addI(tables.weight, mulI(toI64(lane), cI64(16))); // this lane's tile
    // One k-step's operands: A (rows g, g + 8; columns 8ks + t, 8ks + t + 4)
    // split into TF32 high and low parts, and the lane's B fragments of
    // every n-tile (16 bytes each).
    struct StepOperands {
      SmallVector<Value> hi, lo;
      SmallVector<SmallVector<Value>> w;
    };
    auto vec4i = VectorType::get({4}, i32);
    auto loadStep = [&](Value ks) {
      StepOperands op;
      Value col = addI(mulI(ks, cIdx(8)), quadLane);
      Value col4 = addI(col, cIdx(4));
      SmallVector<Value> a = {
          load1(actAddress(cRow(0), col)), load1(actAddress(cRow(1), col)),
          load1(actAddress(cRow(0), col4)), load1(actAddress(cRow(1), col4))};
      for (Value x : a) {
        Value h = toTf32(x);
        Value rest =
            arith::SubFOp::create(b, x, arith::BitcastOp::create(b, f32, h));
        op.hi.push_back(h);
        op.lo.push_back(toTf32(rest));
      }
      Value ksBase =
          addI(lanesBase, mulI(toI64(ks), cI64(tiles * 32 * 16)));
      for (int64_t nt = 0; nt < tiles; ++nt) {
        Value ptr = LLVM::IntToPtrOp::create(
            b, globalPtr, addI(ksBase, cI64(nt * 32 * 16)));
        Value w = LLVM::LoadOp::create(b, vec4i, ptr, /*alignment=*/16,
                                       /*isVolatile=*/false,
                                       /*isNonTemporal=*/false,
                                       /*invariant=*/true);
        SmallVector<Value> wv;
        for (int64_t e = 0; e < 4; ++e)
          wv.push_back(LLVM::ExtractElementOp::create(b, i32, w, cI32(e)));
        op.w.push_back(wv);
      }
      return op;
    };
    auto mmaStep = [&](const StepOperands &op, SmallVector<Value> c) {
      for (int64_t nt = 0; nt < tiles; ++nt) {
        SmallVector<Value> tile(ArrayRef<Value>(c).slice(4 * nt, 4));
        auto mma = [&](ArrayRef<Value> aPart, Value b0, Value b1) {
          Value r = NVVM::MmaOp::create(
              b, accType, aPart, ValueRange{b0, b1}, tile, {16, 8, 8},
              std::nullopt, std::nullopt,
              std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                            NVVM::MMATypes::tf32},
              std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                             NVVM::MMALayout::col});
          for (int64_t e = 0; e < 4; ++e)
            tile[e] = LLVM::ExtractValueOp::create(b, r, e);
        };
        // Small terms first: they are added to the accumulator before the
        // large one.
        const SmallVector<Value> &wv = op.w[nt];
        mma(op.lo, wv[0], wv[1]);
        mma(op.hi, wv[2], wv[3]);
        mma(op.hi, wv[0], wv[1]);
        for (int64_t e = 0; e < 4; ++e)
          c[4 * nt + e] = tile[e];
      }
      return c;
    };
    // kStepsPerIteration k-steps per iteration, their loads first: one L2
    // round trip for the weights of both.
    int64_t steps = layer.in / 8;
    int64_t per = steps % kStepsPerIteration == 0 ? kStepsPerIteration : 1;
    SmallVector<Value> acc = forLoop(
        cIdx(0), cIdx(steps), cIdx(per), inits,
        [&](Value ks, ValueRange iters) {
          SmallVector<StepOperands> ops;
          for (int64_t i = 0; i < per; ++i)
            ops.push_back(loadStep(addI(ks, cIdx(i))));
          SmallVector<Value> c(iters.begin(), iters.end());
          for (const StepOperands &op : ops)
            c = mmaStep(op, c);
          return c;
        });
    // [nt][c0..c3] -> [h][nt][e]
    SmallVector<Value> cv(layer.out / 2);
    for (int64_t nt = 0; nt < tiles; ++nt)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e)
          cv[cIndex(layer.out, h, nt, e)] = acc[4 * nt + 2 * h + e];
    return cv;
  }
  /// One f32 from workgroup memory.
  Value load1(Value addr) {
    return LLVM::LoadOp::create(b, f32,
                                LLVM::IntToPtrOp::create(b, sharedPtr, addr), 4);
  }

  /// LayerNorm of both C-layout rows; the same formulas as layerNorm().
  SmallVector<Value> layerNormC(const VectorLayer &layer,
                                const LayerTables &tables,
                                ArrayRef<Value> cv) {
    int64_t width = layer.out;
    SmallVector<Value> gamma = loadCColumns(tables.weight, width, false, true);
    SmallVector<Value> beta = loadCColumns(tables.bias, width, false, true);
    SmallVector<Value> out(cv.begin(), cv.end());
    int64_t per = width / 4; // values of one row in this lane
    for (int64_t h = 0; h < 2; ++h) {
      SmallVector<Value> y =
          normalizeRow(ArrayRef<Value>(cv).slice(h * per, per), {}, gamma,
                       beta, layer, [&](Value v) { return quadSum(v); });
      std::copy(y.begin(), y.end(), out.begin() + h * per);
    }
    return out;
  }

  /// Spec §4 over logits[0..k) by warp 0 (lane = thread). Lane l reads
  /// logits l, l + 32, ... once, all loads in flight together (they come
  /// from L2: other blocks wrote them); the three passes then use registers.
  void emitSelect(Value slot, Value k) {
    int64_t perLane = (S + kWarp - 1) / kWarp;
    Value negInf = cF32(-std::numeric_limits<float>::infinity());
    SmallVector<Value> index, inList, logit;
    for (int64_t j = 0; j < perLane; ++j) {
      index.push_back(addI(lane, cIdx(j * kWarp)));
      inList.push_back(cmpI(arith::CmpIPredicate::ult, index[j], k));
      // Past the list: a clamped (in-bounds) read, then -inf.
      Value at = arith::MinUIOp::create(b, index[j], cIdx(S - 1));
      logit.push_back(sel(inList[j], loadLogit(slot, at), negInf));
    }
    Value m = negInf;
    for (Value l : logit)
      m = arith::MaxNumFOp::create(b, m, l);
    m = warpReduce(
        m, [&](Value x, Value y) { return arith::MaxNumFOp::create(b, x, y); });
    Value md = arith::ExtFOp::create(b, f64, m);
    Value magnitude =
        arith::MaxNumFOp::create(b, cF64(1.0), math::AbsFOp::create(b, md));
    Value threshold = arith::SubFOp::create(
        b, md, arith::MulFOp::create(b, cF64(1e-5), magnitude));

    Value kI32 = toI32(k);
    Value first = kI32;
    Value sum = cF64(0);
    SmallVector<Value> wide;
    for (int64_t j = 0; j < perLane; ++j) {
      Value l = arith::ExtFOp::create(b, f64, logit[j]);
      wide.push_back(l);
      Value hit = andI(inList[j], arith::CmpFOp::create(
                                      b, arith::CmpFPredicate::OGE, l, threshold));
      first = sel(hit, arith::MinSIOp::create(b, first, toI32(index[j])), first);
      Value e = math::ExpOp::create(b, arith::SubFOp::create(b, l, md));
      // l - l is +0 for a finite logit (e unchanged, bit for bit) and NaN
      // for NaN or +-inf: a non-finite logit makes the sum, hence the
      // step's log-probability, NaN (a -inf alone would not), and the
      // candidate's stays NaN; the runtime then fails naming it
      // (docs/errors.md). Two f64 operations per logit, in warp 0 only.
      e = arith::AddFOp::create(b, e, arith::SubFOp::create(b, l, l));
      sum = sel(inList[j], arith::AddFOp::create(b, sum, e), sum);
    }
    first = warpReduce(first, [&](Value x, Value y) {
      return arith::MinSIOp::create(b, x, y);
    });
    // In range even for NaN logits (no index reaches the threshold).
    first = arith::MinSIOp::create(b, first,
                                   arith::SubIOp::create(b, kI32, cI32(1)));
    sum = warpReduce(
        sum, [&](Value x, Value y) { return arith::AddFOp::create(b, x, y); });
    // The chosen logit is in the registers of lane first % 32.
    Value owner = arith::RemUIOp::create(b, toIndex(first), cIdx(kWarp));
    Value mine = cF64(0);
    for (int64_t j = 0; j < perLane; ++j)
      mine = sel(cmpI(arith::CmpIPredicate::eq, index[j], toIndex(first)),
                 wide[j], mine);
    Value chosen =
        gpu::ShuffleOp::create(
            b, mine, toI32(owner), cI32(kWarp),
            gpu::ShuffleModeAttr::get(b.getContext(), gpu::ShuffleMode::IDX))
            .getShuffleResult();
    ifThen(cmpI(arith::CmpIPredicate::eq, lane, cIdx(0)), [&] {
      Value logp = arith::SubFOp::create(
          b, arith::SubFOp::create(b, chosen, md), math::LogOp::create(b, sum));
      // Spec §4: a single child is taken with log-probability 0, whatever
      // its logit (the host does not compute it).
      logp = sel(cmpI(arith::CmpIPredicate::ugt, k, cIdx(1)), logp, cF64(0));
      store(first, action, {slot});
      store(arith::TruncFOp::create(b, f32, logp), actionLogp, {slot});
    });
  }

  ScoreSelectOp op;
  const EncoderShape &shape;
  int64_t A, S, B;
  Tiling tl;
  /// slot.cu's advance-and-derive: the persistent form; null: one step.
  LLVM::LLVMFuncOp slotStep;
  ImplicitLocOpBuilder b;
  Type i1, i32, i64, f32, f64, index;
  VectorType vec4;
  Attribute global, workgroup;
  Type globalPtr, sharedPtr;
  gpu::GPUFuncOp func;

  // Views, table addresses and per-thread values of the body.
  Value state, derived, count, action, actionLogp, arrivals, logitsBase;
  Value atomTables[5]; ///< pred_proj, arg0/arg1 const, arg0/arg1 var
  SmallVector<LayerTables> layerTables;
  Value numR, scale;
  Value lane, warp, featureThread, col0, actBase, parentBase, logitsShared,
      slotArgsShared, scratchBase;
  /// Where the state rows the encoding reads are (loadWords).
  Type stateSpace() const { return slotStep ? sharedPtr : globalPtr; }
  int64_t numSlotStepArgs = 0; ///< the persistent kernel's, 8 bytes each
  /// Items (parent and children) of the block's current pass.
  Value blockUsed;
  Value quadGroup, quadLane; ///< C layout: lane / 4 and lane % 4
  SmallVector<Value> rows; ///< this thread's T rows within a pass
};

} // namespace

FailureOr<PolicyKernel>
mlir::eval::buildPolicyKernel(ScoreSelectOp op, gpu::GPUModuleOp module,
                              StringRef name, StringRef guard, int64_t groups,
                              int64_t statesPerThread, int64_t minBlocksPerSm,
                              StringRef logitsBuffer, StringRef arrivalsBuffer,
                              int64_t maxSharedPerBlock,
                              ArrayRef<std::string> slotStepArgs) {
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
  bool persistent = !slotStepArgs.empty();
  if (groups < (persistent ? 0 : 1) || groups > 32)
    return op.emitOpError() << "the GPU policy kernel takes 1 to 32 warps per "
                               "block (--groups), got "
                            << groups;
  // The kernel reads each linear weight as Wt [in, out] (fma) or as TF32
  // fragments (tensor cores), as eval-plan-buffers planned it; one form for
  // all layers.
  int64_t linears = 0, split = 0;
  for (const VectorLayer &layer : shape->layers) {
    if (layer.kind != VectorLayer::Linear)
      continue;
    ++linears;
    FailureOr<BufferOp> weight = getWeightBuffer(op, layer.weight);
    if (failed(weight))
      return failure();
    StringRef init = weight->getInit();
    bool transposed = false, fragments = false;
    if (init.consume_front("weights:")) {
      for (auto t : program.getBody().front().getOps<TransposeWeightOp>())
        transposed |= t.getDst() == init && t.getTable() == layer.weight;
      for (auto t : program.getBody().front().getOps<SplitTf32WeightOp>())
        fragments |= t.getDst() == init && t.getTable() == layer.weight;
    }
    if (!transposed && !fragments)
      return op.emitOpError() << "linear weight '" << layer.weight
                              << "' must be planned as its transpose or as "
                                 "TF32 fragments (run eval-plan-buffers)";
    split += fragments;
  }
  if (split != 0 && split != linears)
    return op.emitOpError() << "the linear weights must all be TF32 fragments "
                               "or all transposed, got "
                            << split << " of " << linears;
  Tiling tiling = chooseTiling(*shape, std::max<int64_t>(groups, 1),
                               statesPerThread);
  if (split > 0) {
    // With the tensor cores a warp's rows are one m16 tile: T follows.
    if (kWarp % tiling.Q != 0 || 16 % tiling.R != 0 ||
        tiling.width() != shape->maxWidth)
      return op.emitOpError()
             << "the tensor-core policy kernel needs row groups that tile a "
                "warp's 16 rows, got width "
             << shape->maxWidth << " (plan with matmul=fma)";
    tiling.T = 16 / tiling.R; // a warp's R row groups x T rows = 16
    tiling.tf32 = true;
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
  // words):
  // PersistentLayout.
  int64_t sharedBytes =
      persistent ? persistentLayout(tiling, A, S, slotStepArgs.size()).total
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
  for (const std::string &table : tables) {
    FailureOr<BufferOp> buffer = getWeightBuffer(op, table);
    if (failed(buffer))
      return failure();
    kernel.args.push_back(buf(*buffer));
  }
  kernel.args.push_back("sym:R");
  SmallString<16> scale; // the shortest text that reads back as this float
  op.getScaleAttr().getValue().toString(scale);
  kernel.args.push_back(("f32:" + scale).str());
  kernel.args.push_back(buf((*action)[0]));
  kernel.args.push_back(buf((*logp)[0]));
  if (!persistent) {
    kernel.args.push_back(("buf:" + logitsBuffer).str());
    kernel.args.push_back(("buf:" + arrivalsBuffer).str());
  }
  // B x parts blocks: enough parts of childrenPerBlock() children for S.
  int64_t parts = (S + tiling.childrenPerBlock() - 1) / tiling.childrenPerBlock();
  kernel.grid = {"B", std::to_string(parts)};
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
           << persistentLimit
           << "); lower S, A or the groups";
  kernel.sharedBytes = persistent ? sharedBytes : 0;

  MLIRContext *ctx = op.getContext();
  auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  auto ptr = [&](Type element) {
    return MemRefType::get({}, element, MemRefLayoutAttrInterface(), global);
  };
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  SmallVector<Type> argTypes = {ptr(i32), ptr(i32), ptr(i32), ptr(i32),
                                ptr(i32)};
  argTypes.append(tables.size(), ptr(f32));
  argTypes.append({i32, f32, ptr(i32), ptr(f32)});
  if (!persistent)
    argTypes.append({ptr(f32), ptr(i32)}); // logits rows, arrival counts

  // The persistent form also takes slot.cu's arguments and hands them to
  // its advance-and-derive function, declared here and linked at load.
  LLVM::LLVMFuncOp slotStep;
  if (persistent) {
    for (const std::string &arg : slotStepArgs) {
      bool pointer = StringRef(arg).starts_with("buf:");
      argTypes.push_back(pointer ? Type(ptr(i32)) : i32);
      kernel.args.push_back(arg);
    }
    SmallVector<Type> params = {i32, LLVM::LLVMPointerType::get(ctx)};
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    if (!SymbolTable::lookupSymbolIn(module, kPolicyRowsSymbol))
      LLVM::GlobalOp::create(
          builder, op.getLoc(),
          LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kPolicyRowsSymbol,
          /*value=*/Attribute(), /*alignment=*/16,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    slotStep = dyn_cast_or_null<LLVM::LLVMFuncOp>(
        SymbolTable::lookupSymbolIn(module, kSlotStepFunction));
    auto fnType = LLVM::LLVMFunctionType::get(i32, params);
    if (!slotStep) {
      slotStep = LLVM::LLVMFuncOp::create(builder, op.getLoc(),
                                          kSlotStepFunction, fnType);
      // Every thread of the block calls it: it holds block barriers.
      slotStep.setPassthroughAttr(
          builder.getArrayAttr({builder.getStringAttr("convergent")}));
    } else if (slotStep.getFunctionType() != fnType) {
      return op.emitOpError() << "two persistent policy kernels disagree on "
                              << kSlotStepFunction << "'s signature";
    }
    kernel.grid = {"B"};
  }

  KernelGenerator generator(op, *shape, A, S, B, tiling, module, slotStep);
  kernel.func = generator.emit(name, argTypes);
  // ptxas caps the registers so that this many blocks fit on an SM.
  if (minBlocksPerSm > 0)
    kernel.func->setAttr("nvvm.minctasm",
                         IntegerAttr::get(IntegerType::get(op.getContext(), 32),
                                          minBlocksPerSm));
  kernel.block = tiling.threads();
  return kernel;
}
