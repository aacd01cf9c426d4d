//===- RunFlags.cpp - The run flags of proofc run and proofc-run ----------===//
#include "RunFlags.h"

#include "CommandLine.h"

#include <CLI/CLI.hpp>

#include "proofc/runtime/QueryRanges.h"
#include "support/Fail.h"
#include "support/MessageText.h"
#include "tooling/HitsList.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

namespace proofc::cli {

RunFlags::RunFlags() {
  // A tool keeps no outcome: the outcomes file is written as the blocks
  // finish, so that host memory does not grow with the pool.
  options.keepOutcomes = false;
  hits = fmt::format("{}", fmt::join(options.rankMetrics.hits, ","));
}

RunSessionOptions
RunFlags::sessionOptions(std::chrono::steady_clock::time_point started) const {
  RunSessionOptions so = options;
  so.factsIncludeValid = facts == "train+valid";
  so.started = started;
  so.commandLine = commandLine();
  so.rankMetrics.hits = parseHitsList(hits);
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
  return so;
}

void addRunFlags(CLI::App &command, RunFlags &f) {
  RunSessionOptions &o = f.options;
  // No existence checks here: the runtime's own errors name the file that
  // is missing and why (e.g. DIR/train.tsv: cannot read: ...).
  addPathOption(command, "--data", o.data,
                "Dataset directory (train/valid/test.tsv, rules.txt)", "DIR")
      ->required();
  addPathOption(command, "--weights", o.weights,
                "Policy weights (.safetensors)", "W.safetensors")
      ->required();
  // The candidates (CandidateOptions).
  command.add_option("--split", o.split, "Split whose triples are the queries")
      ->check(CLI::IsMember({"train", "valid", "test"}))
      ->capture_default_str();
  addIntegerOption(command, "--corruptions", o.corruptions,
                   "Corruptions sampled per query and mode (<= 0: all)");
  addIntegerOption(command, "--seed", o.seed,
                   "Seed of the corruption sampler (0 to 2^64 - 1)");
  addIntegerOption(command, "--queries", o.queries,
                   "Only the first N queries (< 0: all)");
  command.add_option("--facts", f.facts, "Facts the prover may use")
      ->check(CLI::IsMember({"train", "train+valid"}))
      ->capture_default_str();
  // The backend (BackendOptions).
  CLI::Option *device =
      command
          .add_option("--device", o.device,
                      "Backend: cpu, cuda (device 0; under MPI each "
                      "rank's own), cuda:N (CUDA device N) or auto (cuda "
                      "when a device is usable, else cpu)")
          ->type_name("cpu|cuda|cuda:N|auto")
          ->check(CLI::Validator(
              [](std::string &value) -> std::string {
                if (value == "cpu" || value == "cuda" || value == "auto")
                  return "";
                const std::string ordinal =
                    value.rfind("cuda:", 0) == 0 ? value.substr(5) : "";
                if (!ordinal.empty() && ordinal.size() <= 4 &&
                    ordinal.find_first_not_of("0123456789") ==
                        std::string::npos)
                  return "";
                return value + " is not cpu, cuda, cuda:N (N a CUDA "
                               "device ordinal) or auto";
              },
              "", "a device"))
          ->capture_default_str();
  command
      .add_option("--devices", o.devices,
                  "Several GPUs of this host: all, or CUDA ordinals such as "
                  "0,1 (--workers-per-device each; docs/scale-out.md)")
      ->type_name("all|N,...")
      ->check(CLI::Validator(
          [](std::string &value) -> std::string {
            return value.empty() ? "empty (give all, or CUDA ordinals such "
                                   "as 0,1)"
                                 : "";
          },
          "", "non-empty"))
      ->excludes(device);
  addIntegerOption(command, "--workers-per-device", o.workersPerDevice,
                   "Device workers per CUDA device, each its own backend, so "
                   "that one's host work between blocks overlaps another's "
                   "run (0: auto, 2 on CUDA, 1 on the CPU)",
                   0, static_cast<int>(kMaxWorkersPerDevice))
      ->default_str("auto");
  addIntegerOption(command, "--threads", o.threads,
                   "CPU threads of the host backend (0: every hardware "
                   "thread)",
                   0, std::numeric_limits<int>::max());
  command
      .add_option("--cond", o.cond,
                  "CUDA proof loop: native (conditional graph nodes), "
                  "emulated (unrolled graph, host-polled flag), host (host "
                  "reads the flags every step)")
      ->check(CLI::IsMember({"native", "emulated", "host"}))
      ->capture_default_str();
  addIntegerOption(command, "--unroll", o.unroll,
                   "Steps per graph launch (--cond emulated)", 1,
                   static_cast<int>(kMaxUnroll));
  addIntegerOption(command, "--memo-entries", o.memoEntries,
                   "Step memo (both backends): entries, a power of two; 0 "
                   "turns it off, -1 sizes it from the pool (16 N) within a "
                   "quarter of the GPU's free memory or of the host's "
                   "available memory",
                   -1, kMaxMemoEntries)
      ->check(CLI::Validator(
          [](std::string &value) -> std::string {
            // Not a number: addIntegerOption's parse says so.
            char *end = nullptr;
            errno = 0;
            const long long n = std::strtoll(value.c_str(), &end, 10);
            // Out of range: addIntegerOption's range check says so.
            if (value.empty() || *end != '\0' || errno == ERANGE || n < -1 ||
                n > kMaxMemoEntries || validMemoEntries(n))
              return "";
            return value + " is not -1, 0 or a power of two";
          },
          "", "power of two"));
  // The pool's cut.
  addIntegerOption(command, "--max-pool", o.maxPool,
                   "Candidates per backend run (<= 0: as many as fit)");
  addIntegerOption(command, "--block", o.blockCandidates,
                   "Candidates per streamed block of whole queries: memory "
                   "is bounded by a few blocks (docs/scale-out.md)",
                   1, kMaxBlockCandidates);
  command.add_flag("!--no-shared-lists", o.shareLists,
                   "Run every list's own corruptions, also where an earlier "
                   "list of the run holds the same ones (same results; "
                   "docs/scale-out.md, \"Shared lists\")");
  // The rank metrics (RankMetricOptions).
  command
      .add_option("--hits", f.hits,
                  "The k of Hits@k in the report's rank metrics "
                  "(comma-separated positive integers)")
      ->type_name("K,K,...")
      ->capture_default_str();
  command.add_flag("--per-relation", o.rankMetrics.perRelation,
                   "Rank metrics per relation too (report: "
                   "rank_metrics.per_relation)");
  addIntegerOption(command, "--bootstrap", o.rankMetrics.bootstrapSamples,
                   "Bootstrap resamples over queries for 95 % intervals "
                   "(0: none)",
                   0, kMaxBootstrapSamples);
  addIntegerOption(command, "--bootstrap-seed", o.rankMetrics.bootstrapSeed,
                   "Seed of the bootstrap's SplitMix64 (0 to 2^64 - 1)");
  // The tool's outputs.
  command.add_flag("--quiet", o.quiet, "No progress display on stderr");
  addPathOption(command, "--report", o.report,
                "Write the JSON report here (- for standard output)",
                "FILE.json");
  addPathOption(command, "--outcomes", o.outcomes,
                "Write every candidate's outcome here (TSV; - for "
                "standard output)",
                "FILE.tsv");
  addPathOption(command, "--proofs", o.proofs,
                "Write the derivation of every proved candidate here "
                "(docs/proofs.md; - for standard output); with --shard, "
                "the shard's proofs part for `proofc merge --proofs`",
                "FILE");
  command
      .add_option("--proofs-format", o.proofsFormat,
                  "The proofs file's format: JSON lines or Prolog terms")
      ->check(CLI::IsMember({"json", "prolog"}))
      ->capture_default_str();
  command
      .add_option("--proofs-of", o.proofsOf,
                  "Whose proofs: every proved candidate, or the proved "
                  "positives only")
      ->check(CLI::IsMember({"all", "positives"}))
      ->capture_default_str();
  // Scale-out (docs/scale-out.md).
  command
      .add_option("--shard", f.shard,
                  "Evaluate only shard i of n (contiguous blocks of queries) "
                  "and write it to --part; `proofc merge` combines the parts")
      ->type_name("i/n");
  addPathOption(command, "--part", o.part,
                "Where --shard writes the shard's tally (a part file)",
                "FILE.part");
  command.add_flag("--part-outcomes", o.outcomeRows,
                   "The part also carries the shard's outcome rows, for "
                   "`proofc merge --outcomes` (by default it carries the "
                   "tally: each list's ranks and the outcome counts)");
  addPathOption(command, "--checkpoint", o.checkpoint,
                "Record finished query ranges in DIR; the same command "
                "run again resumes where it stopped",
                "DIR");
  addIntegerOption(command, "--checkpoint-every", o.checkpointEvery,
                   "Candidates per recorded range (whole queries); 0: auto, "
                   "2^20 on the CPU, 2^23 on a GPU",
                   0, int64_t{1} << 40);
}

} // namespace proofc::cli
