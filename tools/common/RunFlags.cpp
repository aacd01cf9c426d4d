//===- RunFlags.cpp - The run flags of proofc run and proofc-run ----------===//
#include "RunFlags.h"

#include "CommandLine.h"

#include <CLI/CLI.hpp>

#include "proofc/runtime/QueryRanges.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <limits>

namespace proofc::cli {

RunSessionOptions
RunFlags::sessionOptions(std::chrono::steady_clock::time_point started) const {
  RunSessionOptions so;
  so.data = data;
  so.weights = weights;
  so.split = split;
  so.corruptions = corruptions;
  so.seed = seed;
  so.queries = queries;
  so.factsIncludeValid = facts == "train+valid";
  so.maxPool = maxPool;
  so.blockCandidates = block;
  so.threads = threads;
  // A tool keeps no outcome: the outcomes file is written as the blocks
  // finish, so that host memory does not grow with the pool.
  so.keepOutcomes = false;
  so.quiet = quiet;
  so.report = report;
  so.outcomes = outcomes;
  so.proofs = proofs;
  so.proofsFormat = proofsFormat;
  so.proofsOf = proofsOf;
  so.started = started;
  so.commandLine = commandLine();
  so.rankMetrics.hits = parseHitsList(hits);
  so.rankMetrics.perRelation = perRelation;
  so.rankMetrics.bootstrapSamples = bootstrap;
  so.rankMetrics.bootstrapSeed = bootstrapSeed;
  if (!shard.empty()) {
    // i/n, two decimal integers; the ranges are checked by shardRange.
    const size_t slash = shard.find('/');
    auto number = [&](const std::string &digits, int64_t &value) {
      if (digits.empty() || digits.size() > 9 ||
          digits.find_first_not_of("0123456789") != std::string::npos)
        return false;
      value = std::stoll(digits);
      return true;
    };
    if (slash == std::string::npos ||
        !number(shard.substr(0, slash), so.shardIndex) ||
        !number(shard.substr(slash + 1), so.shardCount))
      fail("--shard {}: expected i/n (shard i of n, 0 <= i < n), e.g. 0/4",
           escapeForMessage(shard));
    if (so.shardCount < 1 || so.shardCount > kMaxShards ||
        so.shardIndex >= so.shardCount)
      fail("--shard {}: expected 0 <= i < n with 1 <= n <= {}",
           escapeForMessage(shard), kMaxShards);
  }
  so.part = part;
  so.outcomeRows = partOutcomes;
  so.device = device;
  so.devices = devices;
  so.checkpoint = checkpoint;
  so.checkpointEvery = checkpointEvery;
  return so;
}

void addRunFlags(CLI::App &command, RunFlags &f) {
  // No existence checks here: the runtime's own errors name the file that
  // is missing and why (e.g. DIR/train.tsv: cannot read: ...).
  addPathOption(command, "--data", f.data,
                "Dataset directory (train/valid/test.tsv, rules.txt)", "DIR")
      ->required();
  addPathOption(command, "--weights", f.weights,
                "Policy weights (.safetensors)", "W.safetensors")
      ->required();
  command.add_option("--split", f.split, "Split whose triples are the queries")
      ->check(CLI::IsMember({"train", "valid", "test"}))
      ->capture_default_str();
  addIntegerOption(command, "--corruptions", f.corruptions,
                   "Corruptions sampled per query and mode (<= 0: all)");
  addIntegerOption(command, "--seed", f.seed,
                   "Seed of the corruption sampler (0 to 2^64 - 1)");
  addIntegerOption(command, "--queries", f.queries,
                   "Only the first N queries (< 0: all)");
  CLI::Option *device =
      command.add_option("--device", f.device, "Backend: cpu, cuda or auto")
          ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
          ->capture_default_str();
  command
      .add_option("--devices", f.devices,
                  "Several GPUs of this host: all, or CUDA ordinals such as "
                  "0,1 (one device worker each; docs/scale-out.md)")
      ->type_name("all|N,...")
      ->excludes(device);
  addIntegerOption(command, "--threads", f.threads,
                   "CPU threads of the host backend (0: every hardware "
                   "thread)",
                   0, std::numeric_limits<int>::max());
  command.add_option("--facts", f.facts, "Facts the prover may use")
      ->check(CLI::IsMember({"train", "train+valid"}))
      ->capture_default_str();
  addIntegerOption(command, "--max-pool", f.maxPool,
                   "Candidates per backend run (<= 0: as many as fit)");
  addIntegerOption(command, "--block", f.block,
                   "Candidates per streamed block of whole queries: memory "
                   "is bounded by a few blocks (docs/scale-out.md)",
                   1, int64_t{1} << 40);
  command.add_flag("--quiet", f.quiet, "No progress display on stderr");
  addPathOption(command, "--report", f.report,
                "Write the JSON report here (- for standard output)",
                "FILE.json");
  addPathOption(command, "--outcomes", f.outcomes,
                "Write every candidate's outcome here (TSV; - for "
                "standard output)",
                "FILE.tsv");
  addPathOption(command, "--proofs", f.proofs,
                "Write the derivation of every proved candidate here "
                "(docs/proofs.md; - for standard output); with --shard, "
                "the shard's proofs part for `proofc merge --proofs`",
                "FILE");
  command
      .add_option("--proofs-format", f.proofsFormat,
                  "The proofs file's format: JSON lines or Prolog terms")
      ->check(CLI::IsMember({"json", "prolog"}))
      ->capture_default_str();
  command
      .add_option("--proofs-of", f.proofsOf,
                  "Whose proofs: every proved candidate, or the proved "
                  "positives only")
      ->check(CLI::IsMember({"all", "positives"}))
      ->capture_default_str();
  command
      .add_option("--hits", f.hits,
                  "The k of Hits@k in the report's rank metrics "
                  "(comma-separated positive integers)")
      ->type_name("K,K,...")
      ->capture_default_str();
  command.add_flag("--per-relation", f.perRelation,
                   "Rank metrics per relation too (report: "
                   "rank_metrics.per_relation)");
  addIntegerOption(command, "--bootstrap", f.bootstrap,
                   "Bootstrap resamples over queries for 95 % intervals "
                   "(0: none)",
                   0, int64_t{1} << 20);
  addIntegerOption(command, "--bootstrap-seed", f.bootstrapSeed,
                   "Seed of the bootstrap's SplitMix64 (0 to 2^64 - 1)");
  command
      .add_option("--shard", f.shard,
                  "Evaluate only shard i of n (contiguous blocks of queries) "
                  "and write it to --part; `proofc merge` combines the parts")
      ->type_name("i/n");
  addPathOption(command, "--part", f.part,
                "Where --shard writes the shard's tally (a part file)",
                "FILE.part");
  command.add_flag("--part-outcomes", f.partOutcomes,
                   "The part also carries the shard's outcome rows, for "
                   "`proofc merge --outcomes` (by default it carries the "
                   "tally: each list's ranks and the outcome counts)");
  addPathOption(command, "--checkpoint", f.checkpoint,
                "Record finished query ranges in DIR; the same command "
                "run again resumes where it stopped",
                "DIR");
  addIntegerOption(command, "--checkpoint-every", f.checkpointEvery,
                   "Candidates per recorded range (whole queries)", 1,
                   int64_t{1} << 40);
}

} // namespace proofc::cli
