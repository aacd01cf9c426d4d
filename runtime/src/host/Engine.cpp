//===- Engine.cpp - The proof-step engine derive(G, c) --------------------===//
//
// Spec §3, step by step, with two exact shortcuts:
//  * TRUE only ever comes from a fact step on a one-goal state: a fact step
//    yields θ(rest), empty iff n == 1, and a rule step yields θ(body ++ rest)
//    with a non-empty body. So for n == 1 the result is [TRUE] iff some fact
//    other than c matches g1 (§3 steps 1, 3, 5), and the fact steps need no
//    enumeration.
//  * Otherwise no yielded list is TRUE, so after dedupe (§3 step 4) the result
//    is the first S distinct states (§3 step 6): enumeration stops once S
//    distinct states are collected.
//
//===----------------------------------------------------------------------===//
#include "host/Engine.h"

#include "data/MemoryBudget.h"
#include "support/Fail.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace proofc {
namespace {

constexpr int32_t kUnbound = std::numeric_limits<int32_t>::min();

/// 64-bit: for S > 2^30, 2S rounds up to 2^32 (a 32-bit p wrapped to 0 and
/// the loop never ended).
uint64_t roundUpPow2(uint64_t v) {
  uint64_t p = 16;
  while (p < v)
    p <<= 1;
  return p;
}

/// Number of distinct variables of a canonical state (its largest -term).
int32_t numVars(const Atom *goals, int32_t n) {
  int32_t m = 0;
  for (int32_t i = 0; i < n; ++i)
    m = std::max(m, std::max(-goals[i].a, -goals[i].b));
  return m;
}

bool isCandidateFact(const Atom &f, const Triple &c) {
  return f.p == c.r && f.a == c.h && f.b == c.t;
}

} // namespace

int32_t stateSize(const Atom *state, int32_t A) {
  int32_t n = 0;
  while (n < A && state[n].p != kPadPred)
    ++n;
  return n;
}

void canonicalize(const Atom *in, int32_t n, Atom *out, int32_t *varMap) {
  int32_t next = 0;
  auto rename = [&](int32_t t) {
    if (!isVar(t))
      return t;
    int32_t &slot = varMap[-t];
    if (slot == 0)
      slot = ++next;
    return -slot;
  };
  for (int32_t i = 0; i < n; ++i) {
    out[i].p = in[i].p;
    out[i].a = rename(in[i].a);
    out[i].b = rename(in[i].b);
  }
  for (int32_t i = 0; i < n; ++i) { // leave the map all zero again
    if (isVar(in[i].a))
      varMap[-in[i].a] = 0;
    if (isVar(in[i].b))
      varMap[-in[i].b] = 0;
  }
}

void initialState(const Triple &candidate, int32_t A, Atom *out) {
  out[0] = {candidate.r, candidate.h, candidate.t};
  std::fill(out + 1, out + A, kPadAtom);
}

uint64_t DerivedSet::bytesFor(const ShapeParams &shape) {
  const uint64_t S = static_cast<uint64_t>(std::max(shape.S, 1));
  const uint64_t A = static_cast<uint64_t>(std::max(shape.A, 1));
  return saturatingAdd(
      saturatingAdd(saturatingBytes(S * A, sizeof(Atom)), // S, A < 2^31
                    saturatingBytes(S, sizeof(int32_t))), // origins
      saturatingBytes(roundUpPow2(2 * S), sizeof(int32_t) + sizeof(uint32_t)));
}

DerivedSet::DerivedSet(const KnowledgeBase &kb, const ShapeParams &shape)
    : A_(shape.A), S_(shape.S), truePred_(kb.truePred()),
      falsePred_(kb.falsePred()) {
  if (A_ < 1 || S_ < 1)
    fail("shape: A = {} and S = {} must both be at least 1", A_, S_);
  states_.assign(static_cast<size_t>(S_) * A_, kPadAtom);
  origins_.assign(static_cast<size_t>(S_), kNoOrigin);
  // A yielded list has at most max(A - 1 + maxRuleBody, A) atoms before the
  // length check; variables: 2A of G plus those of one rule.
  work_.assign(A_ + std::max(kb.maxRuleBody, 1), kPadAtom);
  const size_t maxVarId = 2 * static_cast<size_t>(A_) + kb.maxRuleVars + 1;
  varMap_.assign(maxVarId, 0);
  bind_.assign(maxVarId, kUnbound);
  const uint64_t capacity = roundUpPow2(2 * static_cast<uint64_t>(S_));
  slots_.assign(capacity, 0);
  stamps_.assign(capacity, 0);
  mask_ = static_cast<uint32_t>(capacity - 1); // capacity <= 2^32
}

