//===- main.cpp - proofc-run: evaluate a compiled bundle ------------------===//
//
// proofc-run PROGRAM.pcb --data DIR --weights W [--split --corruptions --seed
// --queries --device cpu|cuda|auto --cond native|emulated|host --unroll
// --threads --facts --report --outcomes]
//
// The runtime-only counterpart of `proofc run`: the program comes from a
// bundle written by `proofc compile`, so no MLIR is needed. The options,
// summary and report are those of `proofc run`; --cond and --unroll pick how
// the CUDA backend runs the proof loop. Every failure ends as one line on
// stderr (`proofc-run: error: ...`) and exit code 1.
//
//===----------------------------------------------------------------------===//
#include "RunSummary.h"

#include "proofc/runtime/Bundle.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/HostBackend.h"
#include "proofc/runtime/Report.h"
#include "proofc/runtime/Safetensors.h"
#include "proofc/runtime/cuda/CudaBackend.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

using namespace proofc;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string bundle, data, weights;
  std::string split = "test";
  int64_t corruptions = 0;
  uint64_t seed = 0;
  int64_t queries = -1;
  std::string device = "cpu";
  std::string cond = "native";
  int unroll = 8;
  int threads = 0;
  std::string facts = "train";
  std::string report, outcomes;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string datasetName(const std::string &dir) {
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  return std::filesystem::path(trimmed).filename().string();
}

int64_t countFacts(const Dataset &dataset, bool includeValid) {
  std::vector<Triple> facts = dataset.train;
  if (includeValid)
    facts.insert(facts.end(), dataset.valid.begin(), dataset.valid.end());
  std::sort(facts.begin(), facts.end());
  return std::unique(facts.begin(), facts.end()) - facts.begin();
}

int run(const Options &o) {
  const Clock::time_point start = Clock::now();
  Bundle bundle = readBundle(o.bundle);
  const double loadSeconds = secondsSince(start);

  // The device first, so that an unavailable one fails before any loading.
  std::string device = o.device;
  if (device == "auto") {
    std::string why;
    device = cudaDeviceAvailable(&why) ? "cuda" : "cpu";
  } else if (device == "cuda") {
    std::string why;
    if (!cudaDeviceAvailable(&why)) fail("--device cuda: {}", why);
  }
  std::unique_ptr<Backend> backend;
  CudaBackend *cuda = nullptr;
  std::string deviceText;
  if (device == "cuda") {
    CudaBackendOptions options;
    options.cond = parseCondMode(o.cond, "--cond");
    options.unroll = o.unroll;
    auto b = std::make_unique<CudaBackend>(bundle, o.bundle, options);
    cuda = b.get();
    backend = std::move(b);
  } else {
    HostBackendOptions options;
    options.threads = o.threads;
    const int used =
        o.threads > 0 ? o.threads
                      : std::max(1, static_cast<int>(
                                        std::thread::hardware_concurrency()));
    deviceText = fmt::format("cpu ({} thread{})", used, used == 1 ? "" : "s");
    backend = std::make_unique<HostBackend>(options);
  }

  Dataset dataset = loadDataset(o.data);
  TensorMap weights = readSafetensors(o.weights);
  checkWeights(bundle.program, dataset, weights, o.weights);
  CandidateOptions candidateOptions;
  candidateOptions.split = o.split;
  candidateOptions.corruptions = o.corruptions;
  candidateOptions.seed = o.seed;
  candidateOptions.maxQueries = o.queries;
  CandidateSet candidates = buildCandidates(dataset, candidateOptions);

  const bool includeValid = o.facts == "train+valid";
  EvalInputs inputs{bundle.program, dataset, weights, candidates, includeValid};
  BackendTimings timings;
  std::vector<Outcome> outcomes = backend->run(inputs, timings);

  ReportInputs report;
  report.program = bundle.program;
  report.datasetDir = o.data;
  report.datasetName = datasetName(o.data);
  report.entities = dataset.numEntities();
  report.relations = dataset.numRelations();
  report.facts = countFacts(dataset, includeValid);
  report.rules = static_cast<int64_t>(dataset.rules.size());
  report.factsIncludeValid = includeValid;
  report.weights = o.weights;
  report.candidates = candidateOptions;
  report.metrics = computeMetrics(candidates, outcomes);
  report.timings = timings;
  report.compileSeconds = loadSeconds;
  report.backend = backend->name();
  if (cuda) {
    const CudaRunInfo &info = cuda->info();
    // Kernel compilation (cold) or cache loads (warm) happen in setup.
    report.compileSeconds += info.cache.compileSeconds + info.cache.loadSeconds;
    report.backendDetails = cudaRunInfoJson(info);
    deviceText = fmt::format("{}, cond {}{}", info.device,
                             condModeName(info.cond),
                             info.condFellBack ? " (fallback)" : "");
  }
  report.device = deviceText;
  report.totalSeconds = secondsSince(start);

  driver::printRunSummary(stdout, report);
  if (cuda) {
    const CudaRunInfo &info = cuda->info();
    fmt::print("cuda      {} bytes on device; kernels: {} cache hit{}, {} "
               "miss{} ({:.3f} s compiling, {:.3f} s loading); {} graph "
               "launch{}, {} host flag read{}\n",
               info.deviceBytes, info.cache.hits,
               info.cache.hits == 1 ? "" : "s", info.cache.misses,
               info.cache.misses == 1 ? "" : "es", info.cache.compileSeconds,
               info.cache.loadSeconds, info.graphLaunches,
               info.graphLaunches == 1 ? "" : "es", info.hostFlagReads,
               info.hostFlagReads == 1 ? "" : "s");
  }
  if (!o.report.empty()) {
    writeReportJson(o.report, report);
    fmt::print("report    {}\n", o.report);
  }
  if (!o.outcomes.empty()) {
    writeOutcomesTsv(o.outcomes, candidates, dataset, outcomes);
    fmt::print("outcomes  {}\n", o.outcomes);
  }
  return 0;
}

