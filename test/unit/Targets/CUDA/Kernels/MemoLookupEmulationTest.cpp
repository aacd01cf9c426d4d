//===- MemoLookupEmulationTest.cpp - memo.cu's lookup, entry by entry -----===//
//
// The step memo's lookup (lib/Targets/CUDA/Kernels/memo.cu) compiled as C++
// through the CUDA shim, on hand-made tables: a published entry is a hit
// with its value, an empty table a miss that claims the key's entry, and an
// entry whose key or value is not all written yet (a word still 0) is
// pending, never a hit, whichever of its words is missing; an entry of the
// same hash and another key is passed over to the next probe. Every word
// of the key and of the value is left unwritten in turn: a reader on the
// GPU may see an entry's words in any order. Each case runs twice: with the
// thread's functions and with the warp's (lookupWarp, publishWarp, a state
// word a lane, the shim's 32 fibers as the lanes), which must agree with
// them result for result; the warp's key is the thread's, hash included.
// The whole plan's emulation (EmulatedPlanTest.cpp) runs the memo on real
// steps, one block at a time, where no entry is ever half written.
//
//===----------------------------------------------------------------------===//
#include "Targets/CUDA/Kernels/emulation/CudaShim.h"

#define PROOFC_A 6
#define PROOFC_S 120
#define PROOFC_ENGINE_THREADS 32
// No kernel entry (kernel_abi.h's PROOFC_HAS_ENTRY: none listed), and the
// functions renamed apart from the other tests' copies of the same
// templates (one definition rule).
#define PROOFC_ENTRIES_LISTED
#define proofc_engine_impl proofc_engine_impl_memo_test
#define proofc_memo proofc_memo_memo_test
#include "Kernels/engine.cu"
#include "Kernels/memo.cu"
#undef proofc_memo
#undef proofc_engine_impl

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace proofc::test {
namespace {

namespace memo = ::proofc_memo_memo_test;
constexpr int W = memo::W;
constexpr int kEntries = 64;
using State = std::array<int, W>;

/// A canonical state: (p, s, o) then padding atoms.
State makeState(int p, int s, int o) {
  State st{};
  st[0] = p;
  st[1] = s;
  st[2] = o;
  for (int a = 1; a < PROOFC_A; ++a) {
    st[3 * a] = -1;
    st[3 * a + 1] = 0;
    st[3 * a + 2] = 0;
  }
  return st;
}

struct Result {
  bool hit = false, pending = false;
  int claim = 0, action = -1;
  float logp = 0.f;
  State next{};
};

/// Which functions a case runs: memo.cu's thread functions or its warp's.
enum class Lanes { Thread, Warp };

struct MemoTable {
  std::vector<int> words = std::vector<int>(kEntries * memo::kEntryWords, 0);
  unsigned mask = kEntries - 1;
  Lanes lanes = Lanes::Thread;

  Result lookup(const State &g, int h, int r, int t, bool withAction) {
    Result out;
    if (lanes == Lanes::Thread) {
      const memo::Key key = memo::makeKey(g.data(), h, r, t);
      out.hit = memo::lookup(words.data(), mask, g.data(), key, out.next.data(),
                             out.logp, out.action, withAction, out.claim,
                             out.pending);
      return out;
    }
    // One warp: lane i holds the state's word i; lane 0 reports the
    // scalars, every lane its word of the next state.
    emu::launch(1, 32, [&] {
      const int lane = static_cast<int>(threadIdx.x);
      const int word = lane < W ? g[lane] : 0;
      const memo::Key key = memo::makeKeyWarp(
          word, ::proofc_engine_impl_memo_test::hashFactor(lane), h, r, t);
      int next = -7, action = -1, claim = -1;
      float logp = 0.f;
      bool pending = true;
      const bool hit =
          memo::lookupWarp(words.data(), mask, word, key, next, logp, action,
                           withAction, claim, pending);
      if (lane < W && hit)
        out.next[lane] = next;
      if (lane == 0) {
        out.hit = hit;
        out.pending = pending;
        out.claim = claim;
        if (hit) {
          out.logp = logp;
          out.action = withAction ? action : -1;
        }
      }
    });
    return out;
  }

  void publish(int claim, const State &next, float logp, int action,
               bool withAction) {
    if (lanes == Lanes::Thread) {
      memo::publish(words.data(), claim, next.data(), logp, action, withAction);
      return;
    }
    emu::launch(1, 32, [&] {
      const int lane = static_cast<int>(threadIdx.x);
      memo::publishWarp(words.data(), claim, lane < W ? next[lane] : 0, logp,
                        action, withAction);
    });
  }

  int *entry(int claim) {
    return words.data() + (claim - 1) * memo::kEntryWords;
  }
};

class MemoLookupEmulation : public ::testing::TestWithParam<Lanes> {
protected:
  MemoTable makeTable() const {
    MemoTable table;
    table.lanes = GetParam();
    return table;
  }
};

// The key of a step that is not relevant to the candidate: its (h, t) play
// no part (memo.cu's makeKey).
const State kG = makeState(3, 7, 9);
const State kNext = makeState(4, 7, -1);
constexpr int kH = 11, kR = 5, kT = 12;

/// An empty table: the lookup claims the key's entry and writes the key;
/// after the claimer publishes, the same lookup is a hit with the value.
TEST_P(MemoLookupEmulation, ClaimThenPublishThenHit) {
  MemoTable table = makeTable();
  Result first = table.lookup(kG, kH, kR, kT, true);
  EXPECT_FALSE(first.hit);
  EXPECT_FALSE(first.pending);
  ASSERT_GT(first.claim, 0);
  // Claimed and not published: another slot finds it pending.
  Result during = table.lookup(kG, kH, kR, kT, true);
  EXPECT_FALSE(during.hit);
  EXPECT_TRUE(during.pending);
  EXPECT_EQ(during.claim, 0);
  table.publish(first.claim, kNext, -0.75f, 3, true);
  Result hit = table.lookup(kG, kH, kR, kT, true);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.next, kNext);
  EXPECT_EQ(hit.logp, -0.75f);
  EXPECT_EQ(hit.action, 3);
  EXPECT_FALSE(hit.pending);
}

/// Every word of a published entry, zeroed in turn (not yet visible to the
/// reader): the lookup is pending, never a hit with a partial value, and
/// claims nothing, whether the word is the key's or the value's.
TEST_P(MemoLookupEmulation, AnyUnwrittenWordIsPending) {
  MemoTable published = makeTable();
  const int claim = published.lookup(kG, kH, kR, kT, true).claim;
  ASSERT_GT(claim, 0);
  published.publish(claim, kNext, 1.5f, 2, true);
  // Words 1 .. the action's (the hash is the claim itself).
  for (int w = 1; w <= memo::kActionWord; ++w) {
    MemoTable table = published;
    table.entry(claim)[w] = 0;
    Result r = table.lookup(kG, kH, kR, kT, true);
    EXPECT_FALSE(r.hit) << "word " << w;
    EXPECT_TRUE(r.pending) << "word " << w;
    EXPECT_EQ(r.claim, 0) << "word " << w;
  }
  // A run that does not record the actions needs no action word.
  MemoTable table = published;
  table.entry(claim)[memo::kActionWord] = 0;
  Result r = table.lookup(kG, kH, kR, kT, false);
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(r.next, kNext);
}

/// An entry of the same hash and another key is passed over: the lookup
/// goes on to the next probe and claims it.
TEST_P(MemoLookupEmulation, AnotherKeyOfTheSameHashIsPassedOver) {
  MemoTable table = makeTable();
  const memo::Key key = memo::makeKey(kG.data(), kH, kR, kT);
  const unsigned first = key.hash & table.mask;
  // Entry `first`: the same hash, a complete entry of another state.
  int *other = table.words.data() + first * memo::kEntryWords;
  other[0] = static_cast<int>(key.hash);
  const State otherState = makeState(3, 8, 9);
  int otherClaim = static_cast<int>(first) + 1;
  memo::storeMarked(other + 1, key.relH);
  memo::storeMarked(other + 2, key.relT);
  for (int i = 0; i < W; ++i)
    memo::storeMarked(other + 3 + i, otherState[i]);
  table.publish(otherClaim, kNext, 0.f, 0, true);
  Result r = table.lookup(kG, kH, kR, kT, true);
  EXPECT_FALSE(r.hit);
  EXPECT_FALSE(r.pending);
  EXPECT_EQ(r.claim, static_cast<int>((first + 1) & table.mask) + 1);
}

/// The warp's key is the thread's, hash included, for steps relevant to the
/// candidate (its (h, t) in the key) and not, with variables in the goal.
TEST(MemoLookupEmulationKeys, WarpKeyIsTheThreadKey) {
  const State states[] = {kG,
                          kNext,
                          makeState(5, 11, 12),
                          makeState(5, -1, 12),
                          makeState(5, -1, -1),
                          makeState(5, 11, -1),
                          makeState(2, -1, -2)};
  for (const State &g : states) {
    const memo::Key want = memo::makeKey(g.data(), kH, kR, kT);
    memo::Key got{};
    emu::launch(1, 32, [&] {
      const int lane = static_cast<int>(threadIdx.x);
      const memo::Key k = memo::makeKeyWarp(
          lane < W ? g[lane] : 0,
          ::proofc_engine_impl_memo_test::hashFactor(lane), kH, kR, kT);
      if (lane == 0)
        got = k;
    });
    EXPECT_EQ(got.hash, want.hash) << g[0] << " " << g[1] << " " << g[2];
    EXPECT_EQ(got.relH, want.relH);
    EXPECT_EQ(got.relT, want.relT);
  }
}

INSTANTIATE_TEST_SUITE_P(Lanes, MemoLookupEmulation,
                         ::testing::Values(Lanes::Thread, Lanes::Warp),
                         [](const ::testing::TestParamInfo<Lanes> &info) {
                           return info.param == Lanes::Thread ? "Thread"
                                                              : "Warp";
                         });

} // namespace
} // namespace proofc::test
