//===- Embedding.cpp - the atom embedding of a state
//------------------------===//
//
// encode(): enc(item) for this thread's rows. Each atom is
// (pred_proj[p] + arg0[a]) + arg1[b], relu if the encoder has it, summed
// over the state's goals by fma with no branches (TRUE/FALSE and padding
// scale their rows by 0, and with 16-byte loads do not read them:
// predicated loads give zeros); then the vector layers (FmaLayers.cpp),
// or, with the tensor cores, the rows into the activation rows for
// vectorLayersTensorCores (TensorCoreLayers.cpp). With an eval.fold_atom_layer
// table (N != 0 at run time) a tensor-core row is instead the sum of one
// table row per atom, the first linear before its bias: the table holds
// W · atom for every atom, and W · Σ atom = Σ W · atom. A row's Q threads
// then share its atoms: each loads one atom's state words and finds its
// table row, which the others take by shuffle, two rows' table reads in
// flight at once (embedFoldedAtomsPerThread).
//
//===----------------------------------------------------------------------===//
#include "KernelGenerator.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::eval;
using namespace mlir::eval::policy_kernel;

SmallVector<Value> KernelGenerator::encode(Value slot, ArrayRef<Value> items,
                                           Value childBase) {
  int64_t w = shape.atomWidth;
  int64_t words = 3 * A;
  Value rowBytes = cI64(4 * w);
  Value hiVarRow = cI32(2 * A - 1);
  Value hiPredRow = addI(numR, cI32(1));
  Value one = cF32(1), zero = cF32(0);
  // Table t's row r is at base(t) + r * rowBytes. When the row's threads
  // cover the width exactly, base(t) already points at this thread's first
  // feature, so a row costs one multiply-add of address arithmetic.
  bool exact = tl.width() == w;
  auto threadBase = [&](Value table) {
    return exact ? addI(table, mulI(toI64(col0), cI64(4))) : table;
  };
  Value tableBase[5];
  for (int i = 0; i < 5; ++i)
    tableBase[i] = threadBase(atomTables[i]);
  auto rowAddress = [&](Value base, Value row) {
    return addI(base, mulI(arith::ExtUIOp::create(b, i64, row), rowBytes));
  };
  auto readRow = [&](Value base, Value row) {
    Value addr = rowAddress(base, row);
    return exact ? loadColumns(addr, /*shared=*/false, /*invariant=*/true)
                 : loadRow(addr, w, /*shared=*/false, /*invariant=*/true);
  };
  // readRow where `pred` holds, zeros elsewhere: a row's padding atoms
  // (a third of fb15k-237's) read no table rows, TRUE/FALSE no argument
  // rows. By predicated loads, not a branch: every atom's adds stay in
  // one straight chain (docs/performance.md, "Not kept": skipping the
  // padding by warp-uniform branches cost fb15k-237 8 %). Where the row's
  // threads cover the width with 16-byte loads; readRow otherwise.
  auto readRowIf = [&](Value pred, Value base, Value row) {
    if (!exact || tl.V != 4)
      return readRow(base, row);
    return loadColumnsIf(pred, rowAddress(base, row));
  };
  // The persistent kernel reads the slot's state and derived states
  // where its derive left them (its shared memory: the DeriveScratch's
  // first two members, emitPersistentLoop), the step kernel from global
  // memory.
  Value stateBase, derivedBase;
  if (slotStep) {
    derivedBase = scratchBase;
    stateBase = addI(scratchBase, cI64(4 * S * words));
  } else {
    derivedBase =
        addI(baseAddress(derived), mulI(toI64(slot), cI64(4 * S * words)));
    stateBase = addI(baseAddress(state), mulI(toI64(slot), cI64(4 * words)));
  }

  // The address of item's state row.
  auto stateRow = [&](Value item) {
    Value isState = cmpI(arith::CmpIPredicate::eq, item, cIdx(0));
    Value child = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, item, cIdx(1)), cIdx(1));
    // The item's state row: the slot's state, or its derived row (clamped
    // into the slot's S rows for items past the list).
    Value derivedRow = arith::MinUIOp::create(b, child, cIdx(S - 1));
    return sel(isState, stateBase,
               addI(derivedBase, mulI(toI64(derivedRow), cI64(4 * words))));
  };
  // addAtom(acc, p, x, y) over item's A atoms in order, from zero (this
  // thread's F features). Up to kUnrolledAtoms atoms, straight-line code:
  // all 3A state words (`stateWords`, when given, already loaded), then all
  // table rows, are independent loads in flight together; more, a loop
  // loading each atom's words.
  using AddAtom =
      function_ref<SmallVector<Value>(SmallVector<Value>, Value, Value, Value)>;
  auto sumAtoms = [&](Value item, ArrayRef<Value> stateWords, AddAtom addAtom) {
    SmallVector<Value> acc(tl.F, zero);
    if (A <= kUnrolledAtoms) {
      SmallVector<Value> atoms(stateWords);
      if (atoms.empty())
        atoms = loadWords(stateRow(item), words);
      for (int64_t a = 0; a < A; ++a)
        acc = addAtom(acc, atoms[3 * a], atoms[3 * a + 1], atoms[3 * a + 2]);
      return acc;
    }
    Value rowAddr = stateRow(item);
    return forLoop(
        cIdx(0), cIdx(A), cIdx(1), acc, [&](Value a, ValueRange iters) {
          Value atomAddr = addI(rowAddr, mulI(toI64(a), cI64(12)));
          SmallVector<Value> atom;
          for (int64_t c = 0; c < 3; ++c)
            atom.push_back(LLVM::LoadOp::create(
                b, i32,
                LLVM::IntToPtrOp::create(b, stateSpace(),
                                         addI(atomAddr, cI64(4 * c))),
                /*alignment=*/4));
          return addAtom(llvm::to_vector(iters), atom[0], atom[1], atom[2]);
        });
  };
  // emb(item) for this thread's F features; `stateWords`, when given, are
  // its 3A state words, already loaded.
  auto embed = [&](Value item, ArrayRef<Value> stateWords = {}) {
    // Argument `which` of term `term`: argN_const[t] for a constant,
    // argN_var[k-1] (= ~t) for variable Vk.
    auto argRow = [&](int which, Value term, Value hasArgs) {
      Value isConst = cmpI(arith::CmpIPredicate::sge, term, cI32(0));
      Value varRow = arith::MinUIOp::create(
          b, arith::XOrIOp::create(b, term, cI32(-1)), hiVarRow);
      return readRowIf(hasArgs,
                       sel(isConst, tableBase[1 + which], tableBase[3 + which]),
                       sel(isConst, term, varRow));
    };
    // relu?((pred[p] + arg0[x]) + arg1[y]) added to `acc`, without
    // branches or per-feature selects: TRUE/FALSE (p >= R) scale their
    // argument rows by 0, padding (p < 0) scales the atom by 0. Every row
    // read is in bounds and finite, and x * 1 + y rounds as x + y, so a
    // goal adds exactly what the host adds.
    auto addAtom = [&](SmallVector<Value> acc, Value p, Value x, Value y) {
      Value isAtom = cmpI(arith::CmpIPredicate::sge, p, cI32(0));
      Value hasArgs = cmpI(arith::CmpIPredicate::ult, p, numR);
      Value argScale = sel(hasArgs, one, zero);
      Value atomScale = sel(isAtom, one, zero);
      SmallVector<Value> pre = readRowIf(
          isAtom, tableBase[0], arith::MinUIOp::create(b, p, hiPredRow));
      SmallVector<Value> arg0 = argRow(0, x, hasArgs),
                         arg1 = argRow(1, y, hasArgs);
      for (int64_t c = 0; c < tl.F; ++c) {
        Value sum = math::FmaOp::create(b, arg0[c], argScale, pre[c]);
        sum = math::FmaOp::create(b, arg1[c], argScale, sum);
        if (shape.atomRelu)
          sum = arith::MaxNumFOp::create(b, sum, zero);
        acc[c] = math::FmaOp::create(b, sum, atomScale, acc[c]);
      }
      return acc;
    };

    return sumAtoms(item, stateWords, addAtom);
  };

  // The first linear of enc(item) before its bias, from the
  // eval.fold_atom_layer table: the sum of one row per atom, row
  // (p' * N + x') * N + y' with p' = min(p, R + 2) (padding, p < 0, reads
  // the zero predicate's rows) and x' = x + 2A clamped below N - 1, or
  // N - 1 (the zero argument) for TRUE/FALSE and padding. Every row index
  // is in bounds, and a padding atom's row is zero.
  // The table row of atom (p, x, y).
  auto foldedRow = [&](Value p, Value x, Value y) {
    Value n = atomArgRows;
    Value zeroArg = arith::SubIOp::create(b, n, cI32(1));
    Value zeroPred = addI(numR, cI32(2));
    Value hasArgs = cmpI(arith::CmpIPredicate::ult, p, numR);
    auto argIndex = [&](Value term) {
      Value shifted =
          arith::MinUIOp::create(b, addI(term, cI32(2 * A)), zeroArg);
      return sel(hasArgs, shifted, zeroArg);
    };
    Value pIndex = arith::MinUIOp::create(b, p, zeroPred);
    return addI(mulI(addI(mulI(pIndex, n), argIndex(x)), n), argIndex(y));
  };
  auto embedFolded = [&](Value item, ArrayRef<Value> stateWords = {}) {
    Value base = threadBase(atomLayerTable);
    auto addAtom = [&](SmallVector<Value> acc, Value p, Value x, Value y) {
      SmallVector<Value> v = readRow(base, foldedRow(p, x, y));
      for (int64_t c = 0; c < tl.F; ++c)
        acc[c] = arith::AddFOp::create(b, acc[c], v[c]);
      return acc;
    };
    return sumAtoms(item, stateWords, addAtom);
  };
  // embedFolded with the work shared by the row's Q threads (A <= Q):
  // thread j of the row holds atom min(j, A - 1)'s three state words
  // (`atomWords`, loaded by atomWordsOf) and computes its table row, and
  // every thread takes atom a's row from thread a by a shuffle. The same
  // rows are summed in the same order, so the sum is embedFolded's to the
  // bit; a row costs 3 state-word loads a thread instead of 3A, and one
  // row index instead of A.
  auto atomWordsOf = [&](Value item) {
    Value atom = arith::MinUIOp::create(b, featureThread, cIdx(A - 1));
    return loadWords(addI(stateRow(item), mulI(toI64(atom), cI64(12))), 3);
  };
  // Folded rows embedded at once: kFoldedRowsInFlight in the step form; one
  // in the persistent kernel, whose block of 128-register warps measured
  // 0.5 % slower with two (docs/performance.md, row 41).
  int64_t inFlight = slotStep ? 1 : kFoldedRowsInFlight;
  // embedFolded for `inFlight` rows at once, each row's work
  // shared by its Q threads (A <= Q): thread j of a row holds atom
  // min(j, A - 1)'s three state words (`atomWords`, loaded by atomWordsOf,
  // 3 a row) and computes its table row, and every thread takes atom a's
  // row from thread a by a shuffle. Every table read of the rows is issued
  // before the first add, so their L2 round trips overlap. Each row sums
  // the same rows in the same order, so its sum is embedFolded's to the
  // bit; a row costs 3 state-word loads a thread instead of 3A, and one row
  // index instead of A.
  // Atom a's table row for the row whose own atom's table row index this
  // thread holds (`mine`): thread a's index, taken by a shuffle.
  auto atomTableRow = [&](Value base, Value groupFirstLane, Value mine,
                          int64_t a) {
    // One op at a time, whatever order the C++ compiler evaluates
    // arguments in.
    Value width = cI32(kWarp);
    Value srcLane = toI32(addI(groupFirstLane, cIdx(a)));
    Value row =
        gpu::ShuffleOp::create(b, mine, srcLane, width, gpu::ShuffleMode::IDX)
            .getShuffleResult();
    return readRow(base, row);
  };
  auto addRow = [&](SmallVector<Value> &acc, ArrayRef<Value> v) {
    for (int64_t c = 0; c < tl.F; ++c)
      acc[c] = arith::AddFOp::create(b, acc[c], v[c]);
  };
  auto embedFoldedAtomsPerThread =
      [&](ArrayRef<Value> atomWords) -> SmallVector<SmallVector<Value>> {
    Value base = threadBase(atomLayerTable);
    if (inFlight == 1) {
      // One row: each table row added as it is read (row 40's code).
      Value mine = foldedRow(atomWords[0], atomWords[1], atomWords[2]);
      Value groupFirstLane = arith::SubIOp::create(b, lane, featureThread);
      SmallVector<Value> acc(tl.F, zero);
      for (int64_t a = 0; a < A; ++a)
        addRow(acc, atomTableRow(base, groupFirstLane, mine, a));
      return {acc};
    }
    Value groupFirstLane = arith::SubIOp::create(b, lane, featureThread);
    SmallVector<SmallVector<SmallVector<Value>>> loaded(inFlight);
    for (int64_t r = 0; r < inFlight; ++r) {
      Value mine = foldedRow(atomWords[3 * r], atomWords[3 * r + 1],
                             atomWords[3 * r + 2]);
      for (int64_t a = 0; a < A; ++a)
        loaded[r].push_back(atomTableRow(base, groupFirstLane, mine, a));
    }
    SmallVector<SmallVector<Value>> sums;
    for (const SmallVector<SmallVector<Value>> &rows : loaded) {
      SmallVector<Value> acc(tl.F, zero);
      for (const SmallVector<Value> &v : rows)
        addRow(acc, v);
      sums.push_back(acc);
    }
    return sums;
  };

  if (tl.tensorCores()) {
    // One row at a time, through the layers before the first linear, into
    // the block's activation rows: with all T rows at once their 3A state
    // words each would be live together (spills). The rows in use are
    // dealt round the block's warps (iteration t of warp w embeds row
    // (t * warps + w) * R + (row group)), not kept in the warp whose m16
    // tile holds them: each row is a chain of dependent L1/L2 reads, and a
    // slot's ~60 rows would otherwise queue in 4 of the 8 warps. Each warp
    // stops after its rows in use (warp-uniform); the block barrier at the
    // end hands the rows to the tiles' warps. Rows past the ones in use
    // keep stale values; their results are never read.
    Value stride = cIdx(tl.warps * tl.R);
    Value warpFirst = mulI(warp, cIdx(tl.R));
    Value left = arith::SubIOp::create(
        b, arith::MaxUIOp::create(b, blockUsed, warpFirst), warpFirst);
    Value trips = arith::DivUIOp::create(
        b, addI(left, arith::SubIOp::create(b, stride, cIdx(1))), stride);
    Value rowGroup = arith::DivUIOp::create(b, lane, cIdx(tl.Q));
    Value warpRow0 = addI(warpFirst, rowGroup);
    // The next row's state words are loaded before this row is embedded
    // (one row of words in flight: the L2 latency of a derived row is
    // hidden behind the table reads of the previous one).
    auto rowOf = [&](Value t) { return addI(warpRow0, mulI(t, stride)); };
    bool prefetch = A <= kUnrolledAtoms;
    // `folded`: each row's first linear before its bias (embedFolded);
    // else its atoms and the layers before the first linear.
    auto embedRows = [&](bool folded) {
      // Folded rows of at most Q atoms: `inFlight` rows an iteration, each
      // thread prefetching one atom's words of each of the next ones
      // (embedFoldedAtomsPerThread). A row past the warp's rows in use
      // (trips not a multiple) is embedded from clamped, in-bounds words and
      // not stored. Measured: docs/performance.md, row 41.
      if (folded && prefetch && A <= tl.Q) {
        // Trip t + r (t itself for r = 0: no add of zero in the IR).
        auto tripAfter = [&](Value t, int64_t r) {
          return r == 0 ? t : addI(t, cIdx(r));
        };
        auto wordsOf = [&](Value t) {
          SmallVector<Value> w;
          for (int64_t r = 0; r < inFlight; ++r)
            llvm::append_range(
                w, atomWordsOf(itemOfRow(rowOf(tripAfter(t, r)), childBase)));
          return w;
        };
        Value iterations = trips;
        if (inFlight > 1) {
          Value roundedUp = addI(trips, cIdx(inFlight - 1));
          iterations = arith::DivUIOp::create(b, roundedUp, cIdx(inFlight));
        }
        forLoop(cIdx(0), iterations, cIdx(1), wordsOf(cIdx(0)),
                [&](Value i, ValueRange cur) {
                  Value t = inFlight > 1 ? mulI(i, cIdx(inFlight)) : i;
                  SmallVector<Value> next = wordsOf(addI(t, cIdx(inFlight)));
                  SmallVector<SmallVector<Value>> sums =
                      embedFoldedAtomsPerThread(llvm::to_vector(cur));
                  for (int64_t r = 0; r < inFlight; ++r) {
                    Value tr = tripAfter(t, r);
                    auto store = [&] {
                      storeRow(actAddress(rowOf(tr), cIdx(0)), sums[r]);
                    };
                    if (r == 0)
                      store();
                    else
                      ifThen(cmpI(arith::CmpIPredicate::ult, tr, trips), store);
                  }
                  return next;
                });
        return;
      }
      auto wordsOf = [&](Value item) {
        return loadWords(stateRow(item), words);
      };
      SmallVector<Value> first;
      if (prefetch)
        first = wordsOf(itemOfRow(rowOf(cIdx(0)), childBase));
      forLoop(cIdx(0), trips, cIdx(1), first, [&](Value t, ValueRange cur0) {
        Value row = rowOf(t);
        SmallVector<Value> next;
        if (prefetch)
          next = wordsOf(itemOfRow(rowOf(addI(t, cIdx(1))), childBase));
        Value item = itemOfRow(row, childBase);
        SmallVector<Value> cur;
        if (folded) {
          cur = embedFolded(item, llvm::to_vector(cur0));
        } else {
          SmallVector<SmallVector<Value>> rows = {
              embed(item, llvm::to_vector(cur0))};
          cur = vectorLayers(ArrayRef(shape.layers).take_front(firstLinear()),
                             ArrayRef(layerTables).take_front(firstLinear()),
                             rows)[0];
        }
        storeRow(actAddress(row, cIdx(0)), cur);
        return next;
      });
    };
    // With a fold_atom_layer table (N != 0 at run time: the run's table
    // fit its budget) the folded rows; the branch is uniform over the
    // grid: two loops, not a select per row.
    if (atomLayer)
      ifElse(
          cmpI(arith::CmpIPredicate::ne, atomArgRows, cI32(0)), {},
          [&] {
            embedRows(true);
            return SmallVector<Value>();
          },
          [&] {
            embedRows(false);
            return SmallVector<Value>();
          });
    else
      embedRows(false);
    barrier();
    return {};
  }

  SmallVector<SmallVector<Value>> curs;
  for (int64_t t = 0; t < tl.T; ++t)
    curs.push_back(embed(items[t]));
  // The vector layers, on the T rows together.
  curs = vectorLayers(shape.layers, layerTables, curs);
  SmallVector<Value> flat;
  for (const SmallVector<Value> &cur : curs)
    llvm::append_range(flat, cur);
  return flat;
}
