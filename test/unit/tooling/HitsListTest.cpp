//===- HitsListTest.cpp - The tools' --hits list --------------------------===//
#include "tooling/HitsList.h"

#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

#include <string>

namespace proofc {
namespace {

TEST(HitsList, Parsing) {
  EXPECT_EQ(parseHitsList("10,1,3,3"), (std::vector<int64_t>{1, 3, 10}));
  EXPECT_EQ(parseHitsList("100"), (std::vector<int64_t>{100}));
  for (const char *bad :
       {"", "0", "1,,3", "-1", "1,x", "3,", "99999999999999999999"})
    EXPECT_THROW(parseHitsList(bad), Error) << bad;
  try {
    parseHitsList("1,\x1b[31m");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()).find('\x1b'), std::string::npos);
    EXPECT_EQ(std::string(e.what()).rfind("--hits: ", 0), 0u);
  }
}

} // namespace
} // namespace proofc
