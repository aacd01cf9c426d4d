//===- RunCommand.cpp - proofc run ----------------------------------------===//
//
// Compile (parse, verify, export), bind the dataset, weights and candidates,
// run the chosen backend, then summarize and write the report and outcomes.
// The backend is chosen before anything is loaded so that an unavailable
// device fails at once.
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"
#include "Commands.h"
#include "ProgramLoader.h"
#include "RunSummary.h"

#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Report.h"
#include "proofc/runtime/Safetensors.h"
#include "proofc/runtime/cuda/CudaBackend.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

using namespace proofc;

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The last component of a dataset directory ("../data/kinship/" -> kinship).
std::string datasetName(const std::string &dir) {
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/')
    trimmed.pop_back();
  return std::filesystem::path(trimmed).filename().string();
}

/// |F|: the distinct facts the prover may use (spec §1.1).
int64_t countFacts(const Dataset &dataset, bool includeValid) {
  std::vector<Triple> facts = dataset.train;
  if (includeValid)
    facts.insert(facts.end(), dataset.valid.begin(), dataset.valid.end());
  std::sort(facts.begin(), facts.end());
  return std::unique(facts.begin(), facts.end()) - facts.begin();
}
} // namespace

int driver::runCommand(const RunOptions &o) {
  Clock::time_point start = Clock::now();
  std::optional<ProgramSpec> program = loadProgramSpec(o.program);
  if (!program)
    return 1;
  double compileSeconds = secondsSince(start);
  SelectedBackend selected =
      selectBackend(o.device, o.threads, program->shape.B, o.program);

  Dataset dataset = loadDataset(o.data);
  TensorMap weights = readSafetensors(o.weights);
  checkWeights(*program, dataset, weights, o.weights);
  CandidateOptions candidateOptions;
  candidateOptions.split = o.split;
  candidateOptions.corruptions = o.corruptions;
  candidateOptions.seed = o.seed;
  candidateOptions.maxQueries = o.queries;
  CandidateSet candidates = buildCandidates(dataset, candidateOptions);

  bool includeValid = o.facts == "train+valid";
  EvalInputs inputs{*program, dataset, weights, candidates, includeValid};
  BackendTimings timings;
  std::vector<Outcome> outcomes = selected.backend->run(inputs, timings);

  ReportInputs report;
  report.program = *program;
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
  report.compileSeconds = compileSeconds;
  report.backend = selected.backend->name();
  report.device = selected.device;
  if (auto *cuda = dynamic_cast<CudaBackend *>(selected.backend.get())) {
    // Kernels are compiled (cold) or loaded from the disk cache (warm) in
    // the backend's setup; the report says which.
    const CudaRunInfo &info = cuda->info();
    report.compileSeconds += info.cache.compileSeconds + info.cache.loadSeconds;
    report.backendDetails = cudaRunInfoJson(info);
  }
  report.totalSeconds = secondsSince(start);

  printRunSummary(stdout, report);
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
