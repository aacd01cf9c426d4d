//===- Merge.cpp - Shards' parts into one report and outcomes -------------===//
#include "tooling/Merge.h"

#include "outputs/OutcomesWriter.h"
#include "outputs/Provenance.h"
#include "outputs/Report.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"
#include "support/Fail.h"
#include "support/JsonNode.h"
#include "support/MessageText.h"
#include "support/OutputFiles.h"
#include "support/SameFile.h"
#include "support/Sha256.h"
#include "tooling/PartFile.h"
#include "tooling/ProofParts.h"
#include "tooling/RunSession.h"

#include <fmt/format.h>

#include <map>

namespace proofc {
namespace {

using json = nlohmann::json;

bool sameRankOptions(const RankMetricOptions &a, const RankMetricOptions &b) {
  return a.hits == b.hits && a.perRelation == b.perRelation &&
         a.bootstrapSamples == b.bootstrapSamples &&
         a.bootstrapSeed == b.bootstrapSeed;
}

/// Adds `from`'s timings to `into` (both report "timings" objects).
void addTimings(json &into, const json &from, const std::string &path) {
  const JsonNode timings(from, "report.timings", path);
  for (const char *key : {"compile_seconds", "setup_seconds", "run_seconds",
                          "readback_seconds", "total_seconds"})
    into[key] = into.value(key, 0.0) + timings[key].number();
  into["steps"] = into.value("steps", int64_t{0}) + timings["steps"].i64(0);
}

} // namespace

void mergeParts(const MergeOptions &given, std::FILE *out) {
  // The shards' proofs parts (ProofParts.h) come among the parts.
  MergeOptions options = given;
  const std::vector<std::string> proofsParts = takeProofsParts(options.parts);
  if (options.parts.empty())
    fail("merge: no part files given");
  RunSessionOptions paths;
  paths.report = options.report;
  paths.outcomes = options.outcomes;
  paths.proofs = options.proofs;
  paths.data = options.data;
  // Before reading gigabytes of parts: no output may replace a part.
  std::vector<CommandFile> inputs;
  for (const std::string &part : given.parts)
    inputs.push_back({part, "part", ""});
  checkOutputPaths(paths, inputs);

  std::vector<PartFile> parts;
  std::map<int64_t, size_t> byShard; // shard index -> position in parts
  for (const std::string &path : options.parts) {
    PartFile part = readPart(path);
    if (part.kind != "shard")
      fail("{}: a checkpoint range, not a shard's part (merge takes the files "
           "written by --shard i/n --part FILE)",
           path);
    if (!parts.empty()) {
      const PartFile &first = parts.front();
      const std::string &firstPath = options.parts.front();
      const std::string diff = RunIdentity::difference(
          first.identity, firstPath, part.identity, path,
          /*ignoreShardIndex=*/true);
      if (!diff.empty())
        fail("{}: made from other inputs than {}: {}", path, firstPath, diff);
      if (!sameRankOptions(first.rankMetrics, part.rankMetrics))
        fail("{}: its rank metric options (--hits, --per-relation, "
             "--bootstrap, --bootstrap-seed) differ from {}'s",
             path, firstPath);
      if (part.totalQueries != first.totalQueries ||
          part.totalCandidates != first.totalCandidates)
        fail("{}: {} queries and {} candidates in all, {} has {} and {}", path,
             part.totalQueries, part.totalCandidates, firstPath,
             first.totalQueries, first.totalCandidates);
    }
    auto [it, inserted] =
        byShard.emplace(part.identity.shardIndex, parts.size());
    if (!inserted)
      fail("{}: shard {}/{} is also {}", path, part.identity.shardIndex,
           part.identity.shardCount, options.parts[it->second]);
    parts.push_back(std::move(part));
  }
  const RunIdentity &identity = parts.front().identity;
  const int64_t count = identity.shardCount;
  for (int64_t i = 0; i < count; ++i)
    if (!byShard.count(i))
      fail("merge: shard {}/{} is missing (given: {} of {} parts)", i, count,
           parts.size(), count);

  // The candidates again, from the dataset the parts were made from.
  const PartFile &zero = parts[byShard.at(0)];
  const std::string &zeroPath = options.parts[byShard.at(0)];
  std::string data = options.data;
  if (data.empty()) {
    const json &report = zero.report;
    if (!report.contains("dataset") || !report["dataset"].contains("dir") ||
        !report["dataset"]["dir"].is_string())
      fail("{}: the part's report names no dataset directory; give --data",
           zeroPath);
    data = report["dataset"]["dir"].get<std::string>();
    paths.data = data; // the dataset's files are inputs too
    checkOutputPaths(paths, inputs);
  }
  const Dataset dataset = loadDataset(data);
  const std::string fingerprint = datasetFingerprint(dataset);
  if (fingerprint != identity.datasetFingerprint)
    fail("{}: the dataset's fingerprint is {}, the parts were made from {} "
         "(give --data with the parts' dataset)",
         data, fingerprint, escapeForMessage(identity.datasetFingerprint));
  // The layout only (8 B a list): the tallies need no candidate.
  CandidateOptions co;
  co.split = identity.split;
  co.corruptions = identity.corruptions;
  co.seed = identity.seed;
  co.queries = identity.queries;
  const CandidateBuilder builder(dataset, co);
  const CandidateLayout &layout = builder.layout();
  if (layout.candidateCount() != zero.totalCandidates ||
      layout.queryCount() != zero.totalQueries)
    fail("{}: made for {} queries and {} candidates, the dataset gives {} "
         "and {}",
         zeroPath, zero.totalQueries, zero.totalCandidates, layout.queryCount(),
         layout.candidateCount());

  // The tallies in shard order: every list's ranks, and the counts.
  std::vector<PairRanks> pairs;
  pairs.reserve(2 * layout.queries.size());
  OutcomeCounts counts;
  json timings = json::object();
  for (int64_t i = 0; i < count; ++i) {
    const size_t k = byShard.at(i);
    const PartFile &part = parts[k];
    const std::string &path = options.parts[k];
    const QueryRange want = shardRange(layout, i, count);
    if (!(part.range == want))
      fail("{}: shard {}/{} holds queries [{}, {}), the shard is [{}, {})",
           path, i, count, part.range.queryBegin, part.range.queryEnd,
           want.queryBegin, want.queryEnd);
    checkTally(layout, part, path);
    if (!options.outcomes.empty() && !part.hasRows)
      fail("{}: the part carries no outcome rows (its shard ran without "
           "--part-outcomes); run the shards with --part-outcomes for "
           "--outcomes, or merge without --outcomes",
           path);
    pairs.insert(pairs.end(), part.pairs.begin(), part.pairs.end());
    counts.add(part.counts);
    if (!part.report.contains("timings") || !part.report["timings"].is_object())
      fail("{}: the part's report has no timings", path);
    addTimings(timings, part.report["timings"], path);
  }

  // The numbers, by the code of one run.
  const RankMetricOptions &rankOptions = zero.rankMetrics;
  const Metrics metrics = computeMetrics(pairs, counts);
  const RankMetrics rank = computeRankMetrics(pairs, rankOptions);
  std::vector<std::string> relationNames;
  if (rankOptions.perRelation)
    for (int32_t id = 0; id < dataset.numRelations(); ++id)
      relationNames.push_back(dataset.relations.name(id));
  json report = zero.report;
  report["metrics"] = metricsJson(metrics);
  report["rank_metrics"] = rankMetricsJson(rank, relationNames);
  report["pykeen"] = pykeenKeyMap(rank);
  report["timings"] = timings;
  report.erase("outcomes");

  std::vector<ShardOfRun> shards(static_cast<size_t>(count));
  for (const PartFile &part : parts)
    shards[static_cast<size_t>(part.identity.shardIndex)] = {part.identity,
                                                             part.range};
  MergedProofs proofs = mergeProofsParts(options.proofs, proofsParts, shards);
  if (!options.proofs.empty())
    report["proofs"] = proofsReportJson(options.proofs, sha256Hex(proofs.text),
                                        proofs.format, proofs.of, proofs.count);

  // The outcomes: the parts' rows copied in shard order, never held.
  OutputSet set;
  if (!options.proofs.empty())
    set.add(options.proofs, std::move(proofs.text));
  if (!options.outcomes.empty()) {
    OutcomesWriter writer(set, options.outcomes, dataset, 1);
    for (int64_t i = 0; i < count; ++i)
      copyRows({parts[byShard.at(i)].rows},
               [&](std::string_view b) { writer.appendRows(b); });
    report["outcomes"] = {{"file", options.outcomes},
                          {"sha256", writer.finish()}};
  }
  if (!options.report.empty())
    set.add(options.report, report.dump(2) + "\n");
  set.commit();
  fmt::print(out, "merged    {} shards: {} queries, {} candidates\n", count,
             layout.queryCount(), layout.candidateCount());
  if (!options.report.empty())
    fmt::print(out, "report    {}\n", options.report);
  if (!options.outcomes.empty())
    fmt::print(out, "outcomes  {}\n", options.outcomes);
  if (!options.proofs.empty())
    fmt::print(out, "proofs    {} ({} proofs)\n", options.proofs, proofs.count);
}

} // namespace proofc
