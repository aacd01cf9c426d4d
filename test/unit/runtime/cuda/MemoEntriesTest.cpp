//===- MemoEntriesTest.cpp - The step memo's size (symbol MEMO) -----------===//
//
// memoEntriesFor: a requested size is 0 (off) or a power of two up to 2^28,
// anything else one clear error; auto (negative) is the power of two at or
// above 16N within [2^12, the cap] (2^22 without a device; memoAutoCap: a
// quarter of the device's free memory, by cudaMemoEntryBytes). planSymbols
// binds it as MEMO. The rule is support/MemoSize.h's, the host backend's
// too. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "proofc/contract/kernel_abi.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace {

TEST(MemoEntries, AutoIsAPowerOfTwoFromThePool) {
  EXPECT_EQ(memoEntriesFor(-1, 0), 4096);
  EXPECT_EQ(memoEntriesFor(-1, 256), 4096);
  EXPECT_EQ(memoEntriesFor(-1, 257), 8192);
  // The V10 workload: 18,745 candidates -> 16N = 299,920 -> 2^19.
  EXPECT_EQ(memoEntriesFor(-1, 18745), 524288);
  EXPECT_EQ(memoEntriesFor(-1, int64_t{1} << 40), int64_t{1} << 22);
}

TEST(MemoEntries, AutoStopsAtTheCap) {
  // A whole-split block of 8,388,608 candidates: 16N = 2^27.
  EXPECT_EQ(memoEntriesFor(-1, int64_t{1} << 23, int64_t{1} << 26),
            int64_t{1} << 26);
  EXPECT_EQ(memoEntriesFor(-1, int64_t{1} << 23, int64_t{1} << 28),
            int64_t{1} << 27);
  // The cap bounds only what the pool would take.
  EXPECT_EQ(memoEntriesFor(-1, 18745, int64_t{1} << 28), 524288);
}

TEST(MemoEntries, AutoCapIsAQuarterOfTheFreeMemory) {
  // V10: A = 6, entries of memoEntryWords(6) = 44 words, 176 bytes.
  const uint64_t entry = cudaMemoEntryBytes(6);
  ASSERT_EQ(entry, 176u);
  // An 80 GB GPU with 79 GiB free: a quarter is 19.75 GiB, 2^26 entries
  // take 11 GiB, 2^27 would take 22.
  EXPECT_EQ(memoAutoCap(uint64_t{79} << 30, entry), int64_t{1} << 26);
  // 141 GB with 139 GiB free: 2^27 (22 GiB) fits in 34.75 GiB.
  EXPECT_EQ(memoAutoCap(uint64_t{139} << 30, entry), int64_t{1} << 27);
  // Exactly at the boundary: a quarter equal to the table fits.
  EXPECT_EQ(memoAutoCap(4 * entry * (uint64_t{1} << 20), entry),
            int64_t{1} << 20);
  EXPECT_EQ(memoAutoCap(4 * entry * (uint64_t{1} << 20) - 1, entry),
            int64_t{1} << 19);
  // Never below 2^12, never above 2^28.
  EXPECT_EQ(memoAutoCap(0, entry), int64_t{1} << 12);
  EXPECT_EQ(memoAutoCap(uint64_t{1} << 50, entry), int64_t{1} << 28);
}

TEST(MemoEntries, RequestedIsZeroOrAPowerOfTwo) {
  EXPECT_EQ(memoEntriesFor(0, 18745), 0);
  EXPECT_EQ(memoEntriesFor(1, 18745), 1);
  EXPECT_EQ(memoEntriesFor(64, 18745), 64);
  EXPECT_EQ(memoEntriesFor(int64_t{1} << 28, 5), int64_t{1} << 28);
  for (int64_t bad :
       {int64_t{3}, int64_t{100}, (int64_t{1} << 28) + 1, int64_t{1} << 29}) {
    try {
      memoEntriesFor(bad, 10);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error &e) {
      EXPECT_NE(
          std::string(e.what()).find("neither 0 (off) nor a power of two"),
          std::string::npos)
          << e.what();
    }
  }
}

TEST(MemoEntries, PlanSymbolsBindMemo) {
  ProgramSpec program;
  KnowledgeBase kb;
  EXPECT_EQ(planSymbols(program, kb, 18745).at("MEMO"), 524288);
  EXPECT_EQ(planSymbols(program, kb, 18745, 0).at("MEMO"), 0);
  EXPECT_EQ(planSymbols(program, kb, 18745, 256).at("MEMO"), 256);
}

} // namespace
} // namespace proofc::test
