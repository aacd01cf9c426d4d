//===- KnowledgeBase.h - Flat fact and rule index for the engine -*- C++
//-*-===//
//
// The facts F and the Horn rules of a dataset as flat arrays: the host engine
// reads them directly and a GPU backend uploads them verbatim. Every index is
// a CSR over (pred, term) or pred, so the engine never searches (spec §3).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_KNOWLEDGEBASE_H
#define PROOFC_RUNTIME_KNOWLEDGEBASE_H

#include "proofc/runtime/Dataset.h"

#include <cstdint>
#include <vector>

namespace proofc {

static_assert(sizeof(Atom) == 3 * sizeof(int32_t),
              "Atom must be a plain int32 triple: arrays of it are uploaded");

struct KnowledgeBase {
  int32_t numEntities = 0;  ///< E
  int32_t numRelations = 0; ///< R; TRUE = R, FALSE = R + 1

  /// Facts as atoms (p, s, o): deduplicated, sorted by (p, s, o). [NF]
  std::vector<Atom> facts;
  /// Facts of (p, s) are facts[psOffsets[p*E+s] .. psOffsets[p*E+s+1]),
  /// ascending in o. [R*E + 1]
  std::vector<int32_t> psOffsets;
  /// Indices into facts, sorted by (p, o, s). [NF]
  std::vector<int32_t> poFacts;
  /// Facts of (p, o) are facts[poFacts[i]] for i in
  /// [poOffsets[p*E+o], poOffsets[p*E+o+1]), ascending in s. [R*E + 1]
  std::vector<int32_t> poOffsets;
  /// Facts of p are facts[predOffsets[p] .. predOffsets[p+1]). [R + 1]
  std::vector<int32_t> predOffsets;

  /// Rules in file order. Rule variables are -1, -2, ... (first occurrence,
  /// head first); constants are entity ids. [NR]
  std::vector<Atom> ruleHeads;
  /// Body atoms of rule r are ruleBody[ruleBodyOffsets[r] ..
  /// ruleBodyOffsets[r+1]). [NR + 1]
  std::vector<int32_t> ruleBodyOffsets;
  std::vector<Atom> ruleBody;
  /// Number of distinct variables of rule r. [NR]
  std::vector<int32_t> ruleNumVars;
  /// Rules whose head predicate is p, in file order:
  /// ruleIdsByPred[rulePredOffsets[p] .. rulePredOffsets[p+1]). [R + 1]
  std::vector<int32_t> rulePredOffsets;
  std::vector<int32_t> ruleIdsByPred;

  /// Largest ruleNumVars and body length (scratch sizes for the engine).
  int32_t maxRuleVars = 0;
  int32_t maxRuleBody = 0;

  int32_t numFacts() const { return static_cast<int32_t>(facts.size()); }
  int32_t numRules() const { return static_cast<int32_t>(ruleHeads.size()); }
  int32_t truePred() const { return numRelations; }
  int32_t falsePred() const { return numRelations + 1; }

  /// Index into facts of (p, s, o), or -1 when it is not a fact.
  int32_t findFact(int32_t p, int32_t s, int32_t o) const;
  bool hasFact(int32_t p, int32_t s, int32_t o) const {
    return findFact(p, s, o) >= 0;
  }
};

/// Builds the index of F = train (+ valid when `includeValid`) and the rules
/// of `ds` (spec §1.1). Throws proofc::Error for a rule that is not
/// canonically numbered or an id out of range.
KnowledgeBase buildKnowledgeBase(const Dataset &ds, bool includeValid);

} // namespace proofc

#endif // PROOFC_RUNTIME_KNOWLEDGEBASE_H
