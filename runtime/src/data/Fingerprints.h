//===- Fingerprints.h - A dataset's identity in one string ------*- C++ -*-===//
//
// The fingerprints that name what a report, a part or a weights file was
// made from: the whole dataset's, and its vocabulary's (the part weights
// depend on). Here in data/ because the weights' check (data/Weights.cpp)
// compares the vocabulary, and the report's provenance (outputs/) names
// both.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_FINGERPRINTS_H
#define PROOFC_RUNTIME_FINGERPRINTS_H

#include "proofc/runtime/Dataset.h"

#include <string>

namespace proofc {

/// "sha256:<64 hex>" over the dataset's canonical serialization (version 1,
/// docs/report-schema.md): a header line, then the entity and relation names
/// in id order, the train, valid and test triples in file order (by name),
/// and the rules in file order (predicates and constants by name, variables
/// by number), every field TAB-separated and every record a line. Names
/// never hold TAB or LF (spec §1.1), so the serialization is unambiguous:
/// renaming an entity, reordering a split or editing a rule changes it.
std::string datasetFingerprint(const Dataset &dataset);

/// "sha256:<64 hex>" over the dataset's vocabulary, the part of a dataset
/// that weights depend on (row i of an embedding table belongs to the name
/// with id i): the UTF-8 bytes of "entities\n", each entity name and "\n" in
/// id order, "relations\n", each relation name and "\n" in id order. Two
/// datasets with the same names (countries_s1, _s2 and _s3) have the same
/// fingerprint; renaming, adding or removing one name changes it (but for
/// an entity named "relations", whose vocabularies differ in E and R, which
/// the shapes catch: docs/weights.md). Weights files carry it as
/// "proofc.vocabulary"; Python code computes the same string independently,
/// so this definition is frozen.
std::string vocabularyFingerprint(const Dataset &dataset);

} // namespace proofc

#endif // PROOFC_RUNTIME_FINGERPRINTS_H
