//===- PoolRuns.cpp - A pool's backend runs and what they return ----------===//
#include "session/PoolRuns.h"

#include "support/Fail.h"
#include "support/MessageText.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace proofc {

int64_t chunkSizeFor(int64_t total, int64_t maxPool, int64_t capacity) {
  int64_t size = std::max<int64_t>(total, 1);
  if (maxPool > 0)
    size = std::min(size, maxPool);
  if (capacity > 0)
    size = std::min(size, capacity);
  return size;
}

std::string datasetNameOf(const std::string &dir) {
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/')
    trimmed.pop_back();
  return std::filesystem::path(trimmed).filename().string();
}

int64_t countFacts(const Dataset &dataset, bool includeValid) {
  std::vector<Triple> facts = dataset.train;
  if (includeValid)
    facts.insert(facts.end(), dataset.valid.begin(), dataset.valid.end());
  std::sort(facts.begin(), facts.end());
  return std::unique(facts.begin(), facts.end()) - facts.begin();
}

void checkFiniteOutcomes(const CandidateSet &pool, const Dataset &dataset,
                         const std::vector<Outcome> &outcomes, int64_t first,
                         int64_t poolOffset, const CandidateLayout *whole) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!std::isnan(outcomes[i].logp))
      continue;
    const int64_t at = first + static_cast<int64_t>(i);
    int64_t index = poolOffset + at;
    if (whole) { // at's list, then the same place in the whole one
      auto g = std::upper_bound(
          pool.groups.begin(), pool.groups.end(), at,
          [](int64_t a, const CandidateGroup &group) { return a < group.end; });
      if (g != pool.groups.end())
        index = whole->groupBegin[2 * static_cast<size_t>(g->query) +
                                  static_cast<size_t>(g->mode)] +
                (at - g->begin);
    }
    const Candidate &c = pool.candidates.at(static_cast<size_t>(at));
    const Triple &q = pool.queries.at(static_cast<size_t>(c.query));
    auto entity = [&](int32_t id) {
      return escapeForMessage(dataset.entities.name(id));
    };
    fail("non-finite logit for candidate {}: query {} ({} {} {}), mode {}, "
         "entity {} ({}); the weights make the policy overflow (check the "
         "layer norms' and linears' magnitudes)",
         index, c.query, entity(q.h),
         escapeForMessage(dataset.relations.name(q.r)), entity(q.t),
         modeName(c.mode), c.entity, entity(c.entity));
  }
}

} // namespace proofc
