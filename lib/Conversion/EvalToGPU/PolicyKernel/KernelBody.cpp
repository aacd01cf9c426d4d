//===- KernelBody.cpp - the policy kernel's body
//----------------------------===//
//
// The kernel as a whole: its signature and workgroup memory (emit), the
// arguments' views and the guard (emitBody), a slot's thread layout and its
// one-successor shortcut (emitSlot), and a part of a slot: the parent and
// up to rows - 1 children encoded, dotted with enc(parent) and scaled into
// the logits row (emitPart). The block rows map to items here
// (itemOfRow / childOfRow).
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

#include "proofc/contract/kernel_abi.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

gpu::GPUFuncOp KernelGenerator::emit(StringRef name, ArrayRef<Type> argTypes) {
  auto fnType = b.getFunctionType(argTypes, {});
  // The persistent kernel's rows are in dynamic shared memory: the slot
  // function's static shared memory (the engine's) takes most of the 48 KiB
  // a kernel may declare statically.
  // The step form's "this block is the last" flag (emitArrival) has its own
  // word only where the rows have no padding (the FMA tiles): the tensor-
  // core rows' padding holds it (lastFlagPtr), so that a one-warp block
  // takes 4,608 bytes, not 4,612, and the 24 blocks an SM that 80
  // registers allow fit the 132 KiB shared-memory carveout with the 1 KiB
  // the driver reserves a block (the SM's L1 124 KiB instead of 92).
  SmallVector<Type> shared;
  if (!slotStep && !policyAdvance) {
    shared = {wgType({tl.rowsPerPass(), tl.actStride()}), // a warp's rows
              wgType({tl.width()})};                      // enc(parent)
    if (!lastFlagInPadding())
      shared.push_back(
          MemRefType::get({1}, i32, MemRefLayoutAttrInterface(), workgroup));
  }
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

void KernelGenerator::emitBody() {
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
  if (atomLayer)
    atomArgRows = entry.getArgument(arg++);
  numR = entry.getArgument(arg++);
  scale = entry.getArgument(arg++);
  Value actionPtr = entry.getArgument(arg++);
  Value logpPtr = entry.getArgument(arg++);
  // The step form's scratch, where a slot's blocks meet (the persistent
  // block is its slot's only one and keeps its logits in shared memory).
  Value logitsPtr, arrivalsPtr, gridPtr, listPtr;
  if (!slotStep) {
    logitsPtr = entry.getArgument(arg++);
    arrivalsPtr = entry.getArgument(arg++);
  }
  if (gridWords || slotList) {
    gridPtr = entry.getArgument(arg++);
    listPtr = entry.getArgument(arg++);
  }

  SmallVector<Value> slotStepArgs(entry.getArguments().drop_front(arg));

  Value guard = load(guardPtr, {});
  // Block bid is part bid / B of slot bid % B (persistent: one part).
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value slot = arith::RemUIOp::create(b, bid, cIdx(B));
  Value part = arith::DivUIOp::create(b, bid, cIdx(B));
  Value slotCand = view(candPtr, i32, {fixed(B)});
  Value cand = load(slotCand, {slot});
  // The step form's grid (kernel_abi.h, kPolicyListed), where the kernel
  // takes it: every slot's parts (listed = -1), or block bid runs the list's
  // entry bid (listed = n entries; none when n = 0): the every-slot block
  // it stands for (kPolicyEntryBlock) and its slot's children. Both modes'
  // words are loaded with the guard and the mode (an entry's position
  // depends on bid alone, and bid < B x parts, the entries the list holds),
  // so that every block waits for one round of loads, not two; the mode
  // then picks.
  Value runSlot = slot, runPart = part, runCount;
  // One op at a time: the order of the generated compares is the source's,
  // not the C++ compiler's order of evaluating arguments.
  Value run = cmpI(arith::CmpIPredicate::ne, guard, cI32(0));
  if (gridWords) {
    Value counts = view(countPtr, i32, {fixed(B)});
    Value k = load(counts, {slot});
    Value listed =
        load(view(gridPtr, i32, {fixed(proofc_abi::kPolicyGridWords)}),
             {cIdx(proofc_abi::kPolicyListed)});
    // The plan's grid (PolicyKernel.cpp): B x parts blocks. The advance in
    // the policy lists the next step's entries in the list's other half
    // while this step's blocks read theirs: the engine grid's kEngineRead
    // names the half to read (slot.cu's proofc_policy_advance).
    const int64_t halfEntries = B * tl.parts(S);
    Value at = bid;
    if (policyAdvance) {
      Value engineWords =
          view(entry.getArgument(arg + proofc_abi::kPolicyAdvanceEngineGrid),
               i32, {fixed(proofc_abi::kEngineGridWords)});
      Value half = toIndex(load(engineWords, {cIdx(proofc_abi::kEngineRead)}));
      at = addI(bid, mulI(half, cIdx(halfEntries)));
    }
    Value entries = view(listPtr, i32,
                         {fixed((policyAdvance ? 2 : 1) * halfEntries),
                          fixed(proofc_abi::kPolicyEntryWords)});
    Value entryBlock =
        toIndex(load(entries, {at, cIdx(proofc_abi::kPolicyEntryBlock)}));
    Value entryCount = load(entries, {at, cIdx(proofc_abi::kPolicyEntryCount)});
    Value isListed = cmpI(arith::CmpIPredicate::sge, listed, cI32(0));
    runSlot =
        sel(isListed, arith::RemUIOp::create(b, entryBlock, cIdx(B)), slot);
    runPart =
        sel(isListed, arith::DivUIOp::create(b, entryBlock, cIdx(B)), part);
    runCount = sel(isListed, entryCount, k);
    // A listed block runs an entry (bid < n: a grid the advance-engine did
    // not size may be larger), an every-slot block a slot that holds a
    // candidate.
    Value listedRuns = cmpI(arith::CmpIPredicate::slt, toI32(bid), listed);
    Value slotRuns = cmpI(arith::CmpIPredicate::sge, cand, cI32(0));
    run = andI(run, sel(isListed, listedRuns, slotRuns));
  } else if (slotList) {
    // The tail hand-off: block bid runs the bid-th slot of the list the
    // last step's advance-engine wrote (its count and half in the words);
    // a block past the count reads entry 0 and does not run.
    Value words = view(gridPtr, i32, {fixed(proofc_abi::kEngineGridWords)});
    Value listed = load(words, {cIdx(proofc_abi::kEngineListed)});
    Value half = toIndex(load(words, {cIdx(proofc_abi::kEngineRead)}));
    Value inList = cmpI(arith::CmpIPredicate::slt, toI32(bid), listed);
    Value at = sel(inList, bid, cIdx(0));
    Value list = view(listPtr, i32, {fixed(2), fixed(B)});
    runSlot = toIndex(load(list, {half, at}));
    Value runCand = load(slotCand, {runSlot});
    run = andI(run,
               andI(inList, cmpI(arith::CmpIPredicate::sge, runCand, cI32(0))));
  } else {
    run = andI(run, cmpI(arith::CmpIPredicate::sge, cand, cI32(0)));
  }
  // Block-uniform: every thread of a block sees the same guard and slot.
  ifThen(run, [&] {
    makeViews(statePtr, derivedPtr, countPtr, tablePtrs, actionPtr, logpPtr);
    if (slotStep)
      return emitPersistentLoop(runSlot, runPart, slotStepArgs);
    logitsBase = baseAddress(logitsPtr);
    arrivals = view(arrivalsPtr, i32, {fixed(B)});
    if (policyAdvance)
      policyAdvanceArgs.assign(slotStepArgs.begin(), slotStepArgs.end());
    emitSlot(runSlot, runPart, runCount ? toIndex(runCount) : Value());
  });
  gpu::ReturnOp::create(b);
}

unsigned KernelGenerator::numTables() const {
  unsigned n = 5;
  for (const VectorLayer &layer : shape.layers)
    n += layer.kind == VectorLayer::Relu ? 0 : 2;
  return n + (atomLayer ? 1 : 0);
}

void KernelGenerator::makeViews(Value statePtr, Value derivedPtr,
                                Value countPtr, ArrayRef<Value> tablePtrs,
                                Value actionPtr, Value logpPtr) {
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
  if (atomLayer)
    atomLayerTable = baseAddress(tablePtrs[next++]);
}

void KernelGenerator::emitSlot(Value slot, Value part, Value k) {
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, tid, cIdx(kWarp));
  warp = arith::DivUIOp::create(b, tid, cIdx(kWarp));
  Value rowGroup = arith::DivUIOp::create(b, lane, cIdx(tl.Q));
  featureThread = arith::RemUIOp::create(b, lane, cIdx(tl.Q));
  quadGroup = arith::DivUIOp::create(b, lane, cIdx(4));
  quadLane = arith::RemUIOp::create(b, lane, cIdx(4));
  col0 = mulI(featureThread, cIdx(tl.F));
  // Row t of this thread: the warp's R*T rows, T per row group.
  Value firstRow =
      addI(mulI(warp, cIdx(tl.rowsPerWarp())), mulI(rowGroup, cIdx(tl.T)));
  rows.clear();
  for (int64_t t = 0; t < tl.T; ++t)
    rows.push_back(addI(firstRow, cIdx(t)));
  if (slotStep) {
    persistentSharedBases();
  } else if (policyAdvance) {
    policyAdvanceSharedBases();
  } else {
    actBase = baseAddress(func.getWorkgroupAttributions()[0]);
    parentBase = baseAddress(func.getWorkgroupAttributions()[1]);
  }

  if (!k)
    k = toIndex(load(count, {slot}));
  Value first = cmpI(arith::CmpIPredicate::eq, tid, cIdx(0));
  Value firstPart = cmpI(arith::CmpIPredicate::eq, part, cIdx(0));
  Value single = cmpI(arith::CmpIPredicate::ule, k, cIdx(1));
  // One successor (TRUE, FALSE or a lone state): action 0, log-probability
  // 0, without encoding anything (spec §4).
  ifThen(andI(andI(single, firstPart), first), [&] {
    store(cI32(0), action, {slot});
    store(cF32(0), actionLogp, {slot});
  });
  // Advance in the policy: that block advances and derives the slot (also one
  // that waits, k = 0: the advance applies no action there).
  if (policyAdvance)
    ifThen(andI(single, firstPart), [&] { emitPolicyAdvance(slot); });
  // The blocks this slot's k children need; the others return at once.
  Value parts = arith::DivUIOp::create(
      b, addI(k, cIdx(tl.childrenPerBlock() - 1)), cIdx(tl.childrenPerBlock()));
  Value busy = andI(cmpI(arith::CmpIPredicate::ugt, k, cIdx(1)),
                    cmpI(arith::CmpIPredicate::ult, part, parts));
  ifThen(busy, [&] { emitPart(slot, part, k, parts, tid); });
}

