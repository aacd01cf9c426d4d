//===- PolicyKernel.cpp - eval.score_select as a gpu.func -----------------===//
//
// One block per slot (grid B), G groups of Wp threads (Wp = the widest layer
// rounded up to a warp). Thread j of a group owns feature j of T states (the
// group's "states" t < T). The parent state and the k derived states are
// "items" 0..k; round r encodes items r*G*T + t*G + g (group g, state t),
// then dots each child with the parent:
//
//   atoms     pre = (pred_proj[p] + arg0[a]) + arg1[b]   (p < R relations,
//             else the predicate row only), relu if the encoder has it, summed
//             over the goals; rows are clamped and selected, so there are no
//             branches
//   Linear    the vectors go through workgroup memory (ping-pong, one
//             barrier); y = bias[j] + sum_i x[i] * Wt[i][j] (Wt = [in, out]
//             from eval.transpose_weight, so a warp loads consecutive words;
//             each load serves the T states)
//   LayerNorm two group sums (warp butterfly, then the warps' partials in a
//             fixed order from workgroup memory); 1/sqrt is sqrt.rn + div.rn,
//             correctly rounded like the host's 1.f / std::sqrt
//   dot       one group sum, times the scale, into the logits row
// (the T states' group sums share one barrier).
//
// Then warp 0 applies spec §4 exactly: the max (a butterfly of maxnum, exact),
// the threshold m - 1e-5 * max(1, |m|) in double, the smallest index at or
// above it (a butterfly of min), and log_softmax in double through libdevice's
// exp/log (__nv_exp/__nv_log): the host's selectAction, reductions aside.
// Every barrier is reached by every thread of the block: per-group masks
// select values, they never skip code that holds a barrier.
//
//===----------------------------------------------------------------------===//
#include "PolicyKernel.h"

#include "proofc/Dialect/Eval/Transforms/BufferPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>

using namespace mlir;
using namespace mlir::eval;

namespace {

//===----------------------------------------------------------------------===//
// The encoder as the kernel sees it
//===----------------------------------------------------------------------===//

struct VectorLayer {
  enum Kind { Relu, Linear, LayerNorm } kind;
  int64_t in = 0, out = 0;
  std::string weight, bias; ///< Linear: W and b; LayerNorm: gamma and beta
  double eps = 0;
};

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

class KernelGenerator {
public:
  KernelGenerator(ScoreSelectOp op, const EncoderShape &shape, int64_t A,
                  int64_t S, int64_t B, int64_t groups, int64_t perThread,
                  gpu::GPUModuleOp module)
      : op(op), shape(shape), A(A), S(S), B(B), G(groups), T(perThread),
        Wp((shape.maxWidth + kWarp - 1) / kWarp * kWarp), NW(Wp / kWarp),
        b(op.getLoc(), OpBuilder::atBlockEnd(module.getBody())) {
    MLIRContext *ctx = op.getContext();
    i1 = b.getI1Type();
    i32 = b.getI32Type();
    f32 = b.getF32Type();
    f64 = b.getF64Type();
    index = b.getIndexType();
    global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
    workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  }

  int64_t threads() const { return G * Wp; }

  /// Emits the kernel; `tables` are the buffers of the encoder's weights in
  /// argument order (after the five state arguments).
  gpu::GPUFuncOp emit(StringRef name, ArrayRef<Type> argTypes) {
    auto fnType = b.getFunctionType(argTypes, {});
    SmallVector<Type> shared = {
        wgType({G * T, Wp}), wgType({G * T, Wp}), // activations
        wgType({Wp}),                             // parent embedding
        wgType({G * T, NW}), wgType({G * T, NW}), // group partials
        wgType({S})};                             // logits
    func = gpu::GPUFuncOp::create(b, name, fnType, shared);
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    func.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({static_cast<int32_t>(threads()), 1, 1}));
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
  Value cF32(double v) {
    return arith::ConstantFloatOp::create(b, cast<FloatType>(f32),
                                          APFloat(static_cast<float>(v)));
  }
  Value cF64(double v) {
    return arith::ConstantFloatOp::create(b, cast<FloatType>(f64), APFloat(v));
  }
  Value toIndex(Value v) { return arith::IndexCastOp::create(b, index, v); }
  Value toI32(Value v) { return arith::IndexCastOp::create(b, i32, v); }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value load(Value mem, ValueRange idx) {
    return memref::LoadOp::create(b, mem, idx);
  }
  void store(Value v, Value mem, ValueRange idx) {
    memref::StoreOp::create(b, v, mem, idx);
  }
  /// min(max(v, 0), hi - 1) for an i32 row index.
  Value clampRow(Value v, Value hi) {
    Value lo = arith::MaxSIOp::create(b, v, cI32(0));
    Value top = arith::SubIOp::create(b, hi, cI32(1));
    return arith::MinSIOp::create(b, lo, top);
  }
  void barrier() { gpu::BarrierOp::create(b); }

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

