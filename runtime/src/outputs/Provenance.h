//===- Provenance.h - What a report's numbers came from ---------*- C++ -*-===//
//
// A result a researcher publishes must say what produced it: the proofc
// build (version and git commit), the command line, when and where it ran,
// on which device, and exactly which inputs -- the weights by the SHA-256 of
// their file, the dataset by a fingerprint of everything the evaluation
// reads from it (entities, relations, the three splits, the rules). The
// report's "provenance" object (docs/report-schema.md) holds them.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_PROVENANCE_H
#define PROOFC_RUNTIME_PROVENANCE_H

#include "proofc/runtime/Dataset.h"

#include <chrono>
#include <string>
#include <vector>

namespace proofc {

struct Provenance {
  std::string version;   ///< proofc's version (the CMake project's)
  std::string gitCommit; ///< the build's commit, "-dirty" suffixed; "unknown"
  std::vector<std::string> commandLine; ///< argv as given; empty: embedded
  std::string startedUtc;               ///< ISO 8601, seconds, "Z"
  std::string host;                     ///< gethostname()
  std::string weightsSha256;            ///< of the weights file's bytes
  std::string datasetFingerprint;       ///< datasetFingerprint()
};

/// The version and commit this runtime was built from.
const char *proofcVersion();
const char *proofcGitCommit();

/// `t` as "2026-11-24T23:40:05Z".
std::string utcTimestamp(std::chrono::system_clock::time_point t);

/// This machine's host name ("unknown" when it cannot be read).
std::string hostName();

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

#endif // PROOFC_RUNTIME_PROVENANCE_H
