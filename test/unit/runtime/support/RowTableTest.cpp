//===- RowTableTest.cpp - Rows of int32 words found by their first words --===//
//
// RowTable (support/RowTable.h) backs the host's step memo, the warm
// start's search and the host's rollouts' state table; their own tests
// reach it through them. Here: a row is found by its key words only, a
// second row with the same key is refused, intern() numbers distinct rows
// by their first insertion across the index's doublings,
// the index survives its doublings, retain() keeps the order and the
// lookups of what it keeps, and rows whose hashes collide are told apart by
// their words.
//
//===----------------------------------------------------------------------===//
#include "support/RowTable.h"

#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace proofc;

namespace row_table_test {

TEST(RowTable, FindsARowByItsKeyAndRefusesTheSameKeyTwice) {
  RowTable t(2, 3);
  const int32_t a[] = {1, 2, 7}, sameKey[] = {1, 2, 8}, b[] = {2, 1, 9};
  EXPECT_EQ(t.find(a, t.hash(a)), -1);
  EXPECT_TRUE(t.insert(a, t.hash(a)));
  EXPECT_FALSE(t.insert(sameKey, t.hash(sameKey)));
  EXPECT_TRUE(t.insert(b, t.hash(b)));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.find(sameKey, t.hash(sameKey)), 0);
  EXPECT_EQ(t.row(0)[2], 7); // the first row's payload stays
  EXPECT_EQ(t.find(b, t.hash(b)), 1);
  EXPECT_EQ(t.hashOf(1), t.hash(b));
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.find(a, t.hash(a)), -1);
  EXPECT_THROW(RowTable(0, 1), Error);
  EXPECT_THROW(RowTable(3, 2), Error);
}

TEST(RowTable, InternNumbersDistinctRowsByTheirFirstInsertion) {
  RowTable t(2, 2);
  // Every third row repeats an earlier one: the numbers are those of the
  // first insertion, through every doubling of the index (64 slots first).
  std::vector<size_t> numbers;
  for (int32_t i = 0; i < 3000; ++i) {
    const int32_t distinct = i % 3 == 2 ? i / 7 : i - i / 3;
    const int32_t row[] = {distinct, distinct ^ 0x5a5a};
    numbers.push_back(t.intern(row, t.hash(row)));
  }
  // The expected numbering, by a plain map of first appearances.
  std::map<int32_t, size_t> first;
  for (int32_t i = 0; i < 3000; ++i) {
    const int32_t distinct = i % 3 == 2 ? i / 7 : i - i / 3;
    const size_t next = first.size();
    const auto [it, fresh] = first.emplace(distinct, next);
    ASSERT_EQ(numbers[static_cast<size_t>(i)], it->second) << i;
    if (fresh)
      EXPECT_EQ(t.row(it->second)[0], distinct);
  }
  EXPECT_EQ(t.size(), first.size());
  EXPECT_EQ(t.words() + 2 * 5, t.row(5)); // the rows are one array
}

TEST(RowTable, GrowsAndRetainsInOrder) {
  RowTable t(1, 2);
  for (int32_t i = 0; i < 20000; ++i) {
    const int32_t row[] = {i, -i};
    ASSERT_TRUE(t.insert(row, t.hash(row)));
  }
  for (int32_t i = 0; i < 20000; ++i) {
    const int32_t key[] = {i};
    ASSERT_EQ(t.find(key, t.hash(key)), i);
  }
  t.retain([](const int32_t *row) { return row[0] % 3 == 0; });
  ASSERT_EQ(t.size(), 6667u);
  for (int32_t i = 0; i < 20000; ++i) {
    const int32_t key[] = {i};
    const int64_t at = t.find(key, t.hash(key));
    if (i % 3 != 0) {
      EXPECT_EQ(at, -1) << i;
      continue;
    }
    ASSERT_EQ(at, i / 3) << i;
    EXPECT_EQ(t.row(static_cast<size_t>(at))[1], -i);
  }
}

TEST(RowTable, CollidingHashesAreToldApartByTheWords) {
  // Every key given the same hash: the probe must compare the words.
  RowTable t(1, 1);
  for (int32_t i = 0; i < 100; ++i) {
    const int32_t key[] = {i};
    ASSERT_TRUE(t.insert(key, 42));
  }
  for (int32_t i = 0; i < 100; ++i) {
    const int32_t key[] = {i};
    EXPECT_EQ(t.find(key, 42), i);
    EXPECT_FALSE(t.insert(key, 42));
  }
  const int32_t absent[] = {100};
  EXPECT_EQ(t.find(absent, 42), -1);
}

} // namespace row_table_test