  /// Butterfly over the 32 lanes of a warp with `combine`.
  Value warpReduce(Value v, function_ref<Value(Value, Value)> combine) {
    for (int64_t offset = kWarp / 2; offset >= 1; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(b, v, static_cast<int32_t>(offset),
                                            static_cast<int32_t>(kWarp),
                                            gpu::ShuffleMode::XOR);
      v = combine(v, shuffle.getShuffleResult());
    }
    return v;
  }

  /// The sums of the T values `vs` (value t of state t of the group) over
  /// the threads of this group (block-uniform: one barrier). Lane 0's warp
  /// sums go to workgroup memory; every thread adds its group's NW partials
  /// in the same order, so the group agrees on each sum.
  SmallVector<Value> groupSums(ArrayRef<Value> vs) {
    SmallVector<Value> parts;
    for (Value v : vs)
      parts.push_back(warpReduce(
          v, [&](Value x, Value y) { return arith::AddFOp::create(b, x, y); }));
    Value red = func.getWorkgroupAttributions()[3 + redParity];
    redParity ^= 1;
    ifThen(cmpI(arith::CmpIPredicate::eq, lane, cIdx(0)), [&] {
      for (int64_t t = 0; t < T; ++t)
        store(parts[t], red, {rows[t], warpInGroup});
    });
    barrier();
    SmallVector<Value> sums;
    for (int64_t t = 0; t < T; ++t) {
      Value sum = load(red, {rows[t], cIdx(0)});
      for (int64_t w = 1; w < NW; ++w)
        sum = arith::AddFOp::create(b, sum, load(red, {rows[t], cIdx(w)}));
      sums.push_back(sum);
    }
    return sums;
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

    Value guard = load(guardPtr, {});
    Value slot = gpu::BlockIdOp::create(b, gpu::Dimension::x);
    Value slotCand = view(candPtr, i32, {fixed(B)});
    Value cand = load(slotCand, {slot});
    Value run = andI(cmpI(arith::CmpIPredicate::ne, guard, cI32(0)),
                     cmpI(arith::CmpIPredicate::sge, cand, cI32(0)));
    // Block-uniform: every thread of a block sees the same guard and slot.
    ifThen(run, [&] {
      makeViews(statePtr, derivedPtr, countPtr, tablePtrs, actionPtr, logpPtr);
      emitSlot(slot);
    });
    gpu::ReturnOp::create(b);
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
    int64_t w = shape.atomWidth;
    Value predRows = toIndex(arith::AddIOp::create(b, numR, cI32(2)));
    // The kernel is not told E (docs/gpu-kernels.md's signature): constant
    // ids come from engine-made states, so they are < E; the view takes the
    // largest extent an int32 offset reaches.
    int64_t constRows = std::numeric_limits<int32_t>::max() / w;
    predProj = view(tablePtrs[0], f32, {predRows, fixed(w)});
    argConst[0] = view(tablePtrs[1], f32, {fixed(constRows), fixed(w)});
    argConst[1] = view(tablePtrs[2], f32, {fixed(constRows), fixed(w)});
    argVar[0] = view(tablePtrs[3], f32, {fixed(2 * A), fixed(w)});
    argVar[1] = view(tablePtrs[4], f32, {fixed(2 * A), fixed(w)});
    unsigned next = 5;
    for (const VectorLayer &layer : shape.layers) {
      LayerViews views;
      if (layer.kind == VectorLayer::Linear) {
        views.weight =
            view(tablePtrs[next++], f32, {fixed(layer.in), fixed(layer.out)});
        views.bias = view(tablePtrs[next++], f32, {fixed(layer.out)});
      } else if (layer.kind == VectorLayer::LayerNorm) {
        views.weight = view(tablePtrs[next++], f32, {fixed(layer.out)});
        views.bias = view(tablePtrs[next++], f32, {fixed(layer.out)});
      }
      layerViews.push_back(views);
    }
  }