namespace {

/// derive() state for one call: appends canonical states to `out` with
/// dedupe, reports when S distinct states are collected.
class Collector {
public:
  Collector(DerivedSet &out, Atom *states, int32_t *origins, int32_t A,
            int32_t S, int32_t *varMap, int32_t *slots, uint32_t *stamps,
            uint32_t epoch, uint32_t mask)
      : out_(out), states_(states), origins_(origins), A_(A), S_(S),
        varMap_(varMap), slots_(slots), stamps_(stamps), epoch_(epoch),
        mask_(mask) {}

  bool full() const { return out_.count == S_; }

  /// §3 steps 3-4 for a non-empty list of n <= A atoms: canonicalize into
  /// the next free state and keep it unless an equal state came first;
  /// `origin` is the clause that yielded it (DerivedSet::origins_).
  void add(const Atom *atoms, int32_t n, int32_t origin) {
    Atom *dst = states_ + static_cast<size_t>(out_.count) * A_;
    canonicalize(atoms, n, dst, varMap_);
    std::fill(dst + n, dst + A_, kPadAtom);
    const size_t bytes = sizeof(Atom) * A_;
    uint32_t h = static_cast<uint32_t>(XXH3_64bits(dst, bytes)) & mask_;
    while (stamps_[h] == epoch_) {
      const Atom *other = states_ + static_cast<size_t>(slots_[h]) * A_;
      if (std::memcmp(other, dst, bytes) == 0)
        return; // duplicate: keep first
      h = (h + 1) & mask_;
    }
    stamps_[h] = epoch_;
    origins_[out_.count] = origin;
    slots_[h] = out_.count++;
  }

private:
  DerivedSet &out_;
  Atom *states_;
  int32_t *origins_;
  int32_t A_, S_;
  int32_t *varMap_;
  int32_t *slots_;
  uint32_t *stamps_;
  uint32_t epoch_, mask_;
};

/// Calls fn(fact) for each fact (p, s', o') matching (s, o) as §3 step 1
/// unifies them, in ascending (s', o') order, skipping c; stops when fn
/// returns false.
template <typename Fn>
void forEachMatchingFact(const KnowledgeBase &kb, int32_t p, int32_t s,
                         int32_t o, const Triple &c, Fn fn) {
  const int64_t E = kb.numEntities;
  const Atom *facts = kb.facts.data();
  if (!isVar(s) && !isVar(o)) { // both bound: at most one fact
    int32_t i = kb.findFact(p, s, o);
    if (i >= 0 && !isCandidateFact(facts[i], c))
      fn(facts[i]);
  } else if (!isVar(s)) { // (p, s) range, ascending o'
    const int64_t key = p * E + s;
    for (int32_t i = kb.psOffsets[key], e = kb.psOffsets[key + 1]; i < e; ++i)
      if (!isCandidateFact(facts[i], c) && !fn(facts[i]))
        return;
  } else if (!isVar(o)) { // (p, o) range, ascending s'
    const int64_t key = p * E + o;
    for (int32_t i = kb.poOffsets[key], e = kb.poOffsets[key + 1]; i < e; ++i) {
      const Atom &f = facts[kb.poFacts[i]];
      if (!isCandidateFact(f, c) && !fn(f))
        return;
    }
  } else { // both variables: every fact of p; p(V,V) only where s' = o'
    const bool same = s == o;
    for (int32_t i = kb.predOffsets[p], e = kb.predOffsets[p + 1]; i < e; ++i) {
      const Atom &f = facts[i];
      if (same && f.a != f.b)
        continue;
      if (!isCandidateFact(f, c) && !fn(f))
        return;
    }
  }
}

int32_t walk(const int32_t *bind, int32_t t) {
  while (isVar(t) && bind[-t] != kUnbound)
    t = bind[-t];
  return t;
}

bool unify(int32_t *bind, int32_t x, int32_t y) {
  x = walk(bind, x);
  y = walk(bind, y);
  if (x == y)
    return true;
  if (isVar(x)) {
    bind[-x] = y;
    return true;
  }
  if (isVar(y)) {
    bind[-y] = x;
    return true;
  }
  return false; // two different constants
}

void writeTerminal(Atom *states, int32_t *origins, int32_t origin, int32_t A,
                   int32_t pred, int32_t &count) {
  states[0] = {pred, 0, 0};
  origins[0] = origin;
  std::fill(states + 1, states + A, kPadAtom);
  count = 1;
}

} // namespace

