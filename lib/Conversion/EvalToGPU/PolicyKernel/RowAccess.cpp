//===- RowAccess.cpp - rows of the Q x F layout
//-----------------------------===//
//
// Loads and stores of this thread's F consecutive features of a row
// (column col0 = (lane % Q) * F): V-wide loads, in bounds without selects
// where the row's threads cover the width, also under a predicate (zeros
// where it is false); the state rows' i32 words two
// at a time (from global memory, first to leave the L1); the sum over a
// row's Q threads.
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

namespace {
// Four columns of a read-only table row where $5 != 0, else four zeros:
// the zeros first, then the load under the predicate (NVPTX has no
// predicated load of its own to lower to). Early-clobber outputs, so that
// the zeros never overwrite the address or the flag. Declared without side
// effects or a memory clobber, so LLVM may move or merge it: right for
// tables no kernel writes (the weights' rows, read `invariant` elsewhere).
constexpr const char *kPredicatedColumnsLoad =
    "{ .reg .pred p; setp.ne.b32 p, $5, 0; "
    "mov.f32 $0, 0f00000000; mov.f32 $1, 0f00000000; "
    "mov.f32 $2, 0f00000000; mov.f32 $3, 0f00000000; "
    "@p ld.global.nc.v4.f32 {$0, $1, $2, $3}, [$4]; }";
constexpr const char *kPredicatedColumnsConstraints = "=&f,=&f,=&f,=&f,l,r";

// A state row's words from global memory, first to leave the L1: the step
// form reads each row once (its tile), while the atom layer's rows and the
// fragments beside them are read again by the next tiles. Measured on an
// H100 (docs/performance.md row 57): the policy's launches 1.4 % shorter;
// the atom rows themselves under L1::evict_first or L1::no_allocate were
// slower. Without side effects, as above: no block of the policy's launch
// writes the rows it reads (the advance-engine, another launch, does).
constexpr const char *kStreamedWordPairLoad =
    "ld.global.L1::evict_first.v2.b32 {$0, $1}, [$2];";
constexpr const char *kStreamedWordPairConstraints = "=r,=r,l";
constexpr const char *kStreamedWordLoad =
    "ld.global.L1::evict_first.b32 $0, [$1];";
constexpr const char *kStreamedWordConstraints = "=r,l";
} // namespace

Value KernelGenerator::rowSum(Value v) {
  return butterfly(v, tl.Q, [&](Value x, Value y) {
    return arith::AddFOp::create(b, x, y);
  });
}

SmallVector<Value> KernelGenerator::loadRow(Value rowAddr, int64_t width,
                                            bool shared, bool invariant) {
  // A row's threads never reach past the width: no clamps or selects.
  if (tl.width() <= width)
    return loadColumns(addI(rowAddr, mulI(toI64(col0), cI64(4))), shared,
                       invariant);
  Type ptrType = shared ? sharedPtr : globalPtr;
  SmallVector<Value> values;
  Value zero = cF32(0);
  for (int64_t c = 0; c < tl.F; c += tl.V) {
    Value col = addI(col0, cIdx(c));
    Value inRange = cmpI(arith::CmpIPredicate::ult, col, cIdx(width));
    // Past the width the load is clamped into the row, then zeroed.
    Value clamped = arith::MinUIOp::create(b, col, cIdx(width - tl.V));
    Value addr = addI(rowAddr, mulI(toI64(clamped), cI64(4)));
    Value ptr = LLVM::IntToPtrOp::create(b, ptrType, addr);
    if (tl.V == 4) {
      Value v = LLVM::LoadOp::create(b, vec4, ptr, /*alignment=*/16,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false, invariant);
      for (int64_t e = 0; e < 4; ++e) {
        Value x = LLVM::ExtractElementOp::create(b, f32, v, cI32(e));
        values.push_back(sel(inRange, x, zero));
      }
    } else {
      Value x = LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false, invariant);
      values.push_back(sel(inRange, x, zero));
    }
  }
  return values;
}