  void emitSlot(Value slot) {
    Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
    group = arith::DivUIOp::create(b, tid, cIdx(Wp));
    feature = arith::RemUIOp::create(b, tid, cIdx(Wp));
    lane = arith::RemUIOp::create(b, tid, cIdx(kWarp));
    warpInGroup = arith::DivUIOp::create(b, feature, cIdx(kWarp));
    // Row t of the group's block of the per-state workgroup buffers.
    for (int64_t t = 0; t < T; ++t)
      rows.push_back(arith::AddIOp::create(
          b, arith::MulIOp::create(b, group, cIdx(T)), cIdx(t)));
    Value k = toIndex(load(count, {slot}));
    Value items = arith::AddIOp::create(b, k, cIdx(1));
    Value rounds = arith::DivUIOp::create(
        b, arith::AddIOp::create(b, items, cIdx(G * T - 1)), cIdx(G * T));
    Value parent = func.getWorkgroupAttributions()[2];
    Value logits = func.getWorkgroupAttributions()[5];
    int64_t d = shape.outWidth;
    Value inOut = cmpI(arith::CmpIPredicate::ult, feature, cIdx(d));
    Value featureOut = arith::MinUIOp::create(b, feature, cIdx(d - 1));

    forLoop(cIdx(0), rounds, cIdx(1), {}, [&](Value round, ValueRange) {
      // Reads of the previous round's workgroup memory end here.
      barrier();
      redParity = 0;
      actParity = 0;
      // State t of the group is item round*G*T + t*G + group: item 0 (the
      // parent) is state 0 of group 0 in round 0.
      Value base = arith::AddIOp::create(
          b, arith::MulIOp::create(b, round, cIdx(G * T)), group);
      SmallVector<Value> item, valid;
      for (int64_t t = 0; t < T; ++t) {
        item.push_back(arith::AddIOp::create(b, base, cIdx(t * G)));
        valid.push_back(cmpI(arith::CmpIPredicate::ult, item[t], items));
      }
      SmallVector<Value> enc = encode(slot, item, valid);

      Value isParent =
          andI(cmpI(arith::CmpIPredicate::eq, item[0], cIdx(0)), inOut);
      ifThen(isParent, [&] { store(enc[0], parent, {feature}); });
      barrier();
      Value parentFeature = load(parent, {featureOut});
      SmallVector<Value> prods, isChild;
      for (int64_t t = 0; t < T; ++t) {
        isChild.push_back(
            andI(valid[t], cmpI(arith::CmpIPredicate::ugt, item[t], cIdx(0))));
        Value prod = arith::MulFOp::create(b, enc[t], parentFeature);
        prods.push_back(sel(andI(isChild[t], inOut), prod, cF32(0)));
      }
      SmallVector<Value> dots = groupSums(prods);
      Value first = cmpI(arith::CmpIPredicate::eq, feature, cIdx(0));
      for (int64_t t = 0; t < T; ++t)
        ifThen(andI(isChild[t], first), [&] {
          Value logit = arith::MulFOp::create(b, dots[t], scale);
          store(logit, logits,
                {arith::SubIOp::create(b, item[t], cIdx(1)).getResult()});
        });
      return SmallVector<Value>{};
    });
    barrier();
    Value firstWarp = cmpI(arith::CmpIPredicate::ult, tid, cIdx(kWarp));
    ifThen(firstWarp, [&] { emitSelect(slot, k, logits); });
  }

