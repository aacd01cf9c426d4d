//===- PykeenMetrics.cpp - PyKEEN's full rank-based metric set ------------===//
//
// Each metric follows pykeen.metrics.ranking (1.11, unweighted), with m the
// pairs, r_i their ranks and N_i their list sizes:
//   base (every rank type): count m; arithmetic, geometric, harmonic mean
//   and median rank and their reciprocals; the ranks' population variance
//   and standard deviation; their median absolute deviation scaled to the
//   normal (scipy's median_abs_deviation(scale="normal"), divided by
//   Phi^-1(3/4)); Hits@k.
//   derived (realistic only), from a base metric M with E[M] and V[M] under
//   r_i ~ U{1..N_i} independent:
//     adjusted_arithmetic_mean_rank   M / E[M]                 (M = MR)
//     adjusted_*_index, adjusted_*    (M - E[M]) / (1 - E[M])   (MR, GMR,
//                                                               MRR, Hits@k)
//     z_*                             ±(M - E[M]) / sqrt(V[M])  (+ for MRR
//                                     and Hits@k, - for MR and GMR: larger
//                                     is better)
//   E[MR] = mean (N_i+1)/2,  V[MR] = mean((N_i^2-1)/12) / m
//   E[MRR] = mean H(N_i)/N_i, V[MRR] = mean(max(0, (N_i H2(N_i) - H(N_i)^2)
//            / N_i^2)) / m, H and H2 the harmonic numbers of order 1 and 2
//   E[H@k] = mean p_i, V[H@k] = mean(p_i (1-p_i)) / m, p_i = min(k/N_i, 1)
//   E[GMR] = prod_i E[r_i^(1/m)], E[r^a] = (1/N) sum_{j<=N} j^a,
//   V[GMR] = prod_i E[r_i^(2/m)] - E[GMR]^2.
// The derived metrics are written as PyKEEN's affine maps (scale * M +
// offset) so that they round as PyKEEN's do.
//
//===----------------------------------------------------------------------===//
#include "outputs/PykeenMetrics.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace proofc {

namespace {

/// PyKEEN's EPSILON: its _safe_divide clamps a smaller denominator; such a
/// metric is left empty here instead.
constexpr double kEpsilon = 1.0e-12;
/// scipy.special.ndtri(0.75): median_abs_deviation's scale "normal".
constexpr double kNormalMadScale = 0.6744897501960817;

double meanOf(const std::vector<double> &values) {
  double sum = 0;
  for (double v : values)
    sum += v;
  return sum / static_cast<double>(values.size());
}

/// numpy's median: the middle value, or the mean of the two middle ones.
double medianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/// scale * M + offset for the affine map that sends E[M] to 0 and 1 to 1
/// (PyKEEN's ReindexedMetric); empty where 1 - E[M] is below kEpsilon.
std::optional<double> reindexed(double metric, double expected) {
  if (std::fabs(1.0 - expected) < kEpsilon)
    return std::nullopt;
  const double scale = 1.0 / (1.0 - expected);
  const double offset = -scale * expected;
  return scale * metric + offset;
}

/// PyKEEN's ZMetric: (M - E[M]) / sqrt(V[M]), negated for a metric where
/// smaller is better; empty where the standard deviation is below kEpsilon
/// (or the variance is not positive).
std::optional<double> zScore(double metric, double expected, double variance,
                             bool increasing) {
  if (!(variance > 0))
    return std::nullopt;
  const double deviation = std::sqrt(variance);
  if (deviation < kEpsilon)
    return std::nullopt;
  double scale = 1.0 / deviation;
  if (!increasing)
    scale = -scale;
  const double offset = -scale * expected;
  return scale * metric + offset;
}

/// log E[r^power] for r ~ U{1..N}, for every N = 1..maxN (index N - 1).
/// In double, as PyKEEN (numpy float64) does: the long double powl of an
/// earlier version took 0.4 ms a call for kinship's lists, a third of the
/// in-loop call's overhead.
std::vector<double> logPowerMeans(int64_t maxN, double power) {
  std::vector<double> out(static_cast<size_t>(maxN));
  double sum = 0;
  for (int64_t j = 1; j <= maxN; ++j) {
    const double logJ = std::log(static_cast<double>(j));
    sum += std::exp(power * logJ);
    out[static_cast<size_t>(j - 1)] = std::log(sum) - logJ;
  }
  return out;
}

} // namespace

