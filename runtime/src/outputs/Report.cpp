//===- Report.cpp - JSON run report and per-candidate outcomes TSV --------===//
#include "outputs/Report.h"

#include "outputs/ProofFormats.h"
#include "proofc/runtime/RankMetrics.h"
#include "support/Fail.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace proofc {

namespace {

using json = nlohmann::json;

json metricSetJson(const MetricSet &m) {
  return {{"mrr", m.mrr},
          {"hits1", m.hits1},
          {"hits3", m.hits3},
          {"hits10", m.hits10},
          {"pairs", m.pairs}};
}

json policyOpJson(const PolicyOp &op) {
  json j = {{"op", policyOpName(op.kind)}};
  switch (op.kind) {
  case PolicyOpKind::AtomEmbed:
    j["pred_table"] = op.predTable;
    j["const_table"] = op.constTable;
    j["var_table"] = op.varTable;
    [[fallthrough]];
  case PolicyOpKind::Linear:
    j["weight"] = op.weight;
    j["bias"] = op.bias;
    j["in"] = op.in;
    j["out"] = op.out;
    break;
  case PolicyOpKind::LayerNorm:
    j["weight"] = op.weight;
    j["bias"] = op.bias;
    j["width"] = op.out > 0 ? op.out : op.in;
    j["eps"] = op.eps;
    break;
  case PolicyOpKind::Relu:
  case PolicyOpKind::SumAtoms:
    break;
  }
  return j;
}

json programJsonOf(const ProgramSpec &program) {
  const ShapeParams &s = program.shape;
  json encoder = json::array();
  for (const PolicyOp &op : program.policy.encoder)
    encoder.push_back(policyOpJson(op));
  return {{"name", program.name},
          {"shape",
           {{"A", s.A},
            {"S", s.S},
            {"D", s.D},
            {"B", s.B},
            {"d", s.d},
            {"L", s.L}}},
          {"policy",
           {{"encoder", encoder}, {"score_scale", program.policy.scoreScale}}}};
}

json optionalJson(const std::optional<double> &value) {
  return value ? json(*value) : json(nullptr);
}

json summaryJson(const RankSummary &s, const std::vector<int64_t> &hits) {
  json hitsAt = json::object();
  for (size_t k = 0; k < hits.size(); ++k)
    hitsAt[std::to_string(hits[k])] = optionalJson(s.hits[k]);
  return {{"pairs", s.pairs},
          {"mean_rank", optionalJson(s.meanRank)},
          {"mrr", optionalJson(s.mrr)},
          {"hits_at", hitsAt},
          {"amri", optionalJson(s.amri)}};
}

json sidesJson(const SideSummaries &sides, const std::vector<int64_t> &hits) {
  json out = json::object();
  for (Side side : kSides)
    for (RankType type : kRankTypes)
      out[sideName(side)][rankTypeName(type)] = summaryJson(
          sides[static_cast<int>(side)][static_cast<int>(type)], hits);
  return out;
}

json intervalJson(const Interval &i) {
  return json::array({optionalJson(i.low), optionalJson(i.high)});
}

} // namespace

json rankMetricsJson(const RankMetrics &m,
                     const std::vector<std::string> &relationNames) {
  const std::vector<int64_t> &hits = m.options.hits;
  json out = sidesJson(m.overall, hits);
  out["hits"] = hits;
  if (m.options.perRelation) {
    json perRelation = json::object();
    for (const auto &[relation, sides] : m.perRelation) {
      const std::string name =
          relation >= 0 && static_cast<size_t>(relation) < relationNames.size()
              ? relationNames[relation]
              : std::to_string(relation);
      perRelation[name] = sidesJson(sides, hits);
    }
    out["per_relation"] = perRelation;
  }
  if (m.options.bootstrapSamples > 0) {
    json intervals = json::object();
    for (Side side : kSides)
      for (RankType type : kRankTypes) {
        const SummaryIntervals &i =
            m.intervals[static_cast<int>(side)][static_cast<int>(type)];
        json hitsAt = json::object();
        for (size_t k = 0; k < hits.size(); ++k)
          hitsAt[std::to_string(hits[k])] = intervalJson(i.hits[k]);
        intervals[sideName(side)][rankTypeName(type)] = {
            {"mean_rank", intervalJson(i.meanRank)},
            {"mrr", intervalJson(i.mrr)},
            {"hits_at", hitsAt},
            {"amri", intervalJson(i.amri)}};
      }
    out["bootstrap"] = {{"samples", m.options.bootstrapSamples},
                        {"seed", m.options.bootstrapSeed},
                        {"queries", m.bootstrapQueries},
                        {"confidence", 0.95},
                        {"intervals", intervals}};
  }
  return out;
}