  /// enc(item[t]) for this thread's feature, t < T (0 past the output
  /// width).
  SmallVector<Value> encode(Value slot, ArrayRef<Value> items,
                            ArrayRef<Value> valids) {
    int64_t w = shape.atomWidth;
    Value inAtom = cmpI(arith::CmpIPredicate::ult, feature, cIdx(w));
    Value col = arith::MinUIOp::create(b, feature, cIdx(w - 1));
    Value varRows = cI32(2 * A);
    SmallVector<Value> curs;
    for (size_t t = 0; t < items.size(); ++t) {
      Value item = items[t], valid = valids[t];
      Value isState = cmpI(arith::CmpIPredicate::eq, item, cIdx(0));
      Value child = arith::SubIOp::create(
          b, arith::MaxUIOp::create(b, item, cIdx(1)), cIdx(1));

      // One atom's term, added to `acc` when the atom is a goal (p >= 0) and
      // the feature is in the atom width.
      auto addAtom = [&](Value acc, Value p, Value x, Value y) -> Value {
        p = sel(valid, p, cI32(-1)); // an item past the list reads as padding
        Value isAtom = cmpI(arith::CmpIPredicate::sge, p, cI32(0));
        Value hasArgs = andI(isAtom, cmpI(arith::CmpIPredicate::slt, p, numR));
        Value predRow =
            toIndex(clampRow(p, arith::AddIOp::create(b, numR, cI32(2))));
        Value pre = load(predProj, {predRow, col});
        Value sum = arith::AddFOp::create(
            b, arith::AddFOp::create(b, pre, argTerm(0, x, col, varRows)),
            argTerm(1, y, col, varRows));
        Value value = sel(hasArgs, sum, pre);
        if (shape.atomRelu)
          value = relu(value);
        Value next = arith::AddFOp::create(b, acc, value);
        return sel(andI(isAtom, inAtom), next, acc);
      };
      // The atoms (p, x, y) of the parent or of child `item - 1`.
      auto loadAtoms = [&](ValueRange positions) {
        SmallVector<Type> types(3 * positions.size(), i32);
        return ifElse(
            isState, types,
            [&] {
              SmallVector<Value> v;
              for (Value a : positions)
                for (int64_t c = 0; c < 3; ++c)
                  v.push_back(load(state, {slot, a, cIdx(c)}));
              return v;
            },
            [&] {
              Value s = arith::MinUIOp::create(b, child, cIdx(S - 1));
              SmallVector<Value> v;
              for (Value a : positions)
                for (int64_t c = 0; c < 3; ++c)
                  v.push_back(load(derived, {slot, s, a, cIdx(c)}));
              return v;
            });
      };

      Value cur;
      if (A <= kUnrolledAtoms) {
        // Straight-line code: all 3A state words, then all table rows, are
        // independent loads in flight together.
        SmallVector<Value> positions;
        for (int64_t a = 0; a < A; ++a)
          positions.push_back(cIdx(a));
        SmallVector<Value> atoms = loadAtoms(positions);
        cur = cF32(0);
        for (int64_t a = 0; a < A; ++a)
          cur = addAtom(cur, atoms[3 * a], atoms[3 * a + 1], atoms[3 * a + 2]);
      } else {
        cur = forLoop(cIdx(0), cIdx(A), cIdx(1), {cF32(0)},
                      [&](Value a, ValueRange iters) {
                        SmallVector<Value> atom = loadAtoms({a});
                        return SmallVector<Value>{
                            addAtom(iters[0], atom[0], atom[1], atom[2])};
                      })[0];
      }

      curs.push_back(cur);
    }

    // The vector layers, on the T states together.
    for (auto [layer, views] : llvm::zip(shape.layers, layerViews)) {
      if (layer.kind == VectorLayer::Relu) {
        for (Value &cur : curs)
          cur = relu(cur);
      } else if (layer.kind == VectorLayer::Linear) {
        curs = linear(layer, views, curs);
      } else {
        curs = layerNorm(layer, views, curs);
      }
    }
    return curs;
  }

  /// argN of the atom: argN_const[t] for a constant, argN_var[k-1] for Vk.
  Value argTerm(int which, Value term, Value col, Value varRows) {
    Value isConst = cmpI(arith::CmpIPredicate::sge, term, cI32(0));
    Value constRow =
        toIndex(arith::MaxSIOp::create(b, term, cI32(0)).getResult());
    Value varRow = toIndex(
        clampRow(arith::SubIOp::create(
                     b, arith::SubIOp::create(b, cI32(0), term), cI32(1)),
                 varRows));
    Value fromConst = load(argConst[which], {constRow, col});
    Value fromVar = load(argVar[which], {varRow, col});
    return sel(isConst, fromConst, fromVar);
  }

  struct LayerViews {
    Value weight, bias;
  };

