//===- CopyKernel.cpp - the gpu.func eval.copy launches -------------------===//
//
// @copy_words (CopyKernel.h): flat views of src and dst, then a
// grid-stride scf.for of memref loads and stores under the guard.
//
//===----------------------------------------------------------------------===//
#include "CopyKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

StringRef
mlir::eval::lowering::getOrCreateCopyKernel(gpu::GPUModuleOp gpuModule,
                                            Location loc) {
  StringRef name = "copy_words";
  if (SymbolTable::lookupSymbolIn(gpuModule, name))
    return name;
  MLIRContext *ctx = gpuModule.getContext();
  ImplicitLocOpBuilder b(loc, OpBuilder::atBlockEnd(gpuModule.getBody()));
  Type i32 = b.getI32Type();
  auto global = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Global);
  auto ptr = MemRefType::get({}, i32, MemRefLayoutAttrInterface(), global);
  auto func = gpu::GPUFuncOp::create(
      b, name, b.getFunctionType({ptr, ptr, ptr, i32, i32, i32, i32}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  Value n = entry.getArgument(3);
  for (unsigned i = 4; i < 7; ++i)
    n = arith::MulIOp::create(b, n, entry.getArgument(i));
  Value words = arith::IndexCastOp::create(b, b.getIndexType(), n);
  auto flat = [&](Value p, Value size) {
    auto type = MemRefType::get({ShapedType::kDynamic}, i32,
                                MemRefLayoutAttrInterface(), global);
    return memref::ReinterpretCastOp::create(
        b, type, p, b.getIndexAttr(0), ArrayRef<OpFoldResult>{size},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  };
  Value guardValue =
      memref::LoadOp::create(b, entry.getArgument(0), ValueRange{});
  Value zero = arith::ConstantIntOp::create(b, 0, 32);
  Value run =
      arith::CmpIOp::create(b, arith::CmpIPredicate::ne, guardValue, zero);
  auto ifOp = scf::IfOp::create(b, run, /*withElseRegion=*/false);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Value src = flat(entry.getArgument(1), words);
  Value dst = flat(entry.getArgument(2), words);
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value bdim = gpu::BlockDimOp::create(b, gpu::Dimension::x);
  Value gdim = gpu::GridDimOp::create(b, gpu::Dimension::x);
  Value start =
      arith::AddIOp::create(b, arith::MulIOp::create(b, bid, bdim), tid);
  Value stride = arith::MulIOp::create(b, gdim, bdim);
  scf::ForOp::create(b, start, words, stride, ValueRange{},
                     [&](OpBuilder &, Location, Value i, ValueRange) {
                       Value v = memref::LoadOp::create(b, src, i);
                       memref::StoreOp::create(b, v, dst, i);
                       scf::YieldOp::create(b);
                     });
  b.setInsertionPointAfter(ifOp);
  gpu::ReturnOp::create(b);
  return name;
}
