//===- PolicyAdvance.cpp - the advancing policy kernel's call -------------===//
//
// The advancing form (advance-in-policy) is the step form whose block that
// selects a slot's action then advances and derives that slot in the same
// launch, beside other slots' tiles: slot.cu's proofc_policy_advance, linked
// in. Its rows are in dynamic shared memory (PolicyAdvanceLayout, Tiling.h),
// which the derive's scratch and the function's arguments take over once the
// block has selected (docs/gpu-kernels.md, "The advance in the policy").
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

void KernelGenerator::policyAdvanceSharedBases() {
  PolicyAdvanceLayout l =
      policyAdvanceLayout(tl, A, S, policyAdvanceArgs.size());
  Value dyn = LLVM::AddressOfOp::create(b, sharedPtr, kPolicyRowsSymbol);
  actBase = LLVM::PtrToIntOp::create(b, i64, dyn);
  parentBase = addI(actBase, cI64(l.parent));
  flagShared = addI(actBase, cI64(l.flag));
  slotArgsShared = addI(actBase, cI64(l.args));
}

void KernelGenerator::emitPolicyAdvance(Value slot) {
  // Every thread is done with the rows (and has read the "last block"
  // flag) before thread 0 writes the arguments over them, and the
  // select's action is written before the function's advance reads it.
  barrier();
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  ifThen(cmpI(arith::CmpIPredicate::eq, tid, cIdx(0)),
         [&] { storeArgWords(slotArgsShared, policyAdvanceArgs); });
  barrier();
  Value argsPtr = LLVM::AddrSpaceCastOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext()),
      LLVM::IntToPtrOp::create(b, sharedPtr, slotArgsShared));
  LLVM::CallOp::create(b, policyAdvance, ValueRange{toI32(slot), argsPtr});
}