  /// y[j] = bias[j] + sum_i x[i] * Wt[i][j] for each of the T states, x
  /// through workgroup memory; each weight load serves the T states.
  SmallVector<Value> linear(const VectorLayer &layer, const LayerViews &views,
                            ArrayRef<Value> curs) {
    Value act = func.getWorkgroupAttributions()[actParity];
    actParity ^= 1;
    Value inIn = cmpI(arith::CmpIPredicate::ult, feature, cIdx(layer.in));
    ifThen(inIn, [&] {
      for (int64_t t = 0; t < T; ++t)
        store(curs[t], act, {rows[t], feature});
    });
    barrier();
    Value col = arith::MinUIOp::create(b, feature, cIdx(layer.out - 1));
    Value bias = load(views.bias, {col});
    SmallVector<Value> inits(T, bias);
    SmallVector<Value> ys =
        forLoop(cIdx(0), cIdx(layer.in), cIdx(1), inits,
                [&](Value i, ValueRange iters) {
                  Value w = load(views.weight, {i, col});
                  SmallVector<Value> next;
                  for (int64_t t = 0; t < T; ++t) {
                    Value x = load(act, {rows[t], i});
                    next.push_back(arith::AddFOp::create(
                        b, iters[t], arith::MulFOp::create(b, x, w)));
                  }
                  return next;
                });
    Value inOut = cmpI(arith::CmpIPredicate::ult, feature, cIdx(layer.out));
    for (Value &y : ys)
      y = sel(inOut, y, cF32(0));
    return ys;
  }

  /// ((x - mean) * (1 / sqrt(var + eps))) * gamma + beta over the width, for
  /// each of the T states.
  SmallVector<Value> layerNorm(const VectorLayer &layer,
                               const LayerViews &views, ArrayRef<Value> curs) {
    Value inW = cmpI(arith::CmpIPredicate::ult, feature, cIdx(layer.out));
    Value zero = cF32(0);
    Value n = cF32(static_cast<double>(layer.out));
    SmallVector<Value> xs;
    for (Value cur : curs)
      xs.push_back(sel(inW, cur, zero));
    SmallVector<Value> sums = groupSums(xs);
    SmallVector<Value> centered, squares;
    for (int64_t t = 0; t < T; ++t) {
      Value mean = arith::DivFOp::create(b, sums[t], n);
      centered.push_back(arith::SubFOp::create(b, xs[t], mean));
      Value masked = sel(inW, centered[t], zero);
      squares.push_back(arith::MulFOp::create(b, masked, masked));
    }
    SmallVector<Value> sqSums = groupSums(squares);
    Value col = arith::MinUIOp::create(b, feature, cIdx(layer.out - 1));
    Value gamma = load(views.weight, {col});
    Value beta = load(views.bias, {col});
    SmallVector<Value> ys;
    for (int64_t t = 0; t < T; ++t) {
      Value var = arith::DivFOp::create(b, sqSums[t], n);
      Value shifted = arith::AddFOp::create(b, var, cF32(layer.eps));
      // llvm.nvvm.sqrt.rn.f: IEEE sqrt (libdevice's __nv_sqrtf would be the
      // approximate sqrt unless __CUDA_PREC_SQRT is reflected as 1).
      Value root = LLVM::CallIntrinsicOp::create(
                       b, f32, b.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                       ValueRange{shifted})
                       .getResult(0);
      Value rstd = arith::DivFOp::create(b, cF32(1), root);
      Value scaled = arith::MulFOp::create(
          b, arith::MulFOp::create(b, centered[t], rstd), gamma);
      ys.push_back(sel(inW, arith::AddFOp::create(b, scaled, beta), zero));
    }
    return ys;
  }

  /// Spec §4 over logits[0..k) by warp 0 (lane = thread).
  void emitSelect(Value slot, Value k, Value logits) {
    Value negInf = cF32(-std::numeric_limits<float>::infinity());
    Value m =
        forLoop(lane, k, cIdx(kWarp), {negInf}, [&](Value i, ValueRange iters) {
          Value l = load(logits, {i});
          return SmallVector<Value>{arith::MaxNumFOp::create(b, iters[0], l)};
        })[0];
    m = warpReduce(
        m, [&](Value x, Value y) { return arith::MaxNumFOp::create(b, x, y); });
    Value md = arith::ExtFOp::create(b, f64, m);
    Value magnitude =
        arith::MaxNumFOp::create(b, cF64(1.0), math::AbsFOp::create(b, md));
    Value threshold = arith::SubFOp::create(
        b, md, arith::MulFOp::create(b, cF64(1e-5), magnitude));

    Value kI32 = toI32(k);
    Value first =
        forLoop(lane, k, cIdx(kWarp), {kI32}, [&](Value i, ValueRange iters) {
          Value l = arith::ExtFOp::create(b, f64, load(logits, {i}));
          Value hit =
              arith::CmpFOp::create(b, arith::CmpFPredicate::OGE, l, threshold);
          Value better = arith::MinSIOp::create(b, iters[0], toI32(i));
          return SmallVector<Value>{sel(hit, better, iters[0])};
        })[0];
    first = warpReduce(first, [&](Value x, Value y) {
      return arith::MinSIOp::create(b, x, y);
    });
    // In range even for NaN logits (no index reaches the threshold).
    first = arith::MinSIOp::create(b, first,
                                   arith::SubIOp::create(b, kI32, cI32(1)));
    Value sum = forLoop(
        lane, k, cIdx(kWarp), {cF64(0)}, [&](Value i, ValueRange iters) {
          Value l = arith::ExtFOp::create(b, f64, load(logits, {i}));
          Value e = math::ExpOp::create(b, arith::SubFOp::create(b, l, md));
          return SmallVector<Value>{arith::AddFOp::create(b, iters[0], e)};
        })[0];
    sum = warpReduce(
        sum, [&](Value x, Value y) { return arith::AddFOp::create(b, x, y); });
    ifThen(cmpI(arith::CmpIPredicate::eq, lane, cIdx(0)), [&] {
      Value chosen =
          arith::ExtFOp::create(b, f64, load(logits, {toIndex(first)}));
      Value logp = arith::SubFOp::create(
          b, arith::SubFOp::create(b, chosen, md), math::LogOp::create(b, sum));
      Value single = cmpI(arith::CmpIPredicate::sle, k, cIdx(1));
      Value result =
          sel(single, cF32(0), arith::TruncFOp::create(b, f32, logp));
      store(sel(single, cI32(0), first), action, {slot});
      store(result, actionLogp, {slot});
    });
  }

