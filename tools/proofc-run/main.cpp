//===- main.cpp - proofc-run: evaluate a compiled bundle ------------------===//
//
// proofc-run PROGRAM.pcb --data DIR --weights W [--split --corruptions --seed
// --queries --device cpu|cuda|auto --cond native|emulated|host --unroll
// --threads --facts --max-pool --quiet --report --outcomes]
//
// The runtime-only counterpart of `proofc run`: the program comes from a
// bundle written by `proofc compile`, so no MLIR is needed. The options,
// summary and report are those of `proofc run`; --cond and --unroll pick how
// the CUDA backend runs the proof loop. The run itself is the runtime's
// RunSession. Every failure ends as one line on stderr (`proofc-run: error:
// ...`) and exit code 1; an interrupted run as `proofc-run: interrupted by
// SIGINT` and exit code 128 + the signal (130, or 143 for SIGTERM).
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Bundle.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/HostBackend.h"
#include "proofc/runtime/RunControl.h"
#include "proofc/runtime/RunSession.h"
#include "proofc/runtime/RunSummary.h"
#include "proofc/runtime/cuda/CudaBackend.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
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
  int64_t maxPool = 0;
  bool quiet = false;
  std::string report, outcomes;
};

int run(const Options &o) {
  const Clock::time_point start = Clock::now();
  Bundle bundle = readBundle(o.bundle);
  const double loadSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();

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

  RunSessionOptions so;
  so.data = o.data;
  so.weights = o.weights;
  so.split = o.split;
  so.corruptions = o.corruptions;
  so.seed = o.seed;
  so.queries = o.queries;
  so.factsIncludeValid = o.facts == "train+valid";
  so.maxPool = o.maxPool;
  so.quiet = o.quiet;
  so.report = o.report;
  so.outcomes = o.outcomes;
  so.started = start;
  RunSession session(bundle.program, so);

  RunOutput out = session.evaluate(*backend, deviceText);
  out.report.compileSeconds = loadSeconds;
  if (cuda) {
    const CudaRunInfo &info = cuda->info();
    // Kernel compilation (cold) or cache loads (warm) happen in setup.
    out.report.compileSeconds +=
        info.cache.compileSeconds + info.cache.loadSeconds;
    out.report.backendDetails = cudaRunInfoJson(info);
    out.report.device = fmt::format("{}, cond {}{}", info.device,
                                    condModeName(info.cond),
                                    info.condFellBack ? " (fallback)" : "");
  }

  session.printSummary(stdout, out);
  if (cuda)
    printCudaRunInfo(stdout, cuda->info());
  session.writeOutputs(out);
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
  app.add_option("--max-pool", o.maxPool,
                 "Candidates per backend run (<= 0: as many as fit)")
      ->capture_default_str();
  app.add_flag("--quiet", o.quiet, "No progress display on stderr");
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
  } catch (const Interrupted &e) {
    // Ctrl-C / SIGTERM: say so and exit 128 + the signal, like a shell.
    fmt::print(stderr, "proofc-run: {}\n", e.what());
    return e.exitCode();
  } catch (const Error &e) {
    return printError(e.what());
  } catch (const std::exception &e) {
    return printError(fmt::format("internal error: {}", e.what()));
  }
}
