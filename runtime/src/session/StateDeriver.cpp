//===- StateDeriver.cpp - derive() of any states --------------------------===//
//
// The engine's step on states the caller chooses (Derive.h): a search over
// the engine (the imitation warm start's shortest proofs) expands whole
// levels with one call. It runs the host engine (host/Engine.h) whatever
// the session's device, on its own knowledge base of the session's facts.
// It lives in session/ because a session of any backend offers it. The states
// are checked first (a bad one is an error naming it), then split into
// contiguous ranges, one per host thread, each with its own DerivedSet; the
// lists are concatenated in input order, so the result depends on nothing but
// the inputs. Each thread appends its lists to fixed-size blocks, never to a
// growing vector, and the caller copies the blocks once to where it wants
// them: a search level's ~1 GB of states was written three times over before
// (the regrowth, the concatenation, the caller's copy), and the kernel's
// zeroing of that fresh memory was most of kinship's search on a 2-core
// virtual machine (its page faults: 2.35 M before, 0.77 M after;
// docs/training.md).
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Derive.h"

#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "support/Fail.h"
#include "support/HostThreads.h"

#include <algorithm>
#include <atomic>

namespace proofc {
namespace {

/// Fails unless state `i` is a canonical state of the dataset: goals
/// (predicates < R, constants < E, variables canonical) then padding, or
/// exactly [TRUE] / [FALSE] then padding. Returns true for a terminal.
bool checkState(const Atom *s, int32_t A, int32_t E, int32_t R, int64_t i,
                std::vector<Atom> &canon, std::vector<int32_t> &varMap) {
  const int32_t n = stateSize(s, A);
  for (int32_t j = n; j < A; ++j)
    if (!(s[j] == kPadAtom))
      fail("derive: state {}: atom {} ({}, {}, {}) follows a padding atom "
           "but is not padding (-1, 0, 0)",
           i, j, s[j].p, s[j].a, s[j].b);
  if (n == 0)
    fail("derive: state {} has no goal atoms", i);
  if (s[0].p == R || s[0].p == R + 1) {
    if (n != 1 || s[0].a != 0 || s[0].b != 0)
      fail("derive: state {}: a TRUE or FALSE atom must be ({}, 0, 0) "
           "alone",
           i, s[0].p);
    return true;
  }
  for (int32_t j = 0; j < n; ++j) {
    const Atom &x = s[j];
    if (x.p < 0 || x.p >= R)
      fail("derive: state {}: atom {} has predicate {} (the dataset has R "
           "= {} relations)",
           i, j, x.p, R);
    for (int32_t term : {x.a, x.b})
      if (term >= E || term < -2 * A)
        fail("derive: state {}: atom {} has term {} (constants are < E = {}, "
             "variables -1 .. -{})",
             i, j, term, E, 2 * A);
  }
  canonicalize(s, n, canon.data(), varMap.data());
  for (int32_t j = 0; j < n; ++j)
    if (!(canon[j] == s[j]))
      fail("derive: state {} is not canonical (variables numbered -1, -2, "
           "... by first occurrence, arg0 before arg1)",
           i);
  return false;
}

/// Atoms a block of DerivedLists holds (3 MB): large enough that the
/// blocks' bookkeeping is nothing, small enough that a thread's last,
/// partly filled block wastes little.
constexpr size_t kBlockAtoms = size_t(1) << 18;

/// Appends n atoms to the last block, or to a new one with room for
/// max(kBlockAtoms, n) when they do not fit: what is written never moves.
void append(std::vector<std::vector<Atom>> &blocks, const Atom *src, size_t n) {
  if (blocks.empty() || blocks.back().capacity() - blocks.back().size() < n) {
    blocks.emplace_back();
    blocks.back().reserve(std::max(kBlockAtoms, n));
  }
  blocks.back().insert(blocks.back().end(), src, src + n);
}

} // namespace

void DerivedLists::copyStates(Atom *dst) const {
  for (const std::vector<Atom> &block : blocks_) {
    std::copy(block.begin(), block.end(), dst);
    dst += block.size();
  }
}

struct StateDeriver::Impl {
  KnowledgeBase kb;
  ShapeParams shape;
  int threads;
};

StateDeriver::StateDeriver(const Dataset &dataset, const ShapeParams &shape,
                           bool factsIncludeValid, int threads)
    : impl_(std::make_unique<Impl>(
          Impl{buildKnowledgeBase(dataset, factsIncludeValid), shape,
               hostThreadCount(threads)})) {
  if (shape.A < 1 || shape.S < 1)
    fail("derive: shape A = {} and S = {} must both be at least 1", shape.A,
         shape.S);
}

StateDeriver::~StateDeriver() = default;

const ShapeParams &StateDeriver::shape() const { return impl_->shape; }
int32_t StateDeriver::numEntities() const { return impl_->kb.numEntities; }
int32_t StateDeriver::numRelations() const { return impl_->kb.numRelations; }
int StateDeriver::threads() const { return impl_->threads; }

DerivedLists StateDeriver::derive(const std::vector<Atom> &states,
                                  const std::vector<Triple> &candidates) const {
  const ShapeParams &shape = impl_->shape;
  const int32_t A = shape.A;
  if (states.size() % static_cast<size_t>(A) != 0)
    fail("derive: {} atoms are not whole states of A = {} atoms", states.size(),
         A);
  const int64_t N = static_cast<int64_t>(states.size()) / A;
  if (static_cast<int64_t>(candidates.size()) != N)
    fail("derive: {} candidates for {} states (one each)", candidates.size(),
         N);
  const KnowledgeBase &kb = impl_->kb;
  const int32_t E = kb.numEntities, R = kb.numRelations;
  for (int64_t i = 0; i < N; ++i) {
    const Triple &c = candidates[static_cast<size_t>(i)];
    if (c.h < 0 || c.h >= E || c.t < 0 || c.t >= E || c.r < 0 || c.r >= R)
      fail("derive: candidate {} ({}, {}, {}) is outside the dataset (E = "
           "{}, R = {})",
           i, c.h, c.r, c.t, E, R);
  }
  std::vector<uint8_t> terminal(static_cast<size_t>(N));
  {
    std::vector<Atom> canon(static_cast<size_t>(A));
    std::vector<int32_t> varMap(2 * static_cast<size_t>(A) + 1, 0);
    for (int64_t i = 0; i < N; ++i)
      terminal[i] =
          checkState(states.data() + i * A, A, E, R, i, canon, varMap);
  }
  const int threads = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(impl_->threads, N / 64)));
  struct Part {
    std::vector<int32_t> count;
    std::vector<std::vector<Atom>> blocks;
  };
  std::vector<Part> parts(static_cast<size_t>(threads));
  auto body = [&](int t) {
    const int64_t begin = N * t / threads, end = N * (t + 1) / threads;
    DerivedSet set(kb, shape);
    Part &part = parts[static_cast<size_t>(t)];
    part.count.reserve(static_cast<size_t>(end - begin));
    for (int64_t i = begin; i < end; ++i) {
      if (terminal[i]) {
        part.count.push_back(0);
        continue;
      }
      proofc::derive(kb, states.data() + i * A,
                     candidates[static_cast<size_t>(i)], shape, set);
      part.count.push_back(set.count);
      append(part.blocks, set.state(0), static_cast<size_t>(set.count) * A);
    }
  };
  std::atomic<bool> abort{false}; // raised on a throw; no range polls it
  runHostWorkers(threads, abort, body);

  DerivedLists out;
  out.count.reserve(static_cast<size_t>(N));
  for (Part &p : parts) {
    out.count.insert(out.count.end(), p.count.begin(), p.count.end());
    for (std::vector<Atom> &block : p.blocks)
      out.blocks_.push_back(std::move(block));
  }
  return out;
}

} // namespace proofc
