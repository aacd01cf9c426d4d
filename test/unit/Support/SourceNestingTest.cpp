//===- SourceNestingTest.cpp - The pre-parse nesting scan -----------------===//
//
// findExcessNesting (include/proofc/Support/SourceNesting.h) is what keeps
// MLIR's recursive parser from exhausting the stack. It must count every
// bracket the parser recurses on (never undercount: a string or a comment
// ends exactly where MLIR's lexer ends it), point at the bracket past the
// limit, and stay linear. nesting.test runs it through the tools.
//
//===----------------------------------------------------------------------===//
#include "proofc/Support/SourceNesting.h"

#include <gtest/gtest.h>

#include <string>

using proofc::findExcessNesting;

namespace {

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

TEST(SourceNesting, EachBracketKindCountsAndAnyClosesOneLevel) {
  EXPECT_FALSE(findExcessNesting("([{<>}])", 4));
  auto deep = findExcessNesting("([{<x", 3);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->offset, 3u);
  EXPECT_EQ(deep->line, 1u);
  EXPECT_EQ(deep->column, 4u);
  // Mismatched closers still close (an over-close stays at 0).
  EXPECT_FALSE(findExcessNesting("(]{>))))((", 2));
}

TEST(SourceNesting, PointsAtLineAndColumnOfTheFirstBracketPastTheLimit) {
  auto deep = findExcessNesting("a\nbb\n  [[[", 2);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->line, 3u);
  EXPECT_EQ(deep->column, 5u);
}

TEST(SourceNesting, ArrowsAndComparisonsAreNotBrackets) {
  // `->` and `>=` must not close a level: (( -> -> -> (( is 4 deep.
  EXPECT_TRUE(findExcessNesting("((a -> b -> c >= d((", 3));
  EXPECT_FALSE(findExcessNesting("(a) -> (b)", 1));
}

TEST(SourceNesting, StringsAndCommentsDoNotCountButEndWhereMlirEndsThem) {
  EXPECT_FALSE(findExcessNesting("\"" + repeat("[", 1000) + "\"", 1));
  EXPECT_FALSE(findExcessNesting("// " + repeat("{", 1000) + "\n", 1));
  // An escaped quote does not end the string; an escaped backslash does not
  // escape the quote after it.
  EXPECT_FALSE(findExcessNesting("\"\\\"[[[\"", 1));
  EXPECT_TRUE(findExcessNesting("\"\\\\\"[[[", 1));
  // A string never runs past its line (MLIR stops there): brackets on the
  // next line count.
  EXPECT_TRUE(findExcessNesting("\"open\n[[[", 2));
  // One `/` is no comment.
  EXPECT_TRUE(findExcessNesting("/ [[[", 2));
}

TEST(SourceNesting, TheIssuesInputsAreRefusedAndTheLimitIsKept) {
  const size_t n = 10000;
  EXPECT_TRUE(
      findExcessNesting("{z = " + repeat("[", n) + "1" + repeat("]", n) + "}"));
  EXPECT_TRUE(findExcessNesting(repeat("{a = ", n) + "1" + repeat("}", n)));
  EXPECT_TRUE(findExcessNesting("loc(" + repeat("callsite(\"a\" at ", 100000) +
                                "\"b\"" + repeat(")", 100000) + ")"));
  const unsigned limit = proofc::kMaxSourceNesting;
  EXPECT_FALSE(findExcessNesting(repeat("[", limit) + repeat("]", limit)));
  EXPECT_TRUE(findExcessNesting(repeat("[", limit + 1)));
  // Depth, not count: many shallow brackets are fine.
  EXPECT_FALSE(findExcessNesting(repeat("[[]]", 100000)));
}

} // namespace