json pykeenKeyMap(const RankMetrics &m) {
  json out = json::object();
  const std::vector<int64_t> &hits = m.options.hits;
  for (Side side : kSides)
    for (RankType type : kRankTypes) {
      const RankSummary &s =
          m.overall[static_cast<int>(side)][static_cast<int>(type)];
      const std::string prefix =
          std::string(sideName(side)) + "." + rankTypeName(type) + ".";
      out[prefix + "arithmetic_mean_rank"] = optionalJson(s.meanRank);
      out[prefix + "inverse_harmonic_mean_rank"] = optionalJson(s.mrr);
      out[prefix + "adjusted_arithmetic_mean_rank_index"] =
          optionalJson(s.amri);
      for (size_t k = 0; k < hits.size(); ++k)
        out[prefix + "hits_at_" + std::to_string(hits[k])] =
            optionalJson(s.hits[k]);
    }
  // The rest of PyKEEN's set (PykeenMetrics.h); the keys above keep the
  // values of rank_metrics.
  for (const auto &[key, value] : m.pykeen)
    if (!out.contains(key))
      out[key] = optionalJson(value);
  return out;
}

json programJson(const ProgramSpec &program) { return programJsonOf(program); }

json metricsJson(const Metrics &m) {
  return {{"head", metricSetJson(m.head)},
          {"tail", metricSetJson(m.tail)},
          {"both", metricSetJson(m.both)},
          {"candidates", m.candidates},
          {"proved", m.proved},
          {"failed", m.failed},
          {"truncated", m.truncated},
          {"mean_depth", m.meanDepth}};
}

json timingsJson(const ReportInputs &in) {
  return {{"compile_seconds", in.compileSeconds},
          {"setup_seconds", in.timings.setupSeconds},
          {"run_seconds", in.timings.runSeconds},
          {"readback_seconds", in.timings.readbackSeconds},
          {"total_seconds", in.totalSeconds},
          {"steps", in.timings.steps}};
}

json reportJson(const ReportInputs &in) {
  const Metrics &m = in.metrics;
  json weights =
      !in.weights.empty() ? json{{"file", in.weights}}
      : !in.weightsInMemory.empty()
          ? json{{"file", nullptr}, {"in_memory", in.weightsInMemory}}
          : json{{"file", nullptr}, {"init_seed", in.weightsSeed}};
  json report{
      {"schema", kReportSchema},
      {"version", kReportVersion},
      {"program", programJsonOf(in.program)},
      {"dataset",
       {{"dir", in.datasetDir},
        {"name", in.datasetName},
        {"entities", in.entities},
        {"relations", in.relations},
        {"facts", in.facts},
        {"facts_include_valid", in.factsIncludeValid},
        {"rules", in.rules}}},
      {"weights", weights},
      {"candidates",
       {{"split", in.candidates.split},
        {"corruptions", in.candidates.corruptions},
        {"seed", in.candidates.seed},
        {"max_queries", in.candidates.queries}}},
      {"metrics", metricsJson(m)},
      {"timings", timingsJson(in)},
      {"backend", in.backend},
      {"device", in.device},
  };
  const Provenance &p = in.provenance;
  report["provenance"] = {{"proofc_version", p.version},
                          {"git_commit", p.gitCommit},
                          {"command_line", p.commandLine},
                          {"started_utc", p.startedUtc},
                          {"host", p.host},
                          {"device", in.device},
                          {"weights_sha256", p.weightsSha256.empty()
                                                 ? json(nullptr)
                                                 : json(p.weightsSha256)},
                          {"dataset_fingerprint", p.datasetFingerprint}};
  if (!p.weightsXxh3.empty())
    report["provenance"]["weights_xxh3"] = p.weightsXxh3;
  if (in.mpiRanks > 0) {
    report["mpi"] = {{"ranks", in.mpiRanks}};
    if (!in.mpiDevices.empty())
      report["mpi"]["devices"] = in.mpiDevices;
  }
  if (in.rankMetrics) {
    report["rank_metrics"] = rankMetricsJson(*in.rankMetrics, in.relationNames);
    report["pykeen"] = pykeenKeyMap(*in.rankMetrics);
  }
  if (!in.backendDetails.is_null())
    report["backend_details"] = in.backendDetails;
  if (!in.outcomesFile.empty())
    report["outcomes"] = {{"file", in.outcomesFile},
                          {"sha256", in.outcomesSha256}};
  if (!in.proofsFile.empty())
    report["proofs"] =
        proofsReportJson(in.proofsFile, in.proofsSha256, in.proofsFormat,
                         in.proofsOf, in.proofsCount);
  return report;
}

