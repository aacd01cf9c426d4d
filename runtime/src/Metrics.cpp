//===- Metrics.cpp - Realistic ranks, MRR and Hits@k ----------------------===//
//
// Spec §6: score = logp when PROVED, -inf otherwise, so unproved candidates
// tie with each other (and with an unproved positive).
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Evaluation.h"

#include "Fail.h"
#include "proofc/runtime/RankMetrics.h"

namespace proofc {

const char *statusName(ProofStatus status) {
  switch (status) {
  case ProofStatus::Proved:
    return "proved";
  case ProofStatus::Failed:
    return "failed";
  case ProofStatus::Truncated:
    return "truncated";
  }
  return "?";
}

double realisticRank(const std::vector<Outcome> &outcomes,
                     const CandidateGroup &group) {
  return groupRanks(outcomes, group)[static_cast<int>(RankType::Realistic)];
}

namespace {

void addRank(MetricSet &m, double rank) {
  m.mrr += 1.0 / rank;
  m.hits1 += rank <= 1.0;
  m.hits3 += rank <= 3.0;
  m.hits10 += rank <= 10.0;
  ++m.pairs;
}

void average(MetricSet &m) {
  if (m.pairs == 0)
    return;
  double n = static_cast<double>(m.pairs);
  m.mrr /= n;
  m.hits1 /= n;
  m.hits3 /= n;
  m.hits10 /= n;
}

} // namespace

Metrics computeMetrics(const CandidateSet &set,
                       const std::vector<Outcome> &outcomes) {
  if (outcomes.size() != set.candidates.size())
    fail("{} outcomes for {} candidates", outcomes.size(),
         set.candidates.size());
  Metrics m;
  for (const CandidateGroup &group : set.groups) {
    double rank = realisticRank(outcomes, group);
    addRank(group.mode == Mode::Head ? m.head : m.tail, rank);
    addRank(m.both, rank);
  }
  average(m.head);
  average(m.tail);
  average(m.both);

  double depthSum = 0;
  for (const Outcome &o : outcomes) {
    switch (o.status) {
    case ProofStatus::Proved:
      ++m.proved;
      break;
    case ProofStatus::Failed:
      ++m.failed;
      break;
    case ProofStatus::Truncated:
      ++m.truncated;
      break;
    }
    depthSum += o.depth;
  }
  m.candidates = static_cast<int64_t>(outcomes.size());
  m.meanDepth = outcomes.empty() ? 0.0 : depthSum / outcomes.size();
  return m;
}

} // namespace proofc