PykeenValues pykeenValues(const std::vector<double> &ranks,
                          const std::vector<int64_t> &listSizes,
                          const std::vector<int64_t> &hits, bool realistic) {
  PykeenValues out;
  auto hitsKey = [](const char *prefix, int64_t k) {
    return std::string(prefix) + std::to_string(k);
  };
  const char *baseKeys[] = {"count",
                            "arithmetic_mean_rank",
                            "geometric_mean_rank",
                            "harmonic_mean_rank",
                            "median_rank",
                            "inverse_arithmetic_mean_rank",
                            "inverse_geometric_mean_rank",
                            "inverse_harmonic_mean_rank",
                            "inverse_median_rank",
                            "median_absolute_deviation",
                            "standard_deviation",
                            "variance"};
  const char *derivedKeys[] = {
      "adjusted_arithmetic_mean_rank", "adjusted_arithmetic_mean_rank_index",
      "z_arithmetic_mean_rank",        "adjusted_geometric_mean_rank_index",
      "z_geometric_mean_rank",         "adjusted_inverse_harmonic_mean_rank",
      "z_inverse_harmonic_mean_rank"};
  for (const char *key : baseKeys)
    out[key] = std::nullopt;
  for (int64_t k : hits)
    out[hitsKey("hits_at_", k)] = std::nullopt;
  if (realistic) {
    for (const char *key : derivedKeys)
      out[key] = std::nullopt;
    for (int64_t k : hits) {
      out[hitsKey("adjusted_hits_at_", k)] = std::nullopt;
      out[hitsKey("z_hits_at_", k)] = std::nullopt;
    }
  }
  if (ranks.empty())
    return out;

  const size_t count = ranks.size();
  const double m = static_cast<double>(count);
  // Base metrics.
  const double mr = meanOf(ranks);
  double logSum = 0, reciprocalSum = 0, squares = 0;
  for (double r : ranks) {
    logSum += std::log(r);
    reciprocalSum += 1.0 / r;
    squares += (r - mr) * (r - mr);
  }
  const double gmr = std::exp(logSum / m);
  const double mrr = reciprocalSum / m;
  const double median = medianOf(ranks);
  std::vector<double> deviations;
  deviations.reserve(count);
  for (double r : ranks)
    deviations.push_back(std::fabs(r - median));
  const double variance = squares / m;
  out["count"] = m;
  out["arithmetic_mean_rank"] = mr;
  out["geometric_mean_rank"] = gmr;
  out["harmonic_mean_rank"] = 1.0 / mrr;
  out["median_rank"] = median;
  out["inverse_arithmetic_mean_rank"] = 1.0 / mr;
  out["inverse_geometric_mean_rank"] = 1.0 / gmr;
  out["inverse_harmonic_mean_rank"] = mrr;
  out["inverse_median_rank"] = 1.0 / median;
  out["median_absolute_deviation"] = medianOf(deviations) / kNormalMadScale;
  out["standard_deviation"] = std::sqrt(variance);
  out["variance"] = variance;
  std::vector<double> hitsAt;
  for (int64_t k : hits) {
    int64_t within = 0;
    for (double r : ranks)
      within += r <= static_cast<double>(k);
    hitsAt.push_back(static_cast<double>(within) / m);
    out[hitsKey("hits_at_", k)] = hitsAt.back();
  }
  if (!realistic)
    return out;

  // Expectations and variances under uniformly random ranks.
  int64_t maxN = 1;
  for (int64_t n : listSizes)
    maxN = std::max(maxN, n);
  std::vector<double> harmonic(static_cast<size_t>(maxN)),
      harmonic2(static_cast<size_t>(maxN));
  double h = 0, h2 = 0;
  for (int64_t j = 1; j <= maxN; ++j) {
    const double x = static_cast<double>(j);
    h += 1.0 / x;
    h2 += 1.0 / (x * x);
    harmonic[static_cast<size_t>(j - 1)] = h;
    harmonic2[static_cast<size_t>(j - 1)] = h2;
  }
  const std::vector<double> logRoot = logPowerMeans(maxN, 1.0 / m);
  const std::vector<double> logRoot2 = logPowerMeans(maxN, 2.0 / m);

  double expectedMr = 0, varianceMr = 0, expectedMrr = 0, varianceMrr = 0;
  double logExpectedGmr = 0, logSecondMomentGmr = 0;
  std::vector<double> expectedHits(hits.size(), 0),
      varianceHits(hits.size(), 0);
  for (size_t i = 0; i < count; ++i) {
    const int64_t nInt = std::max<int64_t>(1, listSizes.at(i));
    const size_t at = static_cast<size_t>(nInt - 1);
    const double n = static_cast<double>(nInt);
    expectedMr += 0.5 * (n + 1);
    varianceMr += (n * n - 1) / 12.0;
    expectedMrr += harmonic[at] / n;
    varianceMrr += std::max(
        (n * harmonic2[at] - harmonic[at] * harmonic[at]) / (n * n), 0.0);
    // PyKEEN's variance: prod(V[x_i] + E[x_i]^2) - prod(E[x_i])^2, with
    // V[x_i] = E[x_i^2] - E[x_i]^2.
    const double e = std::exp(logRoot[at]);
    const double individualVariance = std::exp(logRoot2[at]) - e * e;
    logExpectedGmr += logRoot[at];
    logSecondMomentGmr += std::log(std::fabs(individualVariance + e * e));
    for (size_t k = 0; k < hits.size(); ++k) {
      const double p = std::min(static_cast<double>(hits[k]) / n, 1.0);
      expectedHits[k] += p;
      varianceHits[k] += p * (1 - p);
    }
  }
  expectedMr /= m;
  varianceMr = varianceMr / m / m;
  expectedMrr /= m;
  varianceMrr = varianceMrr / m / m;
  const double expectedGmr = std::exp(logExpectedGmr);
  const double varianceGmr =
      std::exp(logSecondMomentGmr) - expectedGmr * expectedGmr;

  out["adjusted_arithmetic_mean_rank"] = mr * (1.0 / expectedMr);
  out["adjusted_arithmetic_mean_rank_index"] = reindexed(mr, expectedMr);
  out["z_arithmetic_mean_rank"] =
      zScore(mr, expectedMr, varianceMr, /*increasing=*/false);
  out["adjusted_geometric_mean_rank_index"] = reindexed(gmr, expectedGmr);
  out["z_geometric_mean_rank"] =
      zScore(gmr, expectedGmr, varianceGmr, /*increasing=*/false);
  out["adjusted_inverse_harmonic_mean_rank"] = reindexed(mrr, expectedMrr);
  out["z_inverse_harmonic_mean_rank"] =
      zScore(mrr, expectedMrr, varianceMrr, /*increasing=*/true);
  for (size_t k = 0; k < hits.size(); ++k) {
    const double e = expectedHits[k] / m;
    const double v = varianceHits[k] / m / m;
    out[hitsKey("adjusted_hits_at_", hits[k])] = reindexed(hitsAt[k], e);
    out[hitsKey("z_hits_at_", hits[k])] =
        zScore(hitsAt[k], e, v, /*increasing=*/true);
  }
  return out;
}

PykeenValues pykeenFlatMetrics(const std::vector<PairRanks> &pairs,
                               const std::vector<int64_t> &hits) {
  PykeenValues out;
  for (Side side : kSides)
    for (RankType type : kRankTypes) {
      std::vector<double> ranks;
      std::vector<int64_t> listSizes;
      for (const PairRanks &p : pairs) {
        if (side != Side::Both &&
            (side == Side::Head) != (p.mode == Mode::Head))
          continue;
        ranks.push_back(p.rank[static_cast<int>(type)]);
        listSizes.push_back(p.listSize);
      }
      const std::string prefix =
          std::string(sideName(side)) + "." + rankTypeName(type) + ".";
      for (auto &[key, value] :
           pykeenValues(ranks, listSizes, hits, type == RankType::Realistic))
        out[prefix + key] = value;
    }
  return out;
}

} // namespace proofc
