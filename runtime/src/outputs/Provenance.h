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

#include "data/Fingerprints.h" // datasetFingerprint, vocabularyFingerprint
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
  std::string weightsXxh3;        ///< "xxh3:…" of host tensors given in memory
  std::string datasetFingerprint; ///< datasetFingerprint()
};

/// The version and commit this runtime was built from.
const char *proofcVersion();
const char *proofcGitCommit();

/// `t` as "2026-11-24T23:40:05Z".
std::string utcTimestamp(std::chrono::system_clock::time_point t);

/// This machine's host name ("unknown" when it cannot be read).
std::string hostName();

} // namespace proofc

#endif // PROOFC_RUNTIME_PROVENANCE_H
