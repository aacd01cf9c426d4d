//===- PersistentLoop.cpp - the persistent policy kernel's loop
//-------------===//
//
// The persistent form (schedule=persistent): one block per slot copies the
// slot's state and derived states into the derive's shared memory, stores
// slot.cu's arguments there once, then loops: score the slot (emitSlot),
// call slot.cu's advance-and-derive function (linked at load), until it
// returns 0. Its dynamic shared memory follows PersistentLayout (Tiling.h).
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

void KernelGenerator::persistentSharedBases() {
  PersistentLayout l = persistentLayout(tl, A, S, numSlotStepArgs);
  Value dyn = LLVM::AddressOfOp::create(b, sharedPtr, kPolicyRowsSymbol);
  scratchBase = LLVM::PtrToIntOp::create(b, i64, dyn);
  actBase = addI(scratchBase, cI64(l.rows));
  parentBase = addI(scratchBase, cI64(l.parent));
  logitsShared = addI(scratchBase, cI64(l.logits));
  slotArgsShared = addI(scratchBase, cI64(l.args));
}

void KernelGenerator::emitPersistentLoop(Value slot, Value part,
                                         ValueRange slotStepArgs) {
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
  ifThen(cmpI(arith::CmpIPredicate::eq, tid, cIdx(0)),
         [&] { storeArgWords(slotArgsShared, slotStepArgs); });
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
