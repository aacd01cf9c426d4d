//===- AtomLayerTest.cpp - The folded atom layer's size (kernel_abi.h) ----===//
//
// kernel_abi.h's atomLayerRows decides whether fold_atom_layer makes its
// table at all (docs/bundle.md): the full (R + 3) n² rows within 128 MiB,
// the budget itself included, none past it, never an overflow for any int32
// count (checked against 128-bit arithmetic); kinship's table (about 98 MB)
// is made. planSymbols binds it as AL and its argument rows as AN, 0 when
// there is no table. The table's contents: PrologueEmulationTest. No GPU
// needed.
//
//===----------------------------------------------------------------------===//
#include "proofc/contract/kernel_abi.h"

#include "TestUtil.h"
#include "cuda/PlanBinding.h"
#include "data/KnowledgeBase.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <limits>

namespace proofc::test {
namespace {

using proofc_abi::atomLayerArgRows;
using proofc_abi::atomLayerRows;
using proofc_abi::kAtomLayerMaxBytes;

static_assert(kAtomLayerMaxBytes == 128LL * 1024 * 1024);
static_assert(atomLayerArgRows(12, 104) == 117, "constexpr, 2A + E + 1");

/// atomLayerRows computed in 128-bit arithmetic.
long long referenceRows(long long R, long long E, long long V, long long w) {
  if (w <= 0 || R < 0 || E < 0 || V < 0)
    return 0;
  const __int128 n = V + E + 1;
  const __int128 rows = (R + 3) * n * n; // < 2^96
  if (rows > kAtomLayerMaxBytes)
    return 0;
  return rows * w * 4 <= kAtomLayerMaxBytes ? static_cast<long long>(rows) : 0;
}

TEST(AtomLayer, TheBudgetItselfCountsOneRowMoreDoesNot) {
  // width 64: 2^27 / 256 = 2^19 rows; n = 128 (V 6, E 121): R + 3 = 32.
  EXPECT_EQ(atomLayerRows(29, 121, 6, 64), 32LL * 128 * 128);
  EXPECT_EQ(32LL * 128 * 128 * 64 * 4, kAtomLayerMaxBytes);
  EXPECT_EQ(atomLayerRows(30, 121, 6, 64), 0);
  EXPECT_EQ(atomLayerRows(29, 122, 6, 64), 0);
  // width 3, n = 1: floor(2^27 / 12) rows fit, one more does not.
  const long long fit = kAtomLayerMaxBytes / 12;
  EXPECT_EQ(atomLayerRows(fit - 3, 0, 0, 3), fit);
  EXPECT_EQ(atomLayerRows(fit - 2, 0, 0, 3), 0);
  // One row of the whole budget, and a width past it.
  EXPECT_EQ(atomLayerRows(0, 0, 0, kAtomLayerMaxBytes / 12), 3);
  EXPECT_EQ(atomLayerRows(0, 0, 0, kAtomLayerMaxBytes / 4), 0);
}

TEST(AtomLayer, KinshipsTableIsMade) {
  long long R = 25, E = 104; // docs: kinship's relations and entities
  if (std::filesystem::exists(dataDir("kinship"))) {
    const Dataset ds = loadDataset(dataDir("kinship"));
    R = ds.numRelations();
    E = ds.numEntities();
    EXPECT_EQ(R, 25);
    EXPECT_EQ(E, 104);
  }
  const long long rows = atomLayerRows(R, E, 12, 64); // A = 6, d = 64
  EXPECT_EQ(rows, (R + 3) * 117 * 117);
  EXPECT_GT(rows * 64 * 4, 90LL << 20); // about 98 MB
  EXPECT_LE(rows * 64 * 4, kAtomLayerMaxBytes);
}

TEST(AtomLayer, NoCountOverflowsAndEveryAnswerIsExact) {
  constexpr long long kMax = std::numeric_limits<int32_t>::max();
  for (long long w : {-1LL, 0LL})
    EXPECT_EQ(atomLayerRows(25, 104, 12, w), 0);
  EXPECT_EQ(atomLayerRows(kMax, kMax, kMax, kMax), 0);
  EXPECT_EQ(atomLayerRows(kMax, 0, 2, 1), 0);
  EXPECT_EQ(atomLayerRows(0, kMax, 2, 1), 0);
  EXPECT_EQ(atomLayerRows(0, 65533, 2, 1), 0); // n = 2^16: n^2 > budget
  EXPECT_EQ(atomLayerRows(0, 65534, 2, 1), 0); // n > 2^16
  EXPECT_EQ(atomLayerRows(-1, 0, 2, 1), 0);
  EXPECT_EQ(atomLayerRows(0, -1, 2, 1), 0);
  EXPECT_EQ(atomLayerRows(0, 0, -2, 1), 0);
  // Sizes around every edge, against 128-bit arithmetic.
  SplitMix64 rng(11);
  const long long edges[] = {0,     1,         2,        3,     11,
                             117,   128,       4096,     65533, 65534,
                             65535, 1LL << 20, kMax - 3, kMax};
  auto pick = [&] {
    const long long e = edges[rng.next() % (sizeof(edges) / sizeof(*edges))];
    return rng.next() % 2 ? e : static_cast<long long>(rng.next() % (e + 1));
  };
  for (int i = 0; i < 100000; ++i) {
    const long long R = pick(), E = pick(), V = pick(), w = pick();
    ASSERT_EQ(atomLayerRows(R, E, V, w), referenceRows(R, E, V, w))
        << "R " << R << " E " << E << " V " << V << " w " << w;
  }
}

TEST(AtomLayer, PlanSymbolsBindTheTableOrNone) {
  ProgramSpec program; // A = 6, d = 64
  KnowledgeBase kb;
  kb.numRelations = 25;
  kb.numEntities = 104;
  SymbolTable symbols = planSymbols(program, kb, 100);
  EXPECT_EQ(symbols.at("AL"), 28 * 117 * 117);
  EXPECT_EQ(symbols.at("AN"), 117);
  kb.numRelations = 11; // wn18rr: far past the budget
  kb.numEntities = 40943;
  symbols = planSymbols(program, kb, 100);
  EXPECT_EQ(symbols.at("AL"), 0);
  EXPECT_EQ(symbols.at("AN"), 0);
  for (const std::string_view name : kBundleSymbols)
    EXPECT_TRUE(symbols.count(std::string(name))) << name;
}

} // namespace
} // namespace proofc::test
