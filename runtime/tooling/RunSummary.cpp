//===- RunSummary.cpp - The human-readable summary of a run ---------------===//
#include "tooling/RunSummary.h"

#include <fmt/format.h>

namespace proofc {
void printRunSummary(std::FILE *out, const ReportInputs &run) {
  const ShapeParams &s = run.program.shape;
  const Metrics &m = run.metrics;
  const CandidateOptions &c = run.candidates;
  fmt::print(out, "program   @{} (A={} S={} D={} B={} d={} L={}) on {} [{}]\n",
             run.program.name, s.A, s.S, s.D, s.B, s.d, s.L, run.backend,
             run.device);
  fmt::print(out,
             "dataset   {}: {} entities, {} relations, {} facts ({}), {} "
             "rules\n",
             run.datasetName, run.entities, run.relations, run.facts,
             run.factsIncludeValid ? "train+valid" : "train", run.rules);
  std::string queries = c.queries < 0
                            ? "all queries"
                            : fmt::format("first {} queries", c.queries);
  std::string corruptions =
      c.corruptions <= 0
          ? "all corruptions"
          : fmt::format("{} corruptions (seed {})", c.corruptions, c.seed);
  fmt::print(out, "queries   {} split, {}, {}: {} candidates\n", c.split,
             queries, corruptions, m.candidates);
  fmt::print(out, "          {:>7} {:>7} {:>7} {:>7} {:>7}\n", "MRR", "Hits@1",
             "Hits@3", "Hits@10", "pairs");
  auto row = [&](const char *mode, const MetricSet &set) {
    fmt::print(out, "{:<9} {:>7.4f} {:>7.4f} {:>7.4f} {:>7.4f} {:>7}\n", mode,
               set.mrr, set.hits1, set.hits3, set.hits10, set.pairs);
  };
  row("head", m.head);
  row("tail", m.tail);
  row("both", m.both);
  if (run.rankMetrics) {
    // Ties at -inf (unproved candidates) hide behind the realistic rank;
    // the optimistic/pessimistic spread shows how much they weigh.
    const auto &both = run.rankMetrics->overall[static_cast<int>(Side::Both)];
    auto mrr = [&](RankType type) {
      const auto &value = both[static_cast<int>(type)].mrr;
      return value ? fmt::format("{:.4f}", *value) : std::string("-");
    };
    fmt::print(out, "ties      both MRR optimistic {}, pessimistic {}\n",
               mrr(RankType::Optimistic), mrr(RankType::Pessimistic));
  }
  fmt::print(
      out, "outcomes  proved {}, failed {}, truncated {}; mean depth {:.3f}\n",
      m.proved, m.failed, m.truncated, m.meanDepth);
  fmt::print(out,
             "time      compile {:.3f} s, setup {:.3f} s, run {:.3f} s ({} "
             "steps), total {:.3f} s\n",
             run.compileSeconds, run.timings.setupSeconds,
             run.timings.runSeconds, run.timings.steps, run.totalSeconds);
}

void printBackendInfo(std::FILE *out, const Backend &backend) {
  const BackendInfo info = backend.info();
  if (!info.summary.empty())
    fmt::print(out, "{:<10}{}\n", backend.name(), info.summary);
}

} // namespace proofc