void KernelGenerator::emitPart(Value slot, Value part, Value k, Value parts,
                               Value tid) {
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
  Value used = addI(
      cIdx(1), arith::MinUIOp::create(b, arith::SubIOp::create(b, k, childBase),
                                      cIdx(tl.childrenPerBlock())));
  Value warpFirst = mulI(warp, cIdx(tl.rowsPerWarp()));
  Value warpBusy = cmpI(arith::CmpIPredicate::ult, warpFirst, used);
  blockUsed = used;
  // Q x F rows [T][F], or the C layout of the tensor-core layers.
  int64_t encCount = tl.tensorCores() ? shape.outWidth / 2 : tl.T * tl.F;
  SmallVector<Type> encTypes(encCount, f32);
  if (tl.tensorCores()) {
    // Every warp embeds rows (the rows in use spread over all of them),
    // then the warps whose m16 tile holds rows run the layers.
    encode(slot, item, childBase);
    SmallVector<Value> enc = ifElse(
        warpBusy, encTypes, [&] { return vectorLayersTensorCores(); },
        [&] { return SmallVector<Value>(encCount, cF32(0)); });
    emitLogitsC(slot, childBase, k, enc);
    return emitArrival(slot, k, parts, tid);
  }
  SmallVector<Value> enc = ifElse(
      warpBusy, encTypes, [&] { return encode(slot, item, childBase); },
      [&] { return SmallVector<Value>(encCount, cF32(0)); });

  // enc(parent) = row 0, shared through workgroup memory.
  ifThen(cmpI(arith::CmpIPredicate::eq, rows[0], cIdx(0)),
         [&] { storeRow(parentBase, ArrayRef<Value>(enc).take_front(tl.F)); });
  barrier();
  SmallVector<Value> parentFeatures =
      loadRow(parentBase, shape.outWidth, /*shared=*/true, false);
  Value firstFeature = cmpI(arith::CmpIPredicate::eq, featureThread, cIdx(0));
  for (int64_t t = 0; t < tl.T; ++t) {
    Value dot = cF32(0);
    for (int64_t c = 0; c < tl.F; ++c)
      dot = math::FmaOp::create(b, enc[t * tl.F + c], parentFeatures[c], dot);
    dot = rowSum(dot);
    Value isChild =
        andI(valid[t], cmpI(arith::CmpIPredicate::ugt, rows[t], cIdx(0)));
    ifThen(andI(isChild, firstFeature), [&] {
      Value logit = arith::MulFOp::create(b, dot, scale);
      LLVM::StoreOp::create(b, logit, logitAddress(slot, childOf[t]), 4);
    });
  }

  emitArrival(slot, k, parts, tid);
}

Value KernelGenerator::itemOfRow(Value row, Value childBase) {
  Value isParent = cmpI(arith::CmpIPredicate::eq, row, cIdx(0));
  return sel(isParent, cIdx(0), addI(childOfRow(row, childBase), cIdx(1)));
}

Value KernelGenerator::childOfRow(Value row, Value childBase) {
  return addI(childBase,
              arith::SubIOp::create(b, arith::MaxUIOp::create(b, row, cIdx(1)),
                                    cIdx(1)));
}
