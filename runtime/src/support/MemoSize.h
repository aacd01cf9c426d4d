//===- MemoSize.h - How many entries a run's step memo has ------*- C++ -*-===//
//
// Both backends keep a step memo (the CUDA backend's memo.cu table, the
// host backend's StepMemo): a step already taken from the same state, by a
// candidate that cannot tell the difference, is taken again from the memo
// instead of being derived and scored. --memo-entries sizes both, by one
// rule: 0 turns the memo off, a power of two up to 2^28 is the number of
// entries, and auto (-1, the default) is the power of two at or above 16N
// within [2^12, a cap set by the memory there is] -- the GPU's free memory
// for the CUDA table, which it allocates whole, the host's available memory
// for the host's, which grows with the steps it holds.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SUPPORT_MEMOSIZE_H
#define PROOFC_RUNTIME_SUPPORT_MEMOSIZE_H

#include <cstdint>

namespace proofc {

/// The auto step memo's largest size without a device to ask (the unit
/// tests, planSymbols' default): 2^22 entries.
constexpr int64_t kMemoAutoCapDefault = int64_t{1} << 22;

/// The auto step memo's smallest size: 2^12 entries.
constexpr int64_t kMemoMinAuto = int64_t{1} << 12;

/// The step memo's entries for a pool of N candidates: `requested` when it
/// is 0 (off) or a power of two up to 2^28, the power of two at or above 16N
/// within [2^12, autoCap] when it is negative (auto: a candidate takes ~14
/// steps, about a quarter of them new on the V10 workload, so the table
/// stays under a quarter full and a probe rarely goes past its first
/// entry); anything else is an error.
int64_t memoEntriesFor(int64_t requested, int64_t numCandidates,
                       int64_t autoCap = kMemoAutoCapDefault);

/// The auto step memo's largest size with `freeBytes` of memory free, for
/// entries of `entryBytes` each: the largest power of two in [2^12, 2^28]
/// whose table takes at most a quarter of it. A whole-split block (8.4 M
/// candidates, 3-7 M distinct keys on fb15k-237) overfills 2^22 entries, and
/// every step past a full table is computed again (docs/performance.md,
/// "The floors of the whole-split workloads").
int64_t memoAutoCap(uint64_t freeBytes, uint64_t entryBytes);

/// memoEntriesFor with auto capped by memoAutoCap(freeBytes, entryBytes):
/// what a backend sizes its memo by, given the memory there is and its
/// entries' bytes.
int64_t memoEntriesWithin(int64_t requested, int64_t numCandidates,
                          uint64_t freeBytes, uint64_t entryBytes);

} // namespace proofc

#endif // PROOFC_RUNTIME_SUPPORT_MEMOSIZE_H
