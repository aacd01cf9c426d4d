//===- Candidates.h - Queries, filtered corruptions, sampling ---*- C++ -*-===//
//
// Spec §6: the candidate list of (query, mode) is the positive followed by its
// filtered corruptions in ascending entity order, optionally sampled with the
// SplitMix64 partial Fisher-Yates of the spec.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CANDIDATES_H
#define PROOFC_RUNTIME_CANDIDATES_H

#include "proofc/runtime/Dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

/// The standard SplitMix64 generator.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t state) : state_(state) {}
  uint64_t next();

private:
  uint64_t state_;
};

enum class Mode : uint8_t { Head = 0, Tail = 1 };
const char *modeName(Mode mode);

struct Candidate {
  Triple triple;
  int32_t query; ///< index into CandidateSet::queries
  Mode mode;
  int32_t entity; ///< the entity put in the corrupted position (h or t)
};

/// One (query, mode) pair: candidates[begin] is the positive, then corruptions.
struct CandidateGroup {
  int32_t query;
  Mode mode;
  int64_t begin, end;
};

struct CandidateOptions {
  std::string split = "test";
  int64_t corruptions = 0; ///< K <= 0: all filtered corruptions
  uint64_t seed = 0;
  int64_t maxQueries = -1; ///< < 0: all
};

struct CandidateSet {
  std::vector<Triple> queries; ///< deduplicated split, first N
  std::vector<Candidate> candidates;
  std::vector<CandidateGroup> groups; ///< query-major, head before tail
};

CandidateSet buildCandidates(const Dataset &ds, const CandidateOptions &opts);

} // namespace proofc

#endif // PROOFC_RUNTIME_CANDIDATES_H
