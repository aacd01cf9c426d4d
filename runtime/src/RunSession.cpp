//===- RunSession.cpp - One evaluation run, shared by the tools -----------===//
#include "RunSession.h"

#include "Fail.h"
#include "FileIO.h"
#include "MessageText.h"
#include "OutputFiles.h"
#include "ProofFormats.h"
#include "Progress.h"
#include "RunSummary.h"
#include "Sha256.h"
#include "proofc/runtime/RunControl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

namespace proofc {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

int64_t chunkSizeFor(int64_t total, int64_t maxPool, int64_t capacity) {
  int64_t size = std::max<int64_t>(total, 1);
  if (maxPool > 0)
    size = std::min(size, maxPool);
  if (capacity > 0)
    size = std::min(size, capacity);
  return size;
}

std::string datasetNameOf(const std::string &dir) {
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/')
    trimmed.pop_back();
  return std::filesystem::path(trimmed).filename().string();
}

int64_t countFacts(const Dataset &dataset, bool includeValid) {
  std::vector<Triple> facts = dataset.train;
  if (includeValid)
    facts.insert(facts.end(), dataset.valid.begin(), dataset.valid.end());
  std::sort(facts.begin(), facts.end());
  return std::unique(facts.begin(), facts.end()) - facts.begin();
}

void checkOutputPaths(const RunSessionOptions &options) {
  struct Output {
    const std::string &path;
    const char *what, *flag;
  };
  const Output outputs[] = {{options.report, "report", "--report"},
                            {options.outcomes, "outcomes", "--outcomes"},
                            {options.proofs, "proofs", "--proofs"}};
  namespace fs = std::filesystem;
  for (size_t i = 0; i < std::size(outputs); ++i)
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const Output &a = outputs[i], &b = outputs[j];
      if (a.path.empty() || b.path.empty())
        continue;
      std::error_code e1, e2;
      const fs::path pa = fs::weakly_canonical(a.path, e1);
      const fs::path pb = fs::weakly_canonical(b.path, e2);
      if (a.path == b.path || (!e1 && !e2 && pa == pb))
        fail("{}: the {} and the {} would overwrite each other ({} and {} "
             "name the same file)",
             a.path, a.what, b.what, a.flag, b.flag);
    }
  if (!options.proofs.empty()) {
    parseProofFormat(options.proofsFormat, "--proofs-format");
    parseProofSelection(options.proofsOf, "--proofs-of");
  }
  for (const Output &o : outputs)
    if (!o.path.empty())
      checkWritable(o.path);
}

void checkFiniteOutcomes(const CandidateSet &pool, const Dataset &dataset,
                         const std::vector<Outcome> &outcomes, int64_t first) {
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!std::isnan(outcomes[i].logp))
      continue;
    const int64_t index = first + static_cast<int64_t>(i);
    const Candidate &c = pool.candidates.at(static_cast<size_t>(index));
    const Triple &q = pool.queries.at(static_cast<size_t>(c.query));
    auto entity = [&](int32_t id) {
      return escapeForMessage(dataset.entities.name(id));
    };
    fail("non-finite logit for candidate {}: query {} ({} {} {}), mode {}, "
         "entity {} ({}); the weights make the policy overflow (check the "
         "layer norms' and linears' magnitudes)",
         index, c.query, entity(q.h),
         escapeForMessage(dataset.relations.name(q.r)), entity(q.t),
         modeName(c.mode), c.entity, entity(c.entity));
  }
}

RunSession::RunSession(const ProgramSpec &program, Backend &backend,
                       std::string device, RunSessionOptions options)
    : options_(std::move(options)) {
  // The destinations first: one that cannot be written fails now, not after
  // a run that may take hours.
  checkOutputPaths(options_);
  SessionOptions so;
  so.data = options_.data;
  so.split = options_.split;
  so.corruptions = options_.corruptions;
  so.seed = options_.seed;
  so.queries = options_.queries;
  so.factsIncludeValid = options_.factsIncludeValid;
  so.maxPool = options_.maxPool;
  so.recordActions = !options_.proofs.empty();
  so.rankMetrics = options_.rankMetrics;
  so.commandLine = options_.commandLine;
  session_ =
      std::make_unique<Session>(program, backend, std::move(device), so);
  InterruptGuard::throwIfRaised();
  weights_ = session_->loadWeights(options_.weights);
  InterruptGuard::throwIfRaised();
  // The outcomes' size is known now, before the run: a disk that cannot
  // hold them fails now, not after hours.
  std::vector<OutputSize> sizes;
  if (!options_.outcomes.empty())
    sizes.push_back({options_.outcomes,
                     outcomesTsvBound(candidates(), dataset()),
                     fmt::format("the outcomes of {} candidates",
                                 candidates().candidates.size())});
  if (!options_.report.empty())
    sizes.push_back({options_.report, kReportBytesBound, "the report"});
  checkFreeSpace(sizes);
}

