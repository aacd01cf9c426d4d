//===- CompileTiersTest.cpp - Which kernels a cold setup starts on --------===//
//
// PROOFC_COMPILE_TIERS and the decision a setup makes with it
// (cuda/CompileTiers.h), without a GPU; the tiers themselves run in
// GpuCompileTiersTest.
//
//===----------------------------------------------------------------------===//
#include "cuda/CompileTiers.h"

#include "TestUtil.h"
#include "proofc/runtime/Error.h"

#include <gtest/gtest.h>

namespace proofc::test {
namespace {

TEST(CompileTiers, FromTheEnvironment) {
  {
    ScopedEnv unset("PROOFC_COMPILE_TIERS", nullptr);
    EXPECT_EQ(compileTiersFromEnvironment(), CompileTiers::Auto);
  }
  {
    ScopedEnv empty("PROOFC_COMPILE_TIERS", "");
    EXPECT_EQ(compileTiersFromEnvironment(), CompileTiers::Auto);
  }
  for (CompileTiers t :
       {CompileTiers::Auto, CompileTiers::Always, CompileTiers::Off}) {
    ScopedEnv set("PROOFC_COMPILE_TIERS", compileTiersName(t));
    EXPECT_EQ(compileTiersFromEnvironment(), t);
  }
  for (const char *bad : {"on", "AUTO", "1", "off "}) {
    ScopedEnv set("PROOFC_COMPILE_TIERS", bad);
    try {
      compileTiersFromEnvironment();
      FAIL() << bad << ": no error";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()), std::string("PROOFC_COMPILE_TIERS: '") +
                                           bad +
                                           "' is not auto, always or off");
    }
  }
}

TEST(CompileTiers, QuickOnlyForACacheMissAndASmallEnoughPool) {
  const int64_t small = kQuickTierMaxCandidates;
  const int64_t large = kQuickTierMaxCandidates + 1;
  // Every optimized kernel cached: never the quick tier.
  for (CompileTiers t :
       {CompileTiers::Auto, CompileTiers::Always, CompileTiers::Off})
    for (int64_t n : {int64_t{1}, small, large})
      EXPECT_FALSE(startsOnQuickTier(t, /*optimizedCached=*/true, n));
  EXPECT_TRUE(startsOnQuickTier(CompileTiers::Auto, false, 1));
  EXPECT_TRUE(startsOnQuickTier(CompileTiers::Auto, false, small));
  EXPECT_FALSE(startsOnQuickTier(CompileTiers::Auto, false, large));
  EXPECT_TRUE(startsOnQuickTier(CompileTiers::Always, false, large));
  EXPECT_FALSE(startsOnQuickTier(CompileTiers::Off, false, 1));
}

} // namespace
} // namespace proofc::test
