//===- MemoEntriesTest.cpp - The step memo's size (symbol MEMO) -----------===//
//
// memoEntriesFor: a requested size is 0 (off) or a power of two up to 2^28,
// anything else one clear error; auto (negative) is the power of two at or
// above 16N within [2^12, 2^22]. planSymbols binds it as MEMO. No GPU needed.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "cuda/PlanBinding.h"
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