  ScoreSelectOp op;
  const EncoderShape &shape;
  int64_t A, S, B, G, T, Wp, NW;
  ImplicitLocOpBuilder b;
  Type i1, i32, f32, f64, index;
  Attribute global, workgroup;
  gpu::GPUFuncOp func;

  // Views and per-thread values of the body.
  Value state, derived, count, action, actionLogp, predProj;
  Value argConst[2], argVar[2];
  SmallVector<LayerViews> layerViews;
  Value numR, scale;
  Value group, feature, lane, warpInGroup;
  SmallVector<Value> rows; ///< group * T + t, t < T
  int redParity = 0, actParity = 0;
};

} // namespace

FailureOr<PolicyKernel>
mlir::eval::buildPolicyKernel(ScoreSelectOp op, gpu::GPUModuleOp module,
                              StringRef name, StringRef guard, int64_t groups,
                              int64_t statesPerThread, int64_t minBlocksPerSm) {
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
  int64_t Wp = (shape->maxWidth + kWarp - 1) / kWarp * kWarp;
  if (Wp > 1024)
    return op.emitOpError() << "the GPU policy kernel supports widths up to "
                               "1024, got "
                            << shape->maxWidth;
  int64_t G = std::max<int64_t>(1, std::min<int64_t>(groups, 1024 / Wp));
  int64_t T = statesPerThread;
  int64_t sharedBytes =
      4 * (2 * G * T * Wp + Wp + 2 * G * T * (Wp / kWarp) + S);
  if (sharedBytes > 48 * 1024)
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
  for (const VectorLayer &layer : shape->layers) {
    if (layer.kind != VectorLayer::Linear)
      continue;
    // The kernel reads Wt [in, out]: the buffer must be the transposed table.
    BufferOp weight = *getWeightBuffer(op, layer.weight);
    StringRef init = weight.getInit();
    bool transposed = false;
    if (init.consume_front("weights:"))
      for (auto t : program.getBody().front().getOps<TransposeWeightOp>())
        transposed |= t.getDst() == init && t.getTable() == layer.weight;
    if (!transposed)
      return op.emitOpError() << "linear weight '" << layer.weight
                              << "' must be planned as its transpose (run "
                                 "eval-plan-buffers)";
  }
  kernel.args.push_back("sym:R");
  SmallString<16> scale; // the shortest text that reads back as this float
  op.getScaleAttr().getValue().toString(scale);
  kernel.args.push_back(("f32:" + scale).str());
  kernel.args.push_back(buf((*action)[0]));
  kernel.args.push_back(buf((*logp)[0]));

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

  KernelGenerator generator(op, *shape, A, S, B, G, T, module);
  kernel.func = generator.emit(name, argTypes);
  // ptxas caps the registers so that this many blocks fit on an SM.
  if (minBlocksPerSm > 0)
    kernel.func->setAttr("nvvm.minctasm",
                         IntegerAttr::get(IntegerType::get(op.getContext(), 32),
                                          minBlocksPerSm));
  kernel.block = generator.threads();
  return kernel;
}
