//===- RankMetrics.h - Rank-based metrics in the PyKEEN sense ---*- C++ -*-===//
//
// Knowledge-graph papers compare with PyKEEN's rank-based evaluation, and a
// policy that proves few candidates makes ties at -inf dominate: the
// realistic rank of spec §6 alone hides that. For every (query, mode) pair
// this computes the optimistic, pessimistic and realistic rank of the
// positive among its list, and from them, per side (head, tail, both) and
// rank type: the mean rank (MR), the mean reciprocal rank (MRR), Hits@k for a
// list of k, and PyKEEN's adjusted arithmetic mean rank index (AMRI); per
// relation on request; and percentile bootstrap 95 % intervals over queries
// (deterministic: SplitMix64 from a seed). A metric over no pairs is empty
// (null in JSON), never 0. docs/report-schema.md documents the fields.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RANKMETRICS_H
#define PROOFC_RUNTIME_RANKMETRICS_H

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace proofc {

enum class RankType : uint8_t {
  Optimistic = 0,
  Pessimistic = 1,
  Realistic = 2
};
inline constexpr std::array<RankType, 3> kRankTypes = {
    RankType::Optimistic, RankType::Pessimistic, RankType::Realistic};
const char *rankTypeName(RankType type);

/// Where the metrics of a side are taken: head pairs, tail pairs, or both.
enum class Side : uint8_t { Head = 0, Tail = 1, Both = 2 };
inline constexpr std::array<Side, 3> kSides = {Side::Head, Side::Tail,
                                               Side::Both};
const char *sideName(Side side);

/// The ranks of one (query, mode) pair's positive among its list.
struct PairRanks {
  int32_t query = 0;
  Mode mode = Mode::Head;
  int32_t relation = 0;
  int64_t listSize = 0;         ///< the positive and its corruptions
  std::array<double, 3> rank{}; ///< indexed by RankType
};

/// {optimistic, pessimistic, realistic} rank of candidates[group.begin]
/// among its group (spec §6: 1 + #{score >}, 1 + #{score >=}, their mean).
std::array<double, 3> groupRanks(const std::vector<Outcome> &outcomes,
                                 const CandidateGroup &group);

/// The ranks of every group of `set` (spec §6), in group order.
std::vector<PairRanks> rankPairs(const CandidateSet &set,
                                 const std::vector<Outcome> &outcomes);
/// The same for the queries of `range`, from `outcomes` (its candidates, in
/// order) and the layout's list sizes alone: no candidate is built.
std::vector<PairRanks> rankPairs(const CandidateLayout &layout,
                                 const QueryRange &range,
                                 const std::vector<Outcome> &outcomes);

struct RankMetricOptions {
  /// The k of Hits@k, ascending; by default PyKEEN's 1, 3, 5, 10.
  std::vector<int64_t> hits = {1, 3, 5, 10};
  bool perRelation = false;
  int64_t bootstrapSamples = 0; ///< 0: no intervals
  uint64_t bootstrapSeed = 0;
};

/// One side and rank type. Every value is empty when pairs == 0; `amri`
/// also when every list has one candidate (its expectation is then 1).
struct RankSummary {
  int64_t pairs = 0;
  std::optional<double> meanRank, mrr, amri;
  std::vector<std::optional<double>> hits; ///< parallel to options.hits
};

/// [side][rank type].
using SideSummaries = std::array<std::array<RankSummary, 3>, 3>;

/// A 95 % percentile interval (empty bounds where the metric is empty in a
/// resample, e.g. a side with no pairs).
struct Interval {
  std::optional<double> low, high;
};
/// The intervals of one RankSummary's metrics.
struct SummaryIntervals {
  Interval meanRank, mrr, amri;
  std::vector<Interval> hits;
};

struct RankMetrics {
  RankMetricOptions options;
  SideSummaries overall;
  /// By relation id, when options.perRelation; only relations with a query.
  std::map<int32_t, SideSummaries> perRelation;
  /// [side][rank type], when options.bootstrapSamples > 0.
  std::array<std::array<SummaryIntervals, 3>, 3> intervals;
  int64_t bootstrapQueries = 0; ///< the queries resampled
  /// PyKEEN's whole flat rank-based set ("<side>.<rank type>.<key>" ->
  /// value, empty where undefined), runtime/src/outputs/PykeenMetrics.h.
  std::map<std::string, std::optional<double>> pykeen;
};

/// The summary of `pairs` restricted to `side`.
RankSummary summarize(const std::vector<const PairRanks *> &pairs, Side side,
                      RankType type, const std::vector<int64_t> &hits);

/// Everything above. Throws proofc::Error on options out of range (a Hits@k
/// with k < 1, a negative sample count).
RankMetrics computeRankMetrics(const CandidateSet &set,
                               const std::vector<Outcome> &outcomes,
                               const RankMetricOptions &options);
/// The same from the pairs' ranks alone (rankPairs(), in group order: the
/// query-major order the bootstrap resamples by), which is all the metrics
/// need of the outcomes: a streaming run, a shard or an MPI rank keeps these
/// instead of its outcomes.
RankMetrics computeRankMetrics(const std::vector<PairRanks> &pairs,
                               const RankMetricOptions &options);

/// What the report's "metrics" need of a run's outcomes, besides the pairs'
/// ranks: the outcome counts. Adding outcomes block by block, in any
/// grouping, gives the counts of adding them all at once.
struct OutcomeCounts {
  int64_t candidates = 0, proved = 0, failed = 0, truncated = 0;
  int64_t depthSum = 0;
  void add(const Outcome &outcome);
  void add(const std::vector<Outcome> &outcomes);
  void add(const OutcomeCounts &other);
};

/// The report's "metrics" (spec §6: the realistic rank) from the pairs'
/// ranks in group order and the counts; equal, bit for bit, to
/// computeMetrics(set, outcomes) for pairs = rankPairs(set, outcomes).
Metrics computeMetrics(const std::vector<PairRanks> &pairs,
                       const OutcomeCounts &counts);

/// The k of Hits@k as RankMetricOptions::hits holds them: sorted and
/// deduplicated; throws proofc::Error("<what>: <k> is not a positive
/// integer ...") for a k < 1.
std::vector<int64_t> normalizeHits(std::vector<int64_t> hits,
                                   const std::string &what);

} // namespace proofc

#endif // PROOFC_RUNTIME_RANKMETRICS_H