int printError(const std::string &message) {
  fmt::print(stderr, "proofc-run: error: {}\n", message);
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"proofc-run: evaluate a compiled proofc bundle (.pcb) on a "
               "dataset, on the CPU or a CUDA GPU"};
  app.set_version_flag("--version", std::string("proofc-run ") + PROOFC_VERSION);
  Options o;
  app.add_option("bundle", o.bundle, "The compiled program (.pcb)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--data", o.data, "Dataset directory (train/valid/test.tsv, "
                                   "rules.txt)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--weights", o.weights, "Policy weights (.safetensors)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--split", o.split, "Split whose triples are the queries")
      ->check(CLI::IsMember({"train", "valid", "test"}))
      ->capture_default_str();
  app.add_option("--corruptions", o.corruptions,
                 "Corruptions sampled per query and mode (<= 0: all)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the corruption sampler")
      ->capture_default_str();
  app.add_option("--queries", o.queries, "Only the first N queries (< 0: all)")
      ->capture_default_str();
  app.add_option("--device", o.device, "Backend: cpu, cuda or auto")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  app.add_option("--cond", o.cond,
                 "CUDA proof loop: native (conditional graph nodes), "
                 "emulated (unrolled graph, host-polled flag), host (host "
                 "reads the flags every step)")
      ->check(CLI::IsMember({"native", "emulated", "host"}))
      ->capture_default_str();
  app.add_option("--unroll", o.unroll, "Steps per graph launch (--cond emulated)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "CPU threads (0: every hardware thread)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--facts", o.facts, "Facts the prover may use")
      ->check(CLI::IsMember({"train", "train+valid"}))
      ->capture_default_str();
  app.add_option("--report", o.report, "Write the JSON report here");
  app.add_option("--outcomes", o.outcomes,
                 "Write the per-candidate outcomes (TSV) here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return printError(e.what());
  }
  try {
    return run(o);
  } catch (const Error &e) {
    return printError(e.what());
  } catch (const std::exception &e) {
    return printError(fmt::format("internal error: {}", e.what()));
  }
}
