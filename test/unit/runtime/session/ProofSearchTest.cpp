//===- ProofSearchTest.cpp - The warm start's search, without Python ------===//
//
// ProofSearch (ProofSearch.h) is driven by python/proofc/training/search.py,
// whose tests compare it with the numpy search it replaced. These run it
// from C++, so that the sanitized suite (which has no Python) covers its
// hash sets and its bookkeeping: every proof found replays through the
// engine to [TRUE] within the depth; the pieces change nothing when the
// ties come in the same order, nor do the threads that filter a level; a
// smaller `keep` finds no proof the larger one misses at fewer steps; and the
// calls out of order or out of range are errors.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "proofc/runtime/Derive.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/ProofSearch.h"

#include <gtest/gtest.h>

#include <random>

using namespace proofc;
using namespace proofc::test;

namespace proof_search_test {

struct Kinship {
  Dataset ds = loadDataset(dataDir("kinship"));
  ShapeParams shape; // V10's A = 6, S = 120
  StateDeriver deriver{ds, shape, /*factsIncludeValid=*/false, /*threads=*/2};

  std::vector<Triple> firstTrain(size_t n) const {
    return std::vector<Triple>(ds.train.begin(),
                               ds.train.begin() + static_cast<long>(n));
  }
};

using Paths = std::vector<std::optional<std::vector<int32_t>>>;

/// Runs the search as search.py does, the ties from one mt19937_64 stream.
Paths runSearch(ProofSearch &search, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  while (search.nextLevel())
    for (int64_t p = 0; p < search.numPieces(); ++p) {
      std::vector<double> ties(static_cast<size_t>(search.expand(p)));
      for (double &t : ties)
        t = uniform(gen);
      search.select(p, ties.data(), static_cast<int64_t>(ties.size()));
    }
  return search.paths();
}

TEST(ProofSearch, EveryProofReplaysToTrueWithinTheDepth) {
  Kinship k;
  const std::vector<Triple> triples = k.firstTrain(150);
  ProofSearch search(k.deriver, triples, /*keep=*/8, /*maxDepth=*/5, 100);
  const Paths paths = runSearch(search, 1);
  int found = 0;
  for (size_t i = 0; i < triples.size(); ++i) {
    if (!paths[i])
      continue;
    ++found;
    const std::vector<int32_t> &path = *paths[i];
    ASSERT_LE(path.size(), 5u) << "triple " << i;
    std::vector<Atom> state(static_cast<size_t>(k.shape.A),
                            Atom{kPadPred, 0, 0});
    state[0] = Atom{triples[i].r, triples[i].h, triples[i].t};
    for (size_t step = 0; step < path.size(); ++step) {
      const DerivedLists lists = k.deriver.derive(state, {triples[i]});
      ASSERT_LT(path[step], lists.count[0]) << "triple " << i;
      std::vector<Atom> all(static_cast<size_t>(lists.numStates() * k.shape.A));
      lists.copyStates(all.data());
      std::copy_n(all.begin() + path[step] * k.shape.A, k.shape.A,
                  state.begin());
      // Only the last step reaches [TRUE].
      EXPECT_EQ(state[0].p == k.ds.numRelations(), step + 1 == path.size())
          << "triple " << i << " step " << step;
    }
  }
  EXPECT_GT(found, 40);
}

TEST(ProofSearch, ThePiecesChangeNothing) {
  Kinship k;
  const std::vector<Triple> triples = k.firstTrain(120);
  ProofSearch whole(k.deriver, triples, 4, 6, int64_t(1) << 62);
  const Paths expected = runSearch(whole, 7);
  for (int64_t pieceStates : {int64_t(1), int64_t(9), int64_t(40)}) {
    ProofSearch pieces(k.deriver, triples, 4, 6, pieceStates);
    EXPECT_EQ(runSearch(pieces, 7), expected) << "piece_states " << pieceStates;
    EXPECT_EQ(pieces.levels(), whole.levels());
  }
  // The ties are drawn: another stream finds other paths.
  ProofSearch other(k.deriver, triples, 4, 6, int64_t(1) << 62);
  EXPECT_NE(runSearch(other, 8), expected);
}

TEST(ProofSearch, TheThreadsChangeNothing) {
  // expand() filters a level on the deriver's threads, a range of whole
  // triples each (at least 64 parents): 600 triples at keep 4 give levels
  // of up to 2,400 states, cut in 3 and 7 ranges whose bounds fall inside
  // triples until moved to their ends. Every expand() collects as many
  // states and the paths are the same as on one thread.
  Kinship k;
  const std::vector<Triple> triples = k.firstTrain(600);
  auto run = [&](int threads, std::vector<int64_t> &counts) {
    StateDeriver deriver{k.ds, k.shape, false, threads};
    ProofSearch search(deriver, triples, 4, 6, int64_t(1) << 62);
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    while (search.nextLevel()) {
      counts.push_back(search.expand(0));
      std::vector<double> ties(static_cast<size_t>(counts.back()));
      for (double &t : ties)
        t = uniform(gen);
      search.select(0, ties.data(), static_cast<int64_t>(ties.size()));
    }
    return search.paths();
  };
  std::vector<int64_t> oneCounts;
  const Paths one = run(1, oneCounts);
  ASSERT_GT(oneCounts.size(), 2u);
  ASSERT_GT(oneCounts[1], int64_t(7 * 64));
  for (int threads : {3, 7}) {
    std::vector<int64_t> counts;
    EXPECT_EQ(run(threads, counts), one) << threads << " threads";
    EXPECT_EQ(counts, oneCounts) << threads << " threads";
  }
}

TEST(ProofSearch, ProofsAreShortestForAKeepLargeEnough) {
  // With a keep no level reaches (kinship's lists hold at most 120 states:
  // 120^3 a triple at the fourth level), every state is expanded and a
  // proof is found at the first level that has one, so no smaller keep
  // finds a shorter one. Kinship's proofs take four steps.
  Kinship k;
  const std::vector<Triple> triples = k.firstTrain(30);
  ProofSearch all(k.deriver, triples, 1000000, 4, int64_t(1) << 62);
  const Paths shortest = runSearch(all, 3);
  ProofSearch few(k.deriver, triples, 2, 4, 64);
  const Paths some = runSearch(few, 3);
  int found = 0;
  for (size_t i = 0; i < triples.size(); ++i) {
    if (!some[i])
      continue;
    ++found;
    ASSERT_TRUE(shortest[i].has_value()) << "triple " << i;
    EXPECT_LE(shortest[i]->size(), some[i]->size()) << "triple " << i;
  }
  EXPECT_GT(found, 3);
}

TEST(ProofSearch, BadBoundsTriplesAndCallsAreErrors) {
  Kinship k;
  const std::vector<Triple> one = k.firstTrain(1);
  EXPECT_THROW(ProofSearch(k.deriver, one, 0, 6, 1), Error);
  EXPECT_THROW(ProofSearch(k.deriver, one, 1, -1, 1), Error);
  EXPECT_THROW(ProofSearch(k.deriver, one, 1, 6, 0), Error);
  std::vector<Triple> bad = one;
  bad.push_back(Triple{0, k.ds.numRelations(), 0});
  try {
    ProofSearch search(k.deriver, bad, 1, 6, 1);
    ADD_FAILURE() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("triple 1"), std::string::npos)
        << e.what();
  }
  ProofSearch search(k.deriver, one, 1, 2, 1);
  ASSERT_TRUE(search.nextLevel());
  EXPECT_THROW(search.select(0, nullptr, 0), Error); // before expand(0)
  EXPECT_THROW(search.expand(1), Error);             // one piece
  const int64_t n = search.expand(0);
  std::vector<double> ties(static_cast<size_t>(n + 1), 0.5);
  EXPECT_THROW(search.select(0, ties.data(), n + 1), Error);
  search.select(0, ties.data(), n); // still expanded: the error kept it
  // An empty search has no pieces and no level.
  ProofSearch none(k.deriver, {}, 1, 6, 1);
  EXPECT_EQ(none.numPieces(), 0);
  EXPECT_FALSE(none.nextLevel());
  EXPECT_TRUE(none.paths().empty());
}

} // namespace proof_search_test
