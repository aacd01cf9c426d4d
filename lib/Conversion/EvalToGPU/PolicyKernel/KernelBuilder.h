//===- KernelBuilder.h - the IR builder the policy kernel uses --*- C++ -*-===//
//
// The few-line helpers the policy-kernel generator writes its IR with:
// constants and casts, integer arithmetic and comparisons, memref views of
// bare pointers, scf.if / scf.for with lambdas for their bodies, warp
// butterflies, byte addresses. They know nothing of encoders or tiling
// (KernelGenerator.h builds on them); each creates its ops at the builder's
// insertion point, in the order its C++ is written.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELBUILDER_H
#define PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELBUILDER_H

#include "Tiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::eval::policy_kernel {

class KernelBuilder {
protected:
  KernelBuilder(Location loc, OpBuilder builder) : b(loc, builder) {
    MLIRContext *ctx = b.getContext();
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

  /// The address (i64) of `mem`'s first element.
  Value baseAddress(Value mem) {
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, mem);
    return toI64(ptr);
  }
  /// Each of `args` as an 8-byte word at the shared byte address `base` +
  /// 8 i (a memref's address, or an i32 sign-extended): slot.cu's argument
  /// words, in the order its functions read them. One thread stores them.
  void storeArgWords(Value base, ValueRange args) {
    for (auto [i, a] : llvm::enumerate(args)) {
      Value word = isa<MemRefType>(a.getType())
                       ? baseAddress(a)
                       : Value(arith::ExtSIOp::create(b, i64, a));
      Value addr = addI(base, cI64(8 * static_cast<int64_t>(i)));
      LLVM::StoreOp::create(b, word,
                            LLVM::IntToPtrOp::create(b, sharedPtr, addr), 8);
    }
  }

  /// `base` + (row * cols + col) * 4 for f32 elements; row, col index.
  Value elementAddress(Value base, Value row, int64_t cols, Value col) {
    Value offset = addI(mulI(row, cIdx(cols)), col);
    return addI(base, mulI(toI64(offset), cI64(4)));
  }

  ImplicitLocOpBuilder b;
  Type i1, i32, i64, f32, f64, index;
  VectorType vec4;
  Attribute global, workgroup;
  Type globalPtr, sharedPtr;
};

} // namespace mlir::eval::policy_kernel

#endif // PROOFC_LIB_CONVERSION_EVALTOGPU_POLICYKERNEL_KERNELBUILDER_H
