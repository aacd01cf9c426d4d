//===- PykeenMetrics.h - PyKEEN's full rank-based metric set ----*- C++ -*-===//
//
// Analysis code written against PyKEEN reads its RankBasedEvaluator's flat
// keys (`both.realistic.z_inverse_harmonic_mean_rank`), and the report's
// `pykeen` block should hold every one of them, not only the MR, MRR, AMRI
// and Hits@k that `rank_metrics` summarizes. This computes PyKEEN's whole
// rank-based set (pykeen.metrics.ranking, unweighted) in float64 from the
// pairs' rank arrays and list sizes: for every side and rank type the base
// metrics, and for the realistic rank only (PyKEEN's supported_rank_types)
// the adjusted indices and z-scores from their closed-form expectations and
// variances under uniformly random ranks. docs/report-schema.md lists the
// keys and the formulas.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_OUTPUTS_PYKEENMETRICS_H
#define PROOFC_OUTPUTS_PYKEENMETRICS_H

#include "proofc/runtime/RankMetrics.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace proofc {

/// PyKEEN's metric values for one side and rank type, keyed by PyKEEN's
/// metric key (`arithmetic_mean_rank`, `hits_at_10`, `z_hits_at_10`, ...).
/// Empty (null) over no pairs; a derived metric is also empty where its
/// denominator (1 - E[M], E[M] or the standard deviation) is 0, where
/// PyKEEN's _safe_divide gives a meaningless finite number.
using PykeenValues = std::map<std::string, std::optional<double>>;

/// The metrics of `ranks` (one rank type's ranks of a side's pairs) with
/// `listSizes` (each pair's candidates, the positive included: PyKEEN's
/// num_candidates), parallel. `realistic` adds the derived metrics PyKEEN
/// defines for realistic ranks only. Hits@k for every k of `hits`.
PykeenValues pykeenValues(const std::vector<double> &ranks,
                          const std::vector<int64_t> &listSizes,
                          const std::vector<int64_t> &hits, bool realistic);

/// The whole flat map: `<side>.<rank type>.<key>` for every side, rank type
/// and key of pykeenValues, from the pairs in group order.
PykeenValues pykeenFlatMetrics(const std::vector<PairRanks> &pairs,
                               const std::vector<int64_t> &hits);

} // namespace proofc

#endif // PROOFC_OUTPUTS_PYKEENMETRICS_H