SmallVector<Value> KernelGenerator::loadColumns(Value addr, bool shared,
                                                bool invariant) {
  Type ptrType = shared ? sharedPtr : globalPtr;
  SmallVector<Value> values;
  for (int64_t c = 0; c < tl.F; c += tl.V) {
    Value ptr = LLVM::IntToPtrOp::create(b, ptrType, addI(addr, cI64(4 * c)));
    if (tl.V == 4) {
      Value v = LLVM::LoadOp::create(b, vec4, ptr, /*alignment=*/16,
                                     /*isVolatile=*/false,
                                     /*isNonTemporal=*/false, invariant);
      for (int64_t e = 0; e < 4; ++e)
        values.push_back(LLVM::ExtractElementOp::create(b, f32, v, cI32(e)));
    } else {
      values.push_back(LLVM::LoadOp::create(b, f32, ptr, /*alignment=*/4,
                                            /*isVolatile=*/false,
                                            /*isNonTemporal=*/false,
                                            invariant));
    }
  }
  return values;
}

SmallVector<Value> KernelGenerator::loadColumnsIf(Value pred, Value addr) {
  assert(tl.V == 4 && "predicated column loads are 16 bytes wide");
  auto columnsType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(4, f32));
  Value flag = arith::ExtUIOp::create(b, i32, pred);
  SmallVector<Value> values;
  for (int64_t c = 0; c < tl.F; c += 4) {
    Value columns =
        LLVM::InlineAsmOp::create(
            b, columnsType, ValueRange{addI(addr, cI64(4 * c)), flag},
            kPredicatedColumnsLoad, kPredicatedColumnsConstraints,
            /*has_side_effects=*/false, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
            ArrayAttr())
            .getResult(0);
    for (int64_t e = 0; e < 4; ++e)
      values.push_back(LLVM::ExtractValueOp::create(b, columns, e));
  }
  return values;
}

SmallVector<Value> KernelGenerator::loadWords(Value addr, int64_t n) {
  // Two words a load where the row allows (n even), else one: from global
  // memory by the streamed loads above (a struct of the two), from the
  // persistent kernel's shared memory by plain loads (a vector).
  const int64_t per = n % 2 == 0 ? 2 : 1;
  const bool global = stateSpace() == globalPtr;
  Type type = per == 1 ? Type(i32)
              : global ? Type(LLVM::LLVMStructType::getLiteral(
                             b.getContext(), SmallVector<Type>(2, i32)))
                       : Type(VectorType::get({2}, i32));
  SmallVector<Value> words;
  for (int64_t i = 0; i < n; i += per) {
    Value at = addI(addr, cI64(4 * i));
    Value loaded =
        global
            ? LLVM::InlineAsmOp::create(
                  b, type, ValueRange{at},
                  per == 2 ? kStreamedWordPairLoad : kStreamedWordLoad,
                  per == 2 ? kStreamedWordPairConstraints
                           : kStreamedWordConstraints,
                  /*has_side_effects=*/false, /*is_align_stack=*/false,
                  LLVM::tailcallkind::TailCallKind::None,
                  LLVM::AsmDialectAttr(), ArrayAttr())
                  .getResult(0)
            : LLVM::LoadOp::create(b, type,
                                   LLVM::IntToPtrOp::create(b, sharedPtr, at),
                                   /*alignment=*/4 * per)
                  .getResult();
    if (per == 1) {
      words.push_back(loaded);
      continue;
    }
    for (int64_t e = 0; e < 2; ++e)
      words.push_back(global ? Value(LLVM::ExtractValueOp::create(b, loaded, e))
                             : Value(LLVM::ExtractElementOp::create(
                                   b, i32, loaded, cI32(e))));
  }
  return words;
}

void KernelGenerator::storeRow(Value rowAddr, ArrayRef<Value> values) {
  for (int64_t c = 0; c < tl.F; c += tl.V) {
    Value addr = addI(rowAddr, mulI(toI64(addI(col0, cIdx(c))), cI64(4)));
    Value ptr = LLVM::IntToPtrOp::create(b, sharedPtr, addr);
    if (tl.V == 4) {
      Value v = LLVM::PoisonOp::create(b, vec4);
      for (int64_t e = 0; e < 4; ++e)
        v = LLVM::InsertElementOp::create(b, vec4, v, values[c + e], cI32(e));
      LLVM::StoreOp::create(b, v, ptr, /*alignment=*/16);
    } else {
      LLVM::StoreOp::create(b, values[c], ptr, /*alignment=*/4);
    }
  }
}
