//===- RowCountsTest.cpp - A part's counts against the rows it carries ----===//
#include "TestUtil.h"

#include "tooling/RowCounts.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace row_counts_test {

constexpr const char *kRows =
    "0\thead\ta\tproved\t3\t-1\th\tr\tt\t1\t1\t1\n"
    "0\thead\tb\tfailed\t12\t-inf\th\tr\tt\t2\t2\t2\n"
    "1\ttail\tc\ttruncated\t8\t-inf\th\tr\tt\t1\t1\t1\n";

TEST(RowCounts, CountsRowsGivenInPiecesOfAnySize) {
  const std::string rows = kRows;
  for (size_t piece = 1; piece <= rows.size(); ++piece) {
    RowCounter counter("p.part");
    for (size_t at = 0; at < rows.size(); at += piece)
      counter.update(std::string_view(rows).substr(at, piece));
    EXPECT_EQ(errorOf([&] { counter.check({3, 1, 1, 1, 23}); }), "(no error)")
        << piece;
  }
}

TEST(RowCounts, ADifferenceOrABadRowIsRefusedByName) {
  RowCounter counter("p.part");
  counter.update(kRows);
  EXPECT_EQ(errorOf([&] { counter.check({3, 1, 1, 1, 24}); }),
            "p.part: the part's counts (3 candidates: 1 proved, 1 failed, 1 "
            "truncated, depth sum 24) are not those of its outcome rows (3: "
            "1, 1, 1, 23); the file is damaged or forged");
  EXPECT_NE(errorOf([&] { counter.check({3, 2, 0, 1, 23}); }), "(no error)");
  EXPECT_EQ(errorOf([] {
              RowCounter c("p.part");
              c.update("0\thead\ta\tmaybe\t3\n");
            }),
            "p.part: outcome row 1 has the status maybe, not proved, failed "
            "or truncated");
  EXPECT_EQ(errorOf([] {
              RowCounter c("p.part");
              c.update("0\thead\ta\tproved\t-3\n");
            }),
            "p.part: outcome row 1 has the depth -3, not a decimal integer");
  EXPECT_EQ(errorOf([] {
              RowCounter c("p.part");
              c.update("0\thead\n");
            }),
            "p.part: outcome row 1 has fewer than 5 columns");
  EXPECT_EQ(errorOf([] {
              RowCounter c("p.part");
              c.update("0\thead\ta\tproved\t3");
              c.check({1, 1, 0, 0, 3});
            }),
            "p.part: the outcome rows end in a line without its line feed");
}

} // namespace row_counts_test
} // namespace proofc::test
