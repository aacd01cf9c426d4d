//===- PoolRuns.h - A pool's backend runs and what they return --*- C++ -*-===//
//
// What the session needs around a backend run of a pool besides the
// backend: the size of the runs, the dataset's name and fact count for the
// report, and the check that every outcome is finite. Used by the session
// (Session.cpp) and by the tools' run flow (runtime/tooling/RunSession).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_POOLRUNS_H
#define PROOFC_RUNTIME_POOLRUNS_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

/// Candidates per backend run for a pool of `total`: the smaller of
/// `maxPool` and `capacity` where each is > 0, else `total` (at least 1).
int64_t chunkSizeFor(int64_t total, int64_t maxPool, int64_t capacity);

/// The last component of a dataset directory ("../data/kinship/" -> kinship).
std::string datasetNameOf(const std::string &dir);

/// |F|: the distinct facts the prover may use (spec §1.1).
int64_t countFacts(const Dataset &dataset, bool includeValid);

/// Throws proofc::Error when an outcome's log-probability is NaN: a step
/// of that candidate had a non-finite logit (every backend makes the step's
/// log-probability NaN then, and NaN stays). outcomes[i] belongs to
/// pool.candidates[first + i] (a chunk's outcomes come with the chunk's
/// first index); names the smallest such candidate as `poolOffset` + `first`
/// + i (`pool` a block: its first candidate's index in the whole pool), with
/// its query, mode and entity. `whole` (may be null): the whole pool's
/// layout when `pool` holds only a prefix of each of its lists (the shared
/// lists' SharedLists::runSet); the index is then the candidate's in the
/// whole pool by it (poolOffset unused).
void checkFiniteOutcomes(const CandidateSet &pool, const Dataset &dataset,
                         const std::vector<Outcome> &outcomes,
                         int64_t first = 0, int64_t poolOffset = 0,
                         const CandidateLayout *whole = nullptr);
} // namespace proofc

#endif // PROOFC_RUNTIME_POOLRUNS_H
