//===- TensorCoreLayers.cpp - linear layers on the tensor cores
//-------------===//
//
// With TF32 fragments (eval.split_tf32_weight): a warp's 16 rows are one
// m16 tile, three mma.sync m16n8k8 per tile and k-step (3xTF32, FP32
// accurate); with f16 fragments (eval.split_f16_weight, matmul=f16x3) three
// m16n8k16 over half the k-steps (the same bits a factor; half's narrower
// exponent). The values stay in the accumulator ("C") layout for the layers
// after it, LayerNorm and the logits' dot included (emitLogitsC).
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

void KernelGenerator::emitLogitsC(Value slot, Value childBase, Value k,
                                  ArrayRef<Value> enc) {
  int64_t width = shape.outWidth;
  Value isParentQuad = andI(cmpI(arith::CmpIPredicate::eq, warp, cIdx(0)),
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

Value KernelGenerator::cRow(int64_t h) {
  return addI(mulI(warp, cIdx(16)), addI(quadGroup, cIdx(8 * h)));
}

Value KernelGenerator::actAddress(Value row, Value col) {
  return elementAddress(actBase, row, tl.actStride(), col);
}

SmallVector<Value> KernelGenerator::loadPair(Value addr, bool shared,
                                             bool invariant) {
  auto vec2 = VectorType::get({2}, f32);
  Value v = LLVM::LoadOp::create(
      b, vec2,
      LLVM::IntToPtrOp::create(b, shared ? sharedPtr : globalPtr, addr),
      /*alignment=*/8, /*isVolatile=*/false, /*isNonTemporal=*/false,
      invariant);
  return {LLVM::ExtractElementOp::create(b, f32, v, cI32(0)),
          LLVM::ExtractElementOp::create(b, f32, v, cI32(1))};
}

void KernelGenerator::storePair(Value addr, Value x, Value y) {
  auto vec2 = VectorType::get({2}, f32);
  Value v = LLVM::PoisonOp::create(b, vec2);
  v = LLVM::InsertElementOp::create(b, vec2, v, x, cI32(0));
  v = LLVM::InsertElementOp::create(b, vec2, v, y, cI32(1));
  LLVM::StoreOp::create(b, v, LLVM::IntToPtrOp::create(b, sharedPtr, addr),
                        /*alignment=*/8);
}

SmallVector<Value> KernelGenerator::loadCColumns(Value base, int64_t width,
                                                 bool shared, bool invariant) {
  SmallVector<Value> out;
  for (int64_t nt = 0; nt < width / 8; ++nt) {
    Value col = addI(cIdx(8 * nt), mulI(quadLane, cIdx(2)));
    llvm::append_range(out, loadPair(addI(base, mulI(toI64(col), cI64(4))),
                                     shared, invariant));
  }
  return out;
}

Value KernelGenerator::quadSum(Value v) {
  return butterfly(
      v, 4, [&](Value x, Value y) { return arith::AddFOp::create(b, x, y); });
}

Value KernelGenerator::toTf32(Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, i32, b.getStringAttr("llvm.nvvm.f2tf32.rna"), ValueRange{x})
      .getResult(0);
}

SmallVector<Value> KernelGenerator::vectorLayersTensorCores() {
  if (!atomLayer)
    return vectorLayersTensorCores(/*folded=*/false);
  // The same run-time choice as encode()'s (N != 0: the table was made).
  SmallVector<Type> types(shape.outWidth / 2, f32);
  return ifElse(
      cmpI(arith::CmpIPredicate::ne, atomArgRows, cI32(0)), types,
      [&] { return vectorLayersTensorCores(/*folded=*/true); },
      [&] { return vectorLayersTensorCores(/*folded=*/false); });
}

SmallVector<Value> KernelGenerator::vectorLayersTensorCores(bool folded) {
  SmallVector<Value> cv;
  int64_t width = 0; // of cv; 0 before the first linear
  size_t first = firstLinear();
  if (folded) {
    // The rows hold the first linear's products (eval.fold_atom_layer):
    // its output is each row plus the bias, in the C layout.
    const VectorLayer &layer = shape.layers[first];
    width = layer.out;
    SmallVector<Value> bias =
        loadCColumns(layerTables[first].bias, width, false, true);
    cv.resize(width / 2);
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t nt = 0; nt < width / 8; ++nt) {
        Value col = addI(cIdx(8 * nt), mulI(quadLane, cIdx(2)));
        SmallVector<Value> pair =
            loadPair(actAddress(cRow(h), col), /*shared=*/true, false);
        for (int64_t e = 0; e < 2; ++e)
          cv[cIndex(width, h, nt, e)] =
              arith::AddFOp::create(b, pair[e], bias[2 * nt + e]);
      }
    // The next linear's writes wait for every lane's reads.
    syncWarp();
    ++first;
  }
  for (size_t i = first; i < shape.layers.size(); ++i) {
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
      cv = linearTensorCores(layer, tables);
      width = layer.out;
      // The next layer's writes wait for every lane's reads.
      syncWarp();
    }
  }
  return cv;
}