void derive(const KnowledgeBase &kb, const Atom *goals, const Triple &candidate,
            const ShapeParams &shape, DerivedSet &out) {
  const int32_t A = out.A_, S = out.S_;
  if (shape.A != A || shape.S != S)
    fail("derive: DerivedSet built for A = {}, S = {} but shape has A = {}, "
         "S = {}",
         A, S, shape.A, shape.S);
  const int32_t n = stateSize(goals, A);
  const Atom g1 = goals[0];
  if (n == 0 || g1.p < 0 || g1.p >= kb.numRelations)
    fail("derive: called on a state whose first atom has predicate {} (not a "
         "goal of a non-terminal state)",
         g1.p);
  if (g1.a >= kb.numEntities || g1.b >= kb.numEntities) // they index the CSRs
    fail("derive: first goal ({}, {}, {}) has a constant >= E = {}", g1.p, g1.a,
         g1.b, kb.numEntities);
  const int32_t m = numVars(goals, n);
  if (m > 2 * A)
    fail("derive: state has variable V{} but a canonical state of {} atoms "
         "has at most {} variables",
         m, A, 2 * A);
  Atom *states = out.states_.data();
  out.count = 0;
  if (++out.epoch_ == 0) { // stamps wrapped: clear them once
    std::fill(out.stamps_.begin(), out.stamps_.end(), 0u);
    out.epoch_ = 1;
  }
  int32_t *origins = out.origins_.data();
  Collector collect(out, states, origins, A, S, out.varMap_.data(),
                    out.slots_.data(), out.stamps_.data(), out.epoch_,
                    out.mask_);
  Atom *work = out.work_.data();

  // Step 1: fact steps.
  if (n == 1) {
    // First shortcut (see the file header): any matching fact gives [TRUE].
    int32_t first = -1;
    forEachMatchingFact(kb, g1.p, g1.a, g1.b, candidate, [&](const Atom &f) {
      first = static_cast<int32_t>(&f - kb.facts.data());
      return false;
    });
    if (first >= 0) {
      writeTerminal(states, origins, first, A, kb.truePred(), out.count);
      return;
    }
  } else {
    const int32_t sv = isVar(g1.a) ? g1.a : 0, ov = isVar(g1.b) ? g1.b : 0;
    forEachMatchingFact(kb, g1.p, g1.a, g1.b, candidate, [&](const Atom &f) {
      auto subst = [&](int32_t t) {
        if (t == sv && sv != 0)
          return f.a;
        if (t == ov && ov != 0)
          return f.b;
        return t;
      };
      for (int32_t i = 1; i < n; ++i)
        work[i - 1] = {goals[i].p, subst(goals[i].a), subst(goals[i].b)};
      collect.add(work, n - 1, static_cast<int32_t>(&f - kb.facts.data()));
      return !collect.full(); // second shortcut: stop at S distinct
    });
  }

  // Step 2: rule steps, rules for p in file order.
  int32_t *bind = out.bind_.data();
  for (int32_t k = kb.rulePredOffsets[g1.p], ke = kb.rulePredOffsets[g1.p + 1];
       k < ke && !collect.full(); ++k) {
    const int32_t r = kb.ruleIdsByPred[k];
    const int32_t b0 = kb.ruleBodyOffsets[r], b1 = kb.ruleBodyOffsets[r + 1];
    const int32_t len = (b1 - b0) + (n - 1);
    if (len > A)
      continue; // step 3: longer than A atoms, dropped
    const int32_t nv = kb.ruleNumVars[r];
    // Rename apart: rule variable -j becomes -(m + j).
    auto rename = [m](int32_t t) { return isVar(t) ? t - m : t; };
    std::fill(bind + 1, bind + m + nv + 1, kUnbound);
    const Atom &head = kb.ruleHeads[r];
    if (!unify(bind, rename(head.a), g1.a) ||
        !unify(bind, rename(head.b), g1.b))
      continue;
    auto apply = [&](int32_t t) { return walk(bind, t); };
    int32_t w = 0;
    for (int32_t i = b0; i < b1; ++i) {
      const Atom &atom = kb.ruleBody[i];
      work[w++] = {atom.p, apply(rename(atom.a)), apply(rename(atom.b))};
    }
    for (int32_t i = 1; i < n; ++i)
      work[w++] = {goals[i].p, apply(goals[i].a), apply(goals[i].b)};
    collect.add(work, w, -(r + 1));
  }

  // Step 7: nothing derived.
  if (out.count == 0)
    writeTerminal(states, origins, DerivedSet::kNoOrigin, A, kb.falsePred(),
                  out.count);
}

} // namespace proofc