nlohmann::json proofsReportJson(const std::string &file,
                                const std::string &sha256,
                                const std::string &format,
                                const std::string &of, int64_t count) {
  return {{"file", file},     {"sha256", sha256},
          {"format", format}, {"version", kProofsFormatVersion},
          {"of", of},         {"count", count}};
}

void writeReportJson(const std::string &path, const ReportInputs &inputs) {
  writeAtomically(path, reportJson(inputs).dump(2) + "\n");
}

namespace {
// Version 3 (docs/report-schema.md): the version line, then the header:
// version 1's columns in their order, then the query triple's names, the
// positive's three ranks of the candidate's (query, mode) list, the
// candidate's finite score and the list's size (what PyKEEN needs).
constexpr std::string_view kOutcomesHeader =
    "#proofc-outcomes 3\n"
    "query\tmode\tentity\tstatus\tdepth\tlogp\thead\trelation\ttail\t"
    "optimistic_rank\tpessimistic_rank\trealistic_rank\tscore\tlist_size\n";

/// The score column's value for a candidate without a finite spec §6 score
/// (not proved, or proved with logp -inf): the lowest float32, written so
/// that it parses below every finite float32 logp as a double and to the
/// lowest float32 (not -inf) as a float32.
constexpr std::string_view kUnprovedScore = "-3.40282347e+38";

/// A rank of RankMetrics: an integer or an integer and a half (the mean of
/// two integers), written exactly: "3", "2.5".
void appendRank(fmt::memory_buffer &out, double rank) {
  const long long twice = std::llround(rank * 2);
  if (twice % 2 == 0)
    fmt::format_to(std::back_inserter(out), "{}", twice / 2);
  else
    fmt::format_to(std::back_inserter(out), "{}.5", twice / 2);
}
} // namespace

uint64_t outcomesTsvBound(const CandidateSet &set, const Dataset &dataset) {
  // Per line: 13 TABs and the LF, "head"/"tail", "truncated" (the longest
  // status), an int32 depth (11 with a sign), two {:.9g} numbers (logp and
  // score, at most 16 each: -1.23456789e-308), three ranks, each at most the
  // candidate count's digits and ".5", and the list size (at most the
  // candidate count's digits).
  const uint64_t rankWidth = std::to_string(set.candidates.size()).size() + 2;
  const uint64_t fixed = 14 + 4 + 9 + 11 + 2 * 16 + 4 * rankWidth;
  uint64_t bytes = kOutcomesHeader.size();
  for (const Candidate &c : set.candidates) {
    const Triple &q = set.queries[c.query];
    bytes += fixed + std::to_string(c.query).size() +
             dataset.entities.name(c.entity).size() +
             dataset.entities.name(q.h).size() +
             dataset.relations.name(q.r).size() +
             dataset.entities.name(q.t).size();
  }
  return bytes;
}