SmallVector<Value>
KernelGenerator::linearTensorCores(const VectorLayer &layer,
                                   const LayerTables &tables) {
  MLIRContext *ctx = b.getContext();
  const bool f16 = tl.matmul == Tiling::Matmul::F16x3;
  const int64_t kStep = tl.mmaK();
  int64_t tiles = layer.out / 8;
  SmallVector<Value> bias = loadCColumns(tables.bias, layer.out, false, true);
  SmallVector<Value> inits; // [nt][c0..c3]: (g, 2t), (g, 2t+1), (g+8, ..)
  for (int64_t nt = 0; nt < tiles; ++nt)
    inits.append(
        {bias[2 * nt], bias[2 * nt + 1], bias[2 * nt], bias[2 * nt + 1]});
  Type accType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
  Value lanesBase =
      addI(tables.weight, mulI(toI64(lane), cI64(16))); // this lane's tile
  // One k-step's operands: A split into high and low parts, and the lane's
  // B fragments of every n-tile (16 bytes each: hi b0, hi b1, lo b0, lo b1).
  // TF32 (m16n8k8): A's rows g, g + 8 at columns 8ks + t, 8ks + t + 4, one
  // TF32 value a register. f16 (m16n8k16): a register is two halves, and
  // the k-step's 16 columns are taken in the order eval.split_f16_weight
  // stores B in: the halves of a register are the columns c and c + 4, so
  // that a lane reads columns 16ks + t + {0, 4, 8, 12}, the TF32 loads'
  // banks (the sum is over the same 16 products in another order).
  struct StepOperands {
    SmallVector<Value> hi, lo;
    SmallVector<SmallVector<Value>> w;
  };
  auto vec4i = VectorType::get({4}, i32);
  auto vec2h = VectorType::get({2}, b.getF16Type());
  // x as high and low halves: hi = f16(x), lo = f16(x - hi), both exact
  // conversions' roundings to nearest even (cvt.rn.f16.f32).
  auto splitF16 = [&](Value x0, Value x1, SmallVector<Value> &hi,
                      SmallVector<Value> &lo) {
    Value h = LLVM::PoisonOp::create(b, vec2h), l = h;
    Value xs[2] = {x0, x1};
    for (int64_t e = 0; e < 2; ++e) {
      Value xh = arith::TruncFOp::create(b, b.getF16Type(), xs[e]);
      Value rest =
          arith::SubFOp::create(b, xs[e], arith::ExtFOp::create(b, f32, xh));
      Value xl = arith::TruncFOp::create(b, b.getF16Type(), rest);
      h = LLVM::InsertElementOp::create(b, vec2h, h, xh, cI32(e));
      l = LLVM::InsertElementOp::create(b, vec2h, l, xl, cI32(e));
    }
    hi.push_back(h);
    lo.push_back(l);
  };
  auto loadStep = [&](Value ks) {
    StepOperands op;
    Value col = addI(mulI(ks, cIdx(kStep)), quadLane);
    if (f16) {
      // a0 (g; c, c + 4), a1 (g + 8; ..), a2 (g; c + 8, c + 12), a3: the
      // loads first, in this order. Each op is made in its own statement:
      // the order of C++'s argument evaluation (gcc's and clang's differ)
      // must not decide the IR's.
      SmallVector<Value> a;
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t e = 0; e < 2; ++e) {
            Value row = cRow(h);
            Value column = addI(col, cIdx(8 * half + 4 * e));
            a.push_back(load1(actAddress(row, column)));
          }
      for (int64_t r = 0; r < 4; ++r)
        splitF16(a[2 * r], a[2 * r + 1], op.hi, op.lo);
    } else {
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
    }
    Value ksBase = addI(lanesBase, mulI(toI64(ks), cI64(tiles * 32 * 16)));
    for (int64_t nt = 0; nt < tiles; ++nt) {
      Value ptr = LLVM::IntToPtrOp::create(b, globalPtr,
                                           addI(ksBase, cI64(nt * 32 * 16)));
      Value w = LLVM::LoadOp::create(b, vec4i, ptr, /*alignment=*/16,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false,
                                     /*invariant=*/true);
      SmallVector<Value> wv;
      for (int64_t e = 0; e < 4; ++e) {
        Value word = LLVM::ExtractElementOp::create(b, i32, w, cI32(e));
        wv.push_back(f16 ? LLVM::BitcastOp::create(b, vec2h, word) : word);
      }
      op.w.push_back(wv);
    }
    return op;
  };
  auto mmaStep = [&](const StepOperands &op, SmallVector<Value> c) {
    NVVM::MMATypes type = f16 ? NVVM::MMATypes::f16 : NVVM::MMATypes::tf32;
    for (int64_t nt = 0; nt < tiles; ++nt) {
      SmallVector<Value> tile(ArrayRef<Value>(c).slice(4 * nt, 4));
      auto mma = [&](ArrayRef<Value> aPart, Value b0, Value b1) {
        Value r = NVVM::MmaOp::create(
            b, accType, aPart, ValueRange{b0, b1}, tile, {16, 8, kStep},
            std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{type, type},
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
  // tl.stepsInFlight k-steps per iteration, their loads first: one L2
  // round trip for the weights of all of them.
  int64_t steps = layer.in / kStep;
  int64_t per = steps % tl.stepsInFlight == 0 ? tl.stepsInFlight : 1;
  SmallVector<Value> acc = forLoop(
      cIdx(0), cIdx(steps), cIdx(per), inits, [&](Value ks, ValueRange iters) {
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

Value KernelGenerator::load1(Value addr) {
  return LLVM::LoadOp::create(b, f32,
                              LLVM::IntToPtrOp::create(b, sharedPtr, addr), 4);
}

SmallVector<Value> KernelGenerator::layerNormC(const VectorLayer &layer,
                                               const LayerTables &tables,
                                               ArrayRef<Value> cv) {
  int64_t width = layer.out;
  SmallVector<Value> gamma = loadCColumns(tables.weight, width, false, true);
  SmallVector<Value> beta = loadCColumns(tables.bias, width, false, true);
  SmallVector<Value> out(cv.begin(), cv.end());
  int64_t per = width / 4; // values of one row in this lane
  for (int64_t h = 0; h < 2; ++h) {
    SmallVector<Value> y =
        normalizeRow(ArrayRef<Value>(cv).slice(h * per, per), {}, gamma, beta,
                     layer, [&](Value v) { return quadSum(v); });
    std::copy(y.begin(), y.end(), out.begin() + h * per);
  }
  return out;
}
