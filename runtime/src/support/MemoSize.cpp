//===- MemoSize.cpp - How many entries a run's step memo has --------------===//
//
// The one sizing rule of both backends' step memos (MemoSize.h).
//
//===----------------------------------------------------------------------===//
#include "support/MemoSize.h"

#include "proofc/runtime/Session.h"
#include "support/Fail.h"

namespace proofc {

int64_t memoAutoCap(uint64_t freeBytes, uint64_t entryBytes) {
  int64_t cap = kMemoMinAuto;
  while (cap < kMaxMemoEntries &&
         2 * static_cast<uint64_t>(cap) * entryBytes <= freeBytes / 4)
    cap <<= 1;
  return cap;
}

int64_t memoEntriesFor(int64_t requested, int64_t numCandidates,
                       int64_t autoCap) {
  if (requested >= 0) {
    if (!validMemoEntries(requested)) // Session.h's rule, 2^28 its limit
      fail("step memo: {} entries is neither 0 (off) nor a power of two up "
           "to 2^28",
           requested);
    return requested;
  }
  int64_t entries = kMemoMinAuto;
  while (entries < 16 * numCandidates && entries < autoCap)
    entries <<= 1;
  return entries;
}

int64_t memoEntriesWithin(int64_t requested, int64_t numCandidates,
                          uint64_t freeBytes, uint64_t entryBytes) {
  return memoEntriesFor(requested, numCandidates,
                        memoAutoCap(freeBytes, entryBytes));
}

} // namespace proofc