RunOutput RunSession::evaluate() {
  const int64_t total = static_cast<int64_t>(candidates().candidates.size());
  ProgressReporter progress(
      total, progressStyleFor(options_.progressStream, options_.quiet),
      options_.progressStream);
  EvaluateControl control;
  control.cancel = &InterruptGuard::flag();
  control.progress = [&](int64_t done, int64_t) {
    progress.update(done);
    if (options_.onProgress)
      options_.onProgress(done);
  };
  InterruptGuard::throwIfRaised();
  SessionResult result = session_->evaluate(weights_, control);
  InterruptGuard::throwIfRaised();
  progress.finish();

  RunOutput out;
  out.outcomes = std::move(result.outcomes);
  out.actions = std::move(result.actions);
  out.report = *result.report;
  out.chunks = result.chunks;
  out.chunkSize = result.chunkSize;
  // The tool's run started before the program was compiled or loaded.
  out.report.totalSeconds = secondsSince(options_.started);
  out.report.provenance.startedUtc = utcTimestamp(options_.startedWall);
  return out;
}

void RunSession::printSummary(std::FILE *out, const RunOutput &output) const {
  printRunSummary(out, output.report);
  if (output.chunks > 1)
    fmt::print(out, "pool      {} chunks of at most {} candidates\n",
               output.chunks, output.chunkSize);
}

bool RunSession::writesStandardOutput() const {
  // `-`, or whatever file stdout is (/dev/stdout, its pipe, its file).
  struct stat out;
  const bool haveOut = ::fstat(STDOUT_FILENO, &out) == 0;
  for (const std::string *path :
       {&options_.report, &options_.outcomes, &options_.proofs}) {
    if (*path == "-")
      return true;
    struct stat st;
    if (haveOut && !path->empty() && ::stat(path->c_str(), &st) == 0 &&
        st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      return true;
  }
  return false;
}

void RunSession::writeOutputs(const RunOutput &output, std::FILE *out) const {
  InterruptGuard::throwIfRaised();
  // One result: both staged, then the outcomes and the report (last) made
  // visible together (OutputFiles.h, docs/outputs.md).
  OutputSet set;
  ReportInputs report = output.report;
  if (!options_.outcomes.empty()) {
    std::string tsv = outcomesTsv(options_.outcomes, candidates(), dataset(),
                                  output.outcomes);
    report.outcomesFile = options_.outcomes;
    report.outcomesSha256 = sha256Hex(tsv);
    set.add(options_.outcomes, std::move(tsv));
  }
  if (!options_.proofs.empty()) {
    const ProofFormat format =
        parseProofFormat(options_.proofsFormat, "--proofs-format");
    const ProofSelection of =
        parseProofSelection(options_.proofsOf, "--proofs-of");
    std::string text = proofsFile(format, of, dataset(),
                                  options_.factsIncludeValid, program().shape,
                                  candidates(), output.outcomes,
                                  output.actions);
    report.proofsFile = options_.proofs;
    report.proofsSha256 = sha256Hex(text);
    report.proofsFormat = options_.proofsFormat;
    report.proofsOf = options_.proofsOf;
    report.proofsCount = std::count(text.begin(), text.end(), '\n') -
                         (format == ProofFormat::Prolog ? 1 : 0);
    set.add(options_.proofs, std::move(text));
  }
  if (!options_.report.empty())
    set.add(options_.report, reportJson(report).dump(2) + "\n");
  set.commit();
  if (!options_.report.empty())
    fmt::print(out, "report    {}\n", options_.report);
  if (!options_.outcomes.empty())
    fmt::print(out, "outcomes  {}\n", options_.outcomes);
  if (!options_.proofs.empty())
    fmt::print(out, "proofs    {} ({} proofs)\n", options_.proofs,
               report.proofsCount);
}

} // namespace proofc