void writeOutcomesTsv(const std::string &path, const CandidateSet &set,
                      const Dataset &dataset,
                      const std::vector<Outcome> &outcomes) {
  writeAtomically(path, outcomesTsv(path, set, dataset, outcomes));
}

std::string_view outcomesTsvHeader() { return kOutcomesHeader; }

void appendOutcomesTsvGroup(std::string &out, const CandidateSet &set,
                            const Dataset &dataset,
                            const std::vector<Outcome> &outcomes,
                            const CandidateGroup &g,
                            const std::array<double, 3> &ranks) {
  fmt::memory_buffer buffer;
  const Triple &q = set.queries[g.query];
  for (int64_t i = g.begin; i < g.end; ++i) {
    const Candidate &c = set.candidates[i];
    const Outcome &o = outcomes[i];
    fmt::format_to(
        std::back_inserter(buffer), "{}\t{}\t{}\t{}\t{}\t{:.9g}\t{}\t{}\t{}",
        c.query, modeName(c.mode), dataset.entities.name(c.entity),
        statusName(o.status), o.depth, o.logp, dataset.entities.name(q.h),
        dataset.relations.name(q.r), dataset.entities.name(q.t));
    for (RankType type : kRankTypes) {
      buffer.push_back('\t');
      appendRank(buffer, ranks[static_cast<size_t>(type)]);
    }
    buffer.push_back('\t');
    if (o.status == ProofStatus::Proved &&
        o.logp > -std::numeric_limits<float>::infinity())
      fmt::format_to(std::back_inserter(buffer), "{:.9g}", o.logp);
    else
      buffer.append(kUnprovedScore.data(),
                    kUnprovedScore.data() + kUnprovedScore.size());
    fmt::format_to(std::back_inserter(buffer), "\t{}\n", g.end - g.begin);
  }
  out.append(buffer.data(), buffer.size());
}

std::string outcomesTsv(const std::string &path, const CandidateSet &set,
                        const Dataset &dataset,
                        const std::vector<Outcome> &outcomes) {
  if (outcomes.size() != set.candidates.size())
    fail("{}: {} outcomes for {} candidates", path, outcomes.size(),
         set.candidates.size());
  std::string out(kOutcomesHeader);
  // The groups tile the candidates in order (buildCandidates); a set that
  // does not would drop or repeat lines.
  int64_t next = 0;
  for (const CandidateGroup &g : set.groups) {
    if (g.begin != next || g.end < g.begin ||
        g.end > static_cast<int64_t>(set.candidates.size()))
      fail("{}: candidate group [{}, {}) out of order", path, g.begin, g.end);
    next = g.end;
    appendOutcomesTsvGroup(out, set, dataset, outcomes, g,
                           groupRanks(outcomes, g));
  }
  if (next != static_cast<int64_t>(set.candidates.size()))
    fail("{}: candidate groups cover {} of {} candidates", path, next,
         set.candidates.size());
  return out;
}

uint64_t outcomesTsvBound(const CandidateLayout &layout,
                          const Dataset &dataset) {
  // outcomesTsvBound(set) with every corrupted entity's name counted at the
  // longest entity name: no candidate is needed.
  size_t longest = 0;
  for (int32_t e = 0; e < dataset.numEntities(); ++e)
    longest = std::max(longest, dataset.entities.name(e).size());
  const uint64_t rankWidth = std::to_string(layout.candidateCount()).size() + 2;
  const uint64_t fixed = 14 + 4 + 9 + 11 + 2 * 16 + 4 * rankWidth + longest;
  uint64_t bytes = kOutcomesHeader.size();
  for (int64_t qi = 0; qi < layout.queryCount(); ++qi) {
    const Triple &q = layout.queries[static_cast<size_t>(qi)];
    const uint64_t line =
        fixed + std::to_string(qi).size() + dataset.entities.name(q.h).size() +
        dataset.relations.name(q.r).size() + dataset.entities.name(q.t).size();
    bytes += line * static_cast<uint64_t>(layout.firstCandidateOf(qi + 1) -
                                          layout.firstCandidateOf(qi));
  }
  return bytes;
}

} // namespace proofc
