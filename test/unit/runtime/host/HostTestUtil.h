//===- HostTestUtil.h - Helpers for the host-backend tests ------*- C++ -*-===//
//
// Small in-memory datasets (single-letter entity names, so ids follow the
// alphabet: a = 0, b = 1, ...), and a list-of-states view of Engine::derive
// for comparison with the reference prover.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_TEST_UNIT_HOST_HOSTTESTUTIL_H
#define PROOFC_TEST_UNIT_HOST_HOSTTESTUTIL_H

#include "data/KnowledgeBase.h"
#include "host/Engine.h"
#include "proofc/runtime/Dataset.h"
#include "reference/ReferenceProver.h"

#include <ostream>
#include <string>
#include <vector>

namespace proofc {
/// gtest printer: failures show atoms as p(a, b).
inline void PrintTo(const Atom &atom, std::ostream *os) {
  *os << atom.p << '(' << atom.a << ", " << atom.b << ')';
}
} // namespace proofc

namespace proofc::test {

/// A dataset from "h r t" facts (train), extra entity/relation names and
/// rules.txt text. Entity ids follow byte order of the names.
inline Dataset makeDataset(const std::vector<std::string> &entities,
                           const std::vector<std::string> &relations,
                           const std::vector<std::vector<std::string>> &facts,
                           const std::string &rules) {
  Dataset ds;
  ds.dir = "<memory>";
  ds.entities = Vocab(entities);
  ds.relations = Vocab(relations);
  for (const auto &f : facts)
    ds.train.push_back({ds.entities.find(f.at(0)), ds.relations.find(f.at(1)),
                        ds.entities.find(f.at(2))});
  ds.rules = parseRules(rules, "rules.txt", ds.entities, ds.relations);
  return ds;
}

/// Engine::derive on an unpadded state, returning the unpadded states.
inline std::vector<reference::State> engineDerive(const KnowledgeBase &kb,
                                                  const ShapeParams &shape,
                                                  const reference::State &goals,
                                                  const Triple &candidate) {
  std::vector<Atom> padded(shape.A, kPadAtom);
  std::copy(goals.begin(), goals.end(), padded.begin());
  DerivedSet out(kb, shape);
  derive(kb, padded.data(), candidate, shape, out);
  std::vector<reference::State> states;
  for (int32_t i = 0; i < out.count; ++i) {
    const Atom *s = out.state(i);
    states.emplace_back(s, s + stateSize(s, shape.A));
  }
  return states;
}

} // namespace proofc::test

#endif // PROOFC_TEST_UNIT_HOST_HOSTTESTUTIL_H
