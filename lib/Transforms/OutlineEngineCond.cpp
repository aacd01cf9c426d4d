//===- OutlineEngineCond.cpp - eval-outline-engine-cond -------------------===//
//
// Loop rotation. Before:
//   loop(flag0; slots = s0) { d = engine(slots); ...; next, f = advance(..);
//                             yield f, next }
// after:
//   d0 = engine(s0)
//   loop(flag0; slots = s0, d = d0) { ...; next, f = advance(..);
//       d' = cond "engine" if f else(d) { engine(next) }; yield f, next, d' }
// The engine of the next step runs at the end of this one, under a cond whose
// flag advance computes on the device, so the last step (every slot done)
// skips it and the host never reads a flag. Valid because the engine is pure
// and reads only the loop-carried slots and loop invariants.
//
//===----------------------------------------------------------------------===//
#include "proofc/Dialect/Eval/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::eval {
#define GEN_PASS_DEF_EVALOUTLINEENGINECONDPASS
#include "proofc/Dialect/Eval/Transforms/Passes.h.inc"
} // namespace mlir::eval

using namespace mlir;
using namespace mlir::eval;

namespace {

struct EvalOutlineEngineCondPass
    : public eval::impl::EvalOutlineEngineCondPassBase<
          EvalOutlineEngineCondPass> {
  void runOnOperation() override {
    SmallVector<DeviceLoopOp> loops;
    getOperation().walk([&](DeviceLoopOp loop) { loops.push_back(loop); });
    for (DeviceLoopOp loop : loops)
      if (failed(rotate(loop)))
        return signalPassFailure();
  }

  LogicalResult rotate(DeviceLoopOp loop) {
    Block &body = loop.getBody().front();
    auto engines = llvm::to_vector(body.getOps<EngineOp>());
    if (engines.empty())
      return success(); // nothing to outline (already rotated)
    if (engines.size() > 1)
      return engines[1].emitOpError()
             << "cannot outline: the step runs the engine more than once";
    EngineOp engine = engines.front();
    auto slotsArg = dyn_cast<BlockArgument>(engine.getSlots());
    if (!slotsArg || slotsArg.getOwner() != &body)
      return engine.emitOpError()
             << "cannot outline: the engine must read loop-carried slots";
    for (Value invariant : {Value(engine.getKb()), Value(engine.getPool())})
      if (loop.getBody().isAncestor(invariant.getParentRegion()))
        return engine.emitOpError()
               << "cannot outline: the knowledge base and pool must be "
                  "defined outside the loop";
    unsigned index = slotsArg.getArgNumber();
    auto yield = cast<DeviceYieldOp>(body.getTerminator());

    // The engine on the initial slots, before the loop.
    OpBuilder builder(loop);
    IRMapping initMap;
    initMap.map(slotsArg, loop.getInits()[index]);
    Operation *first = builder.clone(*engine, initMap);
    first->setLoc(engine.getLoc());

    // Its result becomes a loop-carried value: one more init and block
    // argument, the old result's uses read the argument.
    SmallVector<Value> inits(loop.getInits());
    inits.push_back(first->getResult(0));
    auto rotated =
        DeviceLoopOp::create(builder, loop.getLoc(), loop.getFlag(), inits);
    rotated->setAttrs(loop->getDiscardableAttrDictionary());
    rotated.getBody().takeBody(loop.getBody());
    Block &newBody = rotated.getBody().front();
    Value carried = newBody.addArgument(engine.getType(), engine.getLoc());
    engine.getDerived().replaceAllUsesWith(carried);

    // At the end of the step: the engine on the next slots under the cond.
    builder.setInsertionPoint(yield);
    auto cond = CondOp::create(builder, engine.getLoc(), "engine",
                               yield.getFlag(), ValueRange{carried});
    builder.setInsertionPointToStart(&cond.getBody().front());
    IRMapping nextMap;
    nextMap.map(slotsArg, yield.getValues()[index]);
    Operation *next = builder.clone(*engine, nextMap);
    CondYieldOp::create(builder, engine.getLoc(), next->getResults());
    engine.erase();

    SmallVector<Value> yielded(yield.getValues());
    yielded.push_back(cond.getResult(0));
    builder.setInsertionPoint(yield);
    DeviceYieldOp::create(builder, yield.getLoc(), yield.getFlag(), yielded);
    yield.erase();
    loop.erase();
    return success();
  }
};

} // namespace
