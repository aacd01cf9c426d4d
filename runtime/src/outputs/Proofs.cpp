//===- Proofs.cpp - Derivations replayed from the recorded actions --------===//
//
// The replay runs spec §5 with the recorded action in place of the policy:
// derive(G, c), check the index, take the state, repeat. The clause of the
// chosen state is the one derive() recorded as its origin (the first of
// spec §3's steps that yielded it); the step is then resolved here once
// more, explicitly (rename apart, unify, apply), and the resolvent, made
// canonical, must be the engine's state: the proof printed is checked
// against the engine that the backends are checked against.
//
//===----------------------------------------------------------------------===//
#include "outputs/Proofs.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>

namespace proofc {
namespace {

constexpr int32_t kUnbound = std::numeric_limits<int32_t>::min();

/// Bindings of variables 1..n (index k for Vk).
class Unifier {
public:
  explicit Unifier(int32_t numVars) : bind_(numVars + 1, kUnbound) {}

  int32_t walk(int32_t t) const {
    while (isVar(t) && bind_[-t] != kUnbound)
      t = bind_[-t];
    return t;
  }
  bool unify(int32_t x, int32_t y) {
    x = walk(x);
    y = walk(y);
    if (x == y)
      return true;
    if (isVar(x)) {
      bind_[-x] = y;
      return true;
    }
    if (isVar(y)) {
      bind_[-y] = x;
      return true;
    }
    return false;
  }
  Atom apply(const Atom &a) const { return {a.p, walk(a.a), walk(a.b)}; }
  /// Every bound variable with its final term, by variable number.
  std::vector<std::pair<int32_t, int32_t>> substitution() const {
    std::vector<std::pair<int32_t, int32_t>> out;
    for (int32_t k = 1; k < static_cast<int32_t>(bind_.size()); ++k)
      if (bind_[k] != kUnbound)
        out.emplace_back(k, walk(-k));
    return out;
  }

private:
  std::vector<int32_t> bind_;
};

int32_t maxVar(const std::vector<Atom> &atoms) {
  int32_t m = 0;
  for (const Atom &a : atoms)
    m = std::max({m, -a.a, -a.b});
  return m;
}

} // namespace

Proof replayProof(const KnowledgeBase &kb, const Dataset &dataset,
                  const ShapeParams &shape, const CandidateSet &set,
                  int64_t index, const Outcome &outcome,
                  const ActionTrace &trace, DerivedSet &scratch,
                  int64_t firstCandidate) {
  const Candidate &cand = set.candidates.at(static_cast<size_t>(index));
  const Triple &c = cand.triple;
  auto where = [&] {
    return fmt::format("proofs: candidate {} ({} {} {}; query {}, {})",
                       firstCandidate + index,
                       escapeForMessage(dataset.entities.name(c.h)),
                       escapeForMessage(dataset.relations.name(c.r)),
                       escapeForMessage(dataset.entities.name(c.t)), cand.query,
                       modeName(cand.mode));
  };
  const int32_t A = shape.A, D = shape.D;
  if (outcome.status != ProofStatus::Proved)
    fail("{}: is {}, only a proved candidate has a proof", where(),
         statusName(outcome.status));
  if (trace.D != D ||
      trace.actions.size() < static_cast<size_t>(index + 1) * size_t(D))
    fail("{}: no recorded actions (the trace holds {} for D = {})", where(),
         trace.actions.size(), trace.D);
  if (outcome.depth < 1 || outcome.depth > D)
    fail("{}: depth {} is outside 1..D = {}", where(), outcome.depth, D);
  const int32_t *actions = trace.actions.data() + index * D;

  Proof proof;
  proof.candidate = firstCandidate + index;
  std::vector<Atom> state(A), canon(A);
  std::vector<int32_t> varMap;
  initialState(c, A, state.data());
  for (int32_t s = 0; s < outcome.depth; ++s) {
    derive(kb, state.data(), c, shape, scratch);
    const int32_t action = actions[s];
    if (action < 0 || action >= scratch.count)
      fail("{}: step {}: the recorded action {} is out of range (derive "
           "listed {} state{})",
           where(), s + 1, action, scratch.count,
           scratch.count == 1 ? "" : "s");
    if (scratch.isFalse())
      fail("{}: step {}: the replay fails (no clause resolves the first "
           "goal), the backend said PROVED at depth {}",
           where(), s + 1, outcome.depth);
    const bool last = s + 1 == outcome.depth;
    if (scratch.isTrue() != last)
      fail("{}: step {}: the replay {}, the backend said PROVED at depth {}",
           where(), s + 1,
           scratch.isTrue() ? "is proved already" : "is not proved yet",
           outcome.depth);

    ProofStep step;
    const int32_t n = stateSize(state.data(), A);
    step.goals.assign(state.begin(), state.begin() + n);
    step.action = action;
    step.derived = scratch.count;
    const int32_t m = maxVar(step.goals);
    const Atom g1 = step.goals[0];
    const int32_t clause = scratch.clauseIndex(action);
    bool unified;
    std::vector<Atom> body;
    int32_t numVars = m;
    if (scratch.fromRule(action)) {
      const Rule &rule = dataset.rules.at(static_cast<size_t>(clause));
      auto rename = [m](int32_t t) { return isVar(t) ? t - m : t; };
      step.rule = clause;
      step.ruleHead = {rule.head.p, rename(rule.head.a), rename(rule.head.b)};
      for (const Atom &a : rule.body)
        step.ruleBody.push_back({a.p, rename(a.a), rename(a.b)});
      numVars = std::max(m, maxVar(step.ruleBody));
      numVars = std::max({numVars, -step.ruleHead.a, -step.ruleHead.b});
      body = step.ruleBody;
    } else {
      step.fact = clause;
    }
    Unifier u(numVars);
    if (step.rule >= 0) {
      unified = step.ruleHead.p == g1.p && u.unify(step.ruleHead.a, g1.a) &&
                u.unify(step.ruleHead.b, g1.b);
    } else {
      const Atom &f = kb.facts.at(static_cast<size_t>(clause));
      unified = f.p == g1.p && !(f.p == c.r && f.a == c.h && f.b == c.t) &&
                u.unify(g1.a, f.a) && u.unify(g1.b, f.b);
    }
    if (!unified)
      fail("{}: step {}: the engine's clause does not resolve the first goal "
           "(internal error)",
           where(), s + 1);
    step.substitution = u.substitution();
    for (const Atom &a : body)
      step.resolvent.push_back(u.apply(a));
    for (int32_t i = 1; i < n; ++i)
      step.resolvent.push_back(u.apply(step.goals[i]));

    // The resolvent, canonical, is the engine's state (empty: TRUE).
    const int32_t r = static_cast<int32_t>(step.resolvent.size());
    bool same;
    if (r == 0) {
      same = last;
    } else {
      varMap.assign(static_cast<size_t>(maxVar(step.resolvent)) + 1, 0);
      canon.assign(A, kPadAtom);
      same = r <= A;
      if (same) {
        canonicalize(step.resolvent.data(), r, canon.data(), varMap.data());
        same = std::equal(canon.begin(), canon.end(), scratch.state(action));
      }
    }
    if (!same)
      fail("{}: step {}: the resolvent is not the engine's state {} "
           "(internal error)",
           where(), s + 1, action);
    std::copy_n(scratch.state(action), A, state.begin());
    proof.steps.push_back(std::move(step));
  }
  return proof;
}

} // namespace proofc
