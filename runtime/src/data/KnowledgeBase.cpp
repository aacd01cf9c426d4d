//===- KnowledgeBase.cpp - Flat fact and rule index -----------------------===//
//
// Counting sorts build the (p, s) and (p, o) CSR indices in O(NF + R*E); the
// facts themselves are sorted once by (p, s, o), which makes every (p, s)
// range contiguous and ascending in o (spec §3: fact steps go in ascending
// (s', o') order).
//
//===----------------------------------------------------------------------===//
#include "data/KnowledgeBase.h"

#include "support/Fail.h"

#include <algorithm>
#include <limits>

namespace proofc {
namespace {

bool factLess(const Atom &x, const Atom &y) {
  if (x.p != y.p)
    return x.p < y.p;
  if (x.a != y.a)
    return x.a < y.a;
  return x.b < y.b;
}

void checkTriple(const Dataset &ds, const Triple &t, const char *split) {
  if (t.h < 0 || t.h >= ds.numEntities() || t.t < 0 ||
      t.t >= ds.numEntities() || t.r < 0 || t.r >= ds.numRelations())
    fail("{}/{}.tsv: triple ({}, {}, {}) has an id out of range (E = {}, R = "
         "{})",
         ds.dir, split, t.h, t.r, t.t, ds.numEntities(), ds.numRelations());
}

/// Rule terms: variables -1..-nv, constants entity ids. Returns nv.
int32_t checkRuleAtom(const Dataset &ds, const Rule &rule, const Atom &atom) {
  if (atom.p < 0 || atom.p >= ds.numRelations())
    fail("{}/rules.txt:{}: predicate id {} out of range (R = {})", ds.dir,
         rule.line, atom.p, ds.numRelations());
  int32_t nv = 0;
  for (int32_t term : {atom.a, atom.b}) {
    if (isVar(term)) {
      if (term == std::numeric_limits<int32_t>::min())
        fail("{}/rules.txt:{}: invalid variable id", ds.dir, rule.line);
      nv = std::max(nv, -term);
    } else if (term >= ds.numEntities()) {
      fail("{}/rules.txt:{}: constant id {} out of range (E = {})", ds.dir,
           rule.line, term, ds.numEntities());
    }
  }
  return nv;
}

void buildFactIndex(const Dataset &ds, bool includeValid, KnowledgeBase &kb) {
  const int64_t E = kb.numEntities, R = kb.numRelations;
  if (R * E + 1 > std::numeric_limits<int32_t>::max())
    fail("{}: R*E = {} exceeds the int32 index range", ds.dir, R * E);

  auto add = [&](const std::vector<Triple> &split, const char *name) {
    for (const Triple &t : split) {
      checkTriple(ds, t, name);
      kb.facts.push_back({t.r, t.h, t.t});
    }
  };
  kb.facts.reserve(ds.train.size() + (includeValid ? ds.valid.size() : 0));
  add(ds.train, "train");
  if (includeValid)
    add(ds.valid, "valid");
  std::sort(kb.facts.begin(), kb.facts.end(), factLess);
  kb.facts.erase(std::unique(kb.facts.begin(), kb.facts.end()), kb.facts.end());
  const int32_t nf = kb.numFacts();

  // (p, s): the facts are already in (p, s, o) order; count and prefix-sum.
  kb.psOffsets.assign(R * E + 1, 0);
  kb.poOffsets.assign(R * E + 1, 0);
  kb.predOffsets.assign(R + 1, 0);
  for (const Atom &f : kb.facts) {
    ++kb.psOffsets[f.p * E + f.a + 1];
    ++kb.poOffsets[f.p * E + f.b + 1];
    ++kb.predOffsets[f.p + 1];
  }
  for (int64_t i = 0; i < R * E; ++i) {
    kb.psOffsets[i + 1] += kb.psOffsets[i];
    kb.poOffsets[i + 1] += kb.poOffsets[i];
  }
  for (int64_t p = 0; p < R; ++p)
    kb.predOffsets[p + 1] += kb.predOffsets[p];

  // (p, o): a stable counting sort of the (p, s, o)-sorted facts by (p, o)
  // leaves each bucket ascending in s.
  kb.poFacts.assign(nf, 0);
  std::vector<int32_t> cursor(kb.poOffsets.begin(), kb.poOffsets.end() - 1);
  for (int32_t i = 0; i < nf; ++i) {
    const Atom &f = kb.facts[i];
    kb.poFacts[cursor[f.p * E + f.b]++] = i;
  }
}

void buildRuleIndex(const Dataset &ds, KnowledgeBase &kb) {
  const int32_t R = kb.numRelations;
  const int32_t nr = static_cast<int32_t>(ds.rules.size());
  kb.ruleBodyOffsets.assign(1, 0);
  kb.rulePredOffsets.assign(R + 1, 0);
  for (const Rule &rule : ds.rules) {
    if (rule.body.empty())
      fail("{}/rules.txt:{}: rule has an empty body", ds.dir, rule.line);
    int32_t nv = checkRuleAtom(ds, rule, rule.head);
    for (const Atom &atom : rule.body)
      nv = std::max(nv, checkRuleAtom(ds, rule, atom));
    kb.ruleHeads.push_back(rule.head);
    kb.ruleBody.insert(kb.ruleBody.end(), rule.body.begin(), rule.body.end());
    kb.ruleBodyOffsets.push_back(static_cast<int32_t>(kb.ruleBody.size()));
    kb.ruleNumVars.push_back(nv);
    kb.maxRuleVars = std::max(kb.maxRuleVars, nv);
    kb.maxRuleBody =
        std::max(kb.maxRuleBody, static_cast<int32_t>(rule.body.size()));
    ++kb.rulePredOffsets[rule.head.p + 1];
  }
  for (int32_t p = 0; p < R; ++p)
    kb.rulePredOffsets[p + 1] += kb.rulePredOffsets[p];
  kb.ruleIdsByPred.assign(nr, 0);
  std::vector<int32_t> cursor(kb.rulePredOffsets.begin(),
                              kb.rulePredOffsets.end() - 1);
  for (int32_t r = 0; r < nr; ++r)
    kb.ruleIdsByPred[cursor[kb.ruleHeads[r].p]++] = r; // file order kept
}

} // namespace

int32_t KnowledgeBase::findFact(int32_t p, int32_t s, int32_t o) const {
  if (p < 0 || p >= numRelations || s < 0 || s >= numEntities || o < 0 ||
      o >= numEntities)
    return -1;
  const int64_t key = static_cast<int64_t>(p) * numEntities + s;
  auto begin = facts.begin() + psOffsets[key];
  auto end = facts.begin() + psOffsets[key + 1];
  auto it = std::lower_bound(begin, end, o,
                             [](const Atom &f, int32_t v) { return f.b < v; });
  return it != end && it->b == o ? static_cast<int32_t>(it - facts.begin())
                                 : -1;
}

KnowledgeBase buildKnowledgeBase(const Dataset &ds, bool includeValid) {
  KnowledgeBase kb;
  kb.numEntities = ds.numEntities();
  kb.numRelations = ds.numRelations();
  buildFactIndex(ds, includeValid, kb);
  buildRuleIndex(ds, kb);
  return kb;
}

} // namespace proofc
