//===- Selection.cpp - logits rows and spec §4's select
//---------------------===//
//
// Where a slot's logits meet (global rows, or the persistent block's shared
// memory), the arrival count that lets the last of a slot's blocks select
// (a release add; the last block's fence is the acquire), and the select
// itself: warp 0 takes the max, the threshold m - 1e-5 * max(1, |m|) in
// double, the smallest index at or above it, and log_softmax in double
// (libdevice's exp/log), as the host's selectAction.
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

void KernelGenerator::emitArrival(Value slot, Value k, Value parts, Value tid) {
  if (slotStep) {
    // One block per slot: its logits are visible to warp 0 after the
    // barrier (global stores of the block, ordered by bar.sync).
    barrier();
    ifThen(cmpI(arith::CmpIPredicate::ult, tid, cIdx(kWarp)),
           [&] { emitSelect(slot, k); });
    return;
  }
  // Arrival: the block's logits are visible GPU-wide before its count is.
  // The barrier orders every thread's logits before thread 0's count,
  // whose add is a release at GPU scope: no fence in every block (a
  // membar.gl, which on sm_90 also invalidates the SM's L1 and with it the
  // other blocks' cached weights and table rows). The last block's fence
  // below is the acquire.
  barrier();
  Value flagPtr = lastFlagPtr();
  ifThen(cmpI(arith::CmpIPredicate::eq, tid, cIdx(0)), [&] {
    Value before = addRelease(
        addI(baseAddress(arrivals), mulI(toI64(slot), cI64(4))), cI32(1));
    Value isLast = cmpI(arith::CmpIPredicate::eq, toIndex(before),
                        arith::SubIOp::create(b, parts, cIdx(1)));
    LLVM::StoreOp::create(b, arith::ExtUIOp::create(b, i32, isLast), flagPtr,
                          /*alignment=*/4);
  });
  barrier();
  // One op at a time (the load before the compare's constant), whatever
  // order the C++ compiler evaluates arguments in.
  Value flag = LLVM::LoadOp::create(b, i32, flagPtr, /*alignment=*/4);
  Value last = cmpI(arith::CmpIPredicate::ne, flag, cI32(0));
  Value selector =
      andI(last, cmpI(arith::CmpIPredicate::ult, tid, cIdx(kWarp)));
  ifThen(selector, [&] {
    NVVM::MembarOp::create(b, NVVM::MemScopeKind::GPU);
    emitSelect(slot, k);
    // Ready for the next step's arrivals.
    ifThen(cmpI(arith::CmpIPredicate::eq, lane, cIdx(0)),
           [&] { store(cI32(0), arrivals, {slot}); });
  });
  // Advance in the policy: the block that selected advances and derives the
  // slot.
  if (policyAdvance)
    ifThen(last, [&] { emitPolicyAdvance(slot); });
}

bool KernelGenerator::lastFlagInPadding() const {
  return tl.actStride() > tl.width();
}

Value KernelGenerator::lastFlagPtr() {
  // Row 0's first padding word: no row is read or written past its width.
  Value address = lastFlagInPadding() ? addI(actBase, cI64(4 * tl.width()))
                  : policyAdvance
                      ? flagShared
                      : baseAddress(func.getWorkgroupAttributions()[2]);
  return LLVM::IntToPtrOp::create(b, sharedPtr, address);
}

Value KernelGenerator::addRelease(Value address, Value value) {
  return LLVM::InlineAsmOp::create(
             b, i32, ValueRange{address, value},
             "atom.release.gpu.global.add.u32 $0, [$1], $2;", "=r,l,r",
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
             ArrayAttr())
      .getResult(0);
}

Value KernelGenerator::logitAddress(Value slot, Value child) {
  if (slotStep)
    return LLVM::IntToPtrOp::create(
        b, sharedPtr, addI(logitsShared, mulI(toI64(child), cI64(4))));
  Value addr = elementAddress(logitsBase, slot, S, child);
  return LLVM::IntToPtrOp::create(b, globalPtr, addr);
}

Value KernelGenerator::loadLogit(Value slot, Value child) {
  return LLVM::LoadOp::create(b, f32, logitAddress(slot, child), 4,
                              /*isVolatile=*/!slotStep);
}

void KernelGenerator::emitSelect(Value slot, Value k) {
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
    Value hit =
        andI(inList[j],
             arith::CmpFOp::create(b, arith::CmpFPredicate::OGE, l, threshold));
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
  first = warpReduce(
      first, [&](Value x, Value y) { return arith::MinSIOp::create(b, x, y); });
  // In range even for NaN logits (no index reaches the threshold).
  first =
      arith::MinSIOp::create(b, first, arith::SubIOp::create(b, kI32, cI32(1)));
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
    Value logp = arith::SubFOp::create(b, arith::SubFOp::create(b, chosen, md),
                                       math::LogOp::create(b, sum));
    // Spec §4: a single child is taken with log-probability 0, whatever
    // its logit (the host does not compute it).
    logp = sel(cmpI(arith::CmpIPredicate::ugt, k, cIdx(1)), logp, cF64(0));
    store(first, action, {slot});
    store(arith::TruncFOp::create(b, f32, logp), actionLogp, {slot});
  });
}
