//===- FmaLayers.cpp - vector layers by fma
//---------------------------------===//
//
// relu / linear / layer_norm on the Q x F rows: y = bias + sum_i x[i] *
// Wt[i][:] with the rows through the warp's workgroup rows (Wt from
// eval.transpose_weight), LayerNorm with sqrt.rn and div.rn in the host's
// order (normalizeRow, which the tensor-core LayerNorm shares).
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

size_t KernelGenerator::firstLinear() const {
  for (size_t i = 0; i < shape.layers.size(); ++i)
    if (shape.layers[i].kind == VectorLayer::Linear)
      return i;
  return shape.layers.size();
}

SmallVector<SmallVector<Value>>
KernelGenerator::vectorLayers(ArrayRef<VectorLayer> layers,
                              ArrayRef<LayerTables> tables,
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

SmallVector<SmallVector<Value>>
KernelGenerator::linear(const VectorLayer &layer, const LayerTables &tables,
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
        Value wRow = elementAddress(tables.weight, addI(in, cIdx(e)), layer.out,
                                    cIdx(0));
        SmallVector<Value> w = loadRow(wRow, layer.out, false, true);
        for (int64_t t = 0; t < tl.T; ++t)
          for (int64_t c = 0; c < tl.F; ++c)
            ys[t * tl.F + c] =
                math::FmaOp::create(b, xs[t][e], w[c], ys[t * tl.F + c]);
      }
    }
    return ys;
  };
  SmallVector<Value> ys = chunk == layer.in ? body(cIdx(0), inits)
                                            : forLoop(cIdx(0), cIdx(layer.in),
                                                      cIdx(chunk), inits, body);
  // The next layer's writes wait for every lane's reads.
  syncWarp();
  SmallVector<SmallVector<Value>> out(tl.T);
  for (int64_t t = 0; t < tl.T; ++t)
    out[t].assign(ys.begin() + t * tl.F, ys.begin() + (t + 1) * tl.F);
  return out;
}

SmallVector<Value>
KernelGenerator::normalizeRow(ArrayRef<Value> x, ArrayRef<Value> inWidth,
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
  Value root =
      LLVM::CallIntrinsicOp::create(
          b, f32, b.getStringAttr("llvm.nvvm.sqrt.rn.f"), ValueRange{shifted})
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

SmallVector<SmallVector<Value>>
KernelGenerator::layerNorm(const VectorLayer &layer, const LayerTables &tables,
                           ArrayRef<SmallVector<Value>> curs) {
  SmallVector<Value> inW;
  for (int64_t c = 0; c < tl.F; ++c)
    inW.push_back(
        cmpI(arith::CmpIPredicate::ult, addI(col0, cIdx(c)), cIdx(layer.out)));
  SmallVector<Value> gamma = loadRow(tables.weight, layer.out, false, true);
  SmallVector<Value> beta = loadRow(tables.bias, layer.out, false, true);
  SmallVector<SmallVector<Value>> out;
  for (const SmallVector<Value> &cur : curs)
    out.push_back(normalizeRow(cur, inW, gamma, beta, layer,
                               [&](Value v) { return rowSum(v); }));
  return out;
}
