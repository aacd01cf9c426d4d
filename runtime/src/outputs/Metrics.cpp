//===- Metrics.cpp - Realistic ranks, MRR and Hits@k ----------------------===//
//
// Spec §6: score = logp when PROVED, -inf otherwise, so unproved candidates
// tie with each other (and with an unproved positive).
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Evaluation.h"

#include "proofc/runtime/RankMetrics.h"
#include "support/Fail.h"

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

void OutcomeCounts::add(const Outcome &o) {
  // Without a branch (the statuses of a pool alternate unpredictably).
  proved += o.status == ProofStatus::Proved;
  failed += o.status == ProofStatus::Failed;
  truncated += o.status == ProofStatus::Truncated;
  depthSum += o.depth;
  ++candidates;
}

void OutcomeCounts::add(const std::vector<Outcome> &outcomes) {
  // Counted apart, then added: the sums stay in registers (this object's
  // fields could alias the outcomes, as far as the compiler knows).
  OutcomeCounts counts;
  for (const Outcome &o : outcomes)
    counts.add(o);
  add(counts);
}

void OutcomeCounts::add(const OutcomeCounts &other) {
  candidates += other.candidates;
  proved += other.proved;
  failed += other.failed;
  truncated += other.truncated;
  depthSum += other.depthSum;
}

Metrics computeMetrics(const std::vector<PairRanks> &pairs,
                       const OutcomeCounts &counts) {
  Metrics m;
  for (const PairRanks &p : pairs) {
    const double rank = p.rank[static_cast<int>(RankType::Realistic)];
    addRank(p.mode == Mode::Head ? m.head : m.tail, rank);
    addRank(m.both, rank);
  }
  average(m.head);
  average(m.tail);
  average(m.both);
  m.candidates = counts.candidates;
  m.proved = counts.proved;
  m.failed = counts.failed;
  m.truncated = counts.truncated;
  // Depths are at most D per candidate: the int64 sum is exact, and so is
  // its conversion below 2^53 candidates x D.
  m.meanDepth = counts.candidates == 0
                    ? 0.0
                    : static_cast<double>(counts.depthSum) /
                          static_cast<double>(counts.candidates);
  return m;
}

Metrics computeMetrics(const CandidateSet &set,
                       const std::vector<Outcome> &outcomes) {
  OutcomeCounts counts;
  counts.add(outcomes);
  return computeMetrics(rankPairs(set, outcomes), counts);
}

} // namespace proofc
