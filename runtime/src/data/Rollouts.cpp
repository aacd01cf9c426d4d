//===- Rollouts.cpp - The rollout request's checks, Backend's default -----===//
//
// What every backend may assume of a request (Rollouts.h), checked once
// before any backend sees it, and the answer of a backend without
// rollouts.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Rollouts.h"

#include "support/Fail.h"

#include <cmath>
#include <limits>

namespace proofc {

void checkRolloutRequest(const RolloutRequest &request,
                         const ProgramSpec &program, const Dataset &dataset) {
  const int64_t n = static_cast<int64_t>(request.triples.size());
  if (static_cast<int64_t>(request.positive.size()) != n)
    fail("rollouts: positive has {} flags for {} triples",
         request.positive.size(), n);
  if (request.episodesPerTriple < 1)
    fail("rollouts: episodes per triple must be at least 1, got {}",
         request.episodesPerTriple);
  const int64_t episodes = n * int64_t{request.episodesPerTriple};
  if (n > std::numeric_limits<int32_t>::max() ||
      episodes > std::numeric_limits<int32_t>::max())
    fail("rollouts: {} triples x {} episodes is more than 2^31 - 1 episodes", n,
         request.episodesPerTriple);
  if (request.episodeBase >
      std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(episodes))
    fail("rollouts: episode base {} + {} episodes passes 2^64",
         request.episodeBase, episodes);
  if (request.mode == SelectMode::Sampled) {
    if (!(request.temperature > 0.f) || !std::isfinite(request.temperature))
      fail("rollouts: temperature must be positive and finite, got {}",
           request.temperature);
    if (!program.policy.sampled)
      fail("rollouts: program '{}' selects greedily only (its eval.select "
           "has no 'sampled' mode)",
           program.name);
  }
  const int32_t E = dataset.numEntities(), R = dataset.numRelations();
  for (int64_t i = 0; i < n; ++i) {
    const Triple &t = request.triples[i];
    if (t.h < 0 || t.h >= E || t.t < 0 || t.t >= E || t.r < 0 || t.r >= R)
      fail("rollouts: triple {} ({}, {}, {}) has an id out of range (E = {}, "
           "R = {})",
           i, t.h, t.r, t.t, E, R);
  }
}

Trajectories Backend::rollouts(const RolloutInputs &inputs) {
  (void)inputs;
  fail("rollouts are not implemented on {} yet", name());
}

} // namespace proofc
