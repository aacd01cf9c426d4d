//===- RunSession.cpp - One evaluation run, shared by the tools -----------===//
#include "tooling/RunSession.h"

#include "outputs/OutcomesWriter.h"
#include "outputs/ProofFormats.h"
#include "proofc/runtime/RunControl.h"
#include "session/SessionAccess.h"
#include "support/Fail.h"
#include "support/FileIO.h"
#include "support/HostThreads.h"
#include "support/MessageText.h"
#include "support/OutputFiles.h"
#include "support/Sha256.h"
#include "support/Timing.h"
#include "tooling/Checkpoint.h"
#include "tooling/Progress.h"
#include "tooling/ProofParts.h"
#include "tooling/RunSummary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include <sys/stat.h>
#include <unistd.h>

namespace proofc {

RunSession::RunSession(const ProgramSpec &program, Backend &backend,
                       std::string device, RunSessionOptions options)
    : RunSession(program, std::vector<Backend *>{&backend}, std::move(device),
                 std::move(options)) {}

RunSession::RunSession(const ProgramSpec &program,
                       const std::vector<Backend *> &backends,
                       std::string device, RunSessionOptions options)
    : options_(std::move(options)) {
  // The destinations first: one that cannot be written fails now, not after
  // a run that may take hours.
  checkOutputPaths(options_);
  // The session's part of the options, as they are (the backends are open).
  SessionOptions so = options_;
  so.recordActions = !options_.proofs.empty();
  session_ = std::make_unique<Session>(
      SessionAccess::make(program, backends, std::move(device), so));
  if (options_.checkpointEvery == 0)
    options_.checkpointEvery = backends.front()->prefersOneRunSize()
                                   ? kDefaultCheckpointEveryDevice
                                   : kDefaultCheckpointEvery;
  InterruptGuard::throwIfRaised();
  weights_ = session_->loadWeights(options_.weights);
  InterruptGuard::throwIfRaised();
  // The outcomes' size is known now, before the run: a disk that cannot
  // hold them fails now, not after hours.
  std::vector<OutputSize> sizes;
  const uint64_t candidates = static_cast<uint64_t>(layout().candidateCount());
  if (!options_.outcomes.empty())
    sizes.push_back({options_.outcomes, outcomesTsvBound(layout(), dataset()),
                     fmt::format("the outcomes of {} candidates", candidates)});
  if (!options_.report.empty())
    sizes.push_back({options_.report, kReportBytesBound, "the report"});
  if (!options_.part.empty())
    // The tally (41 B a list) and, with --part-outcomes, the rows.
    sizes.push_back(
        {options_.part,
         82 * static_cast<uint64_t>(layout().queryCount()) + kReportBytesBound +
             (options_.outcomeRows ? outcomesTsvBound(layout(), dataset()) : 0),
         "the shard's part"});
  checkFreeSpace(sizes);
}

namespace {

/// An MPI rank's outcome rows, kept on disk until they go to rank 0: a
/// temporary file of TMPDIR (or /tmp), removed with the spool.
class RowSpool {
public:
  RowSpool() {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec)
      dir = "/tmp";
    path_ = (dir / "proofc-rows-XXXXXX").string();
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0)
      fail("{}: cannot create the outcome rows' spool: {}",
           escapeForMessage(path_), std::strerror(errno));
  }
  ~RowSpool() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  RowSpool(const RowSpool &) = delete;
  RowSpool &operator=(const RowSpool &) = delete;

  void append(std::string_view bytes) {
    for (size_t at = 0; at < bytes.size();) {
      const ssize_t n = ::write(fd_, bytes.data() + at, bytes.size() - at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fail("{}: cannot write the outcome rows' spool: {}",
             escapeForMessage(path_), std::strerror(errno));
      at += static_cast<size_t>(n);
    }
    bytes_ += bytes.size();
  }
  RowSlice slice() const { return {path_, 0, bytes_, "", {}, false}; }

private:
  std::string path_;
  int fd_ = -1;
  uint64_t bytes_ = 0;
};

} // namespace

struct RunSession::Staged {
  OutputSet set;
  std::unique_ptr<OutcomesWriter> outcomes;
  std::string outcomesSha256;
  /// This run's rows on disk, not yet copied into `outcomes`.
  std::vector<RowSlice> ownRows;
  /// A shard's part, its rows written as the run goes (no checkpoint).
  std::unique_ptr<PartWriter> part;
  /// An MPI rank's rows (no checkpoint).
  std::unique_ptr<RowSpool> spool;
};

RunSession::~RunSession() = default;

int RunSession::hostThreads() const {
  return hostThreadCount(options_.threads);
}

RunIdentity RunSession::identity() const {
  RunIdentity id;
  id.programSha256 = "sha256:" + sha256Hex(programJson(program()).dump());
  id.weightsSha256 = "sha256:" + weights_.sha256;
  id.datasetFingerprint = SessionAccess::datasetFingerprint(*session_);
  id.split = options_.split;
  id.corruptions = options_.corruptions;
  id.seed = options_.seed;
  id.queries = options_.queries;
  id.factsIncludeValid = options_.factsIncludeValid;
  if (options_.shardCount > 0) {
    id.shardIndex = options_.shardIndex;
    id.shardCount = options_.shardCount;
  }
  return id;
}

RunOutput RunSession::evaluateRanges() {
  const CandidateLayout &set = layout();
  const QueryRange scope =
      options_.shardCount > 0
          ? shardRange(set, options_.shardIndex, options_.shardCount)
          : wholeRange(set);
  const bool rows = wantsRows();
  if (options_.crossShard &&
      (options_.shardCount < 2 || options_.mpiRanks == 0 || rows ||
       !options_.proofs.empty() || !options_.checkpoint.empty() ||
       !options_.shareLists))
    fail("lists shared across shards need an MPI rank that keeps only its "
         "tally (no outcomes, proofs or checkpoint) and shares lists");
  std::optional<CrossShardTallies> cross;
  if (options_.crossShard)
    cross.emplace();
  // Every range's tally (recorded before or run now), in query order at the
  // end; with a checkpoint, their rows are in the range files.
  std::vector<PartFile> pieces;
  std::vector<QueryRange> pending{scope};
  int64_t resumed = 0;
  std::unique_ptr<Checkpoint> checkpoint;
  if (!options_.checkpoint.empty()) {
    checkpoint = std::make_unique<Checkpoint>(options_.checkpoint, identity(),
                                              set, scope);
    pending =
        checkpoint->resume(options_.checkpointEvery, rows, pieces, resumed);
  }
  // With --proofs: each range's proof lines, by its first query; a recorded
  // range's are read back from the proofs part beside its file.
  std::map<int64_t, std::string> proofs;
  std::unique_ptr<ProofLineWriter> proofWriter;
  if (!options_.proofs.empty()) {
    proofWriter = std::make_unique<ProofLineWriter>(
        parseProofFormat(options_.proofsFormat, "--proofs-format"),
        parseProofSelection(options_.proofsOf, "--proofs-of"), dataset(),
        options_.factsIncludeValid, program().shape);
    if (checkpoint)
      for (const auto &[range, file] : checkpoint->resumed())
        proofs[range.queryBegin] = resumedProofs(range, file);
  }
  InterruptGuard::throwIfRaised();
  // Without a checkpoint the rows go straight where they end: the outcomes
  // file (one process, MPI's rank 0), the part (a shard), the spool (an
  // MPI rank that sends them).
  staged_ = std::make_unique<Staged>();
  std::function<void(std::string_view)> direct;
  if (!checkpoint) {
    if (options_.shardCount > 0 && options_.mpiRanks == 0) {
      staged_->part = std::make_unique<PartWriter>(options_.part, rows);
      if (rows)
        direct = [this](std::string_view b) { staged_->part->appendRows(b); };
    } else if (!options_.outcomes.empty()) {
      staged_->outcomes = std::make_unique<OutcomesWriter>(
          staged_->set, options_.outcomes, dataset(), hostThreads());
    } else if (rows) {
      staged_->spool = std::make_unique<RowSpool>();
      direct = [this](std::string_view b) { staged_->spool->append(b); };
    }
  }
  ProgressReporter progress(
      scope.candidates(),
      progressStyleFor(options_.progressStream, options_.quiet),
      options_.progressStream);
  int64_t done = resumed;
  std::string rangeProofs;
  EvaluateControl control;
  control.cancel = &InterruptGuard::flag();
  control.keepOutcomes = false; // the tally and the rows are kept
  control.progress = [&](int64_t finished, int64_t) {
    progress.update(done + finished);
    if (options_.onProgress)
      options_.onProgress(done + finished);
  };
  BackendTimings timings;
  int64_t chunks = 0, chunkSize = 0;
  // A checkpointed run that keeps only the tally shares lists across its
  // ranges too (docs/scale-out.md, "Shared lists"): a key several pending
  // ranges hold runs in the first of them, whose tally the later ones take
  // before they are recorded, so every recorded range is complete (a
  // resumed run plans over the ranges it has left).
  const bool acrossRanges = checkpoint && !cross && !rows && !proofWriter &&
                            options_.shareLists && pending.size() > 1;
  ShardSharing rangeSharing;
  if (acrossRanges)
    rangeSharing = SessionAccess::rangeSharing(*session_, pending);
  // The tallies of the ranges run so far, by key, until the last range
  // that takes each.
  std::unordered_map<int64_t, SharedTally> earlier;
  std::unordered_map<int64_t, int32_t> lastTaker;
  for (size_t index = 0; index < pending.size(); ++index) {
    const QueryRange &range = pending[index];
    InterruptGuard::throwIfRaised();
    std::unique_ptr<PartWriter> writer =
        checkpoint ? checkpoint->begin(range, rows) : nullptr;
    std::unique_ptr<OutcomesWriter> formatter;
    if (writer && rows)
      formatter = std::make_unique<OutcomesWriter>(
          [&](std::string_view b) { writer->appendRows(b); }, dataset(),
          hostThreads());
    else if (direct)
      formatter =
          std::make_unique<OutcomesWriter>(direct, dataset(), hostThreads());
    OutcomesWriter *lines =
        formatter ? formatter.get() : staged_->outcomes.get();
    // Each finished block: its outcome rows to their sink, its proof lines
    // to the range's (both in candidate order).
    control.onBlock = {};
    if (lines || proofWriter)
      control.onBlock = [&, lines](const OutcomeBlock &block) {
        if (lines)
          lines->write(block.candidates, block.outcomes, block.pairs);
        if (proofWriter)
          rangeProofs +=
              proofWriter->lines(block.candidates, block.range.candidateBegin,
                                 block.outcomes, *block.actions);
      };
    rangeProofs.clear();
    // Sharing across shards (an MPI rank) or across this run's ranges.
    CrossShardTallies rangeCross;
    std::optional<CrossShardCall> shared;
    if (cross)
      shared = CrossShardCall{
          &SessionAccess::shardSharing(*session_, options_.shardCount),
          static_cast<int32_t>(options_.shardIndex), &*cross};
    else if (acrossRanges)
      shared = CrossShardCall{&rangeSharing, static_cast<int32_t>(index),
                              &rangeCross};
    RangeResult r = shared ? SessionAccess::evaluateShard(
                                 *session_, weights_, range, control, *shared)
                           : session_->evaluateRange(weights_, range, control);
    if (acrossRanges) {
      SharedLists::resolveCrossShard(rangeCross, earlier, 2 * range.queryBegin,
                                     r.pairs, r.counts);
      for (CrossShardTallies::Export &e : rangeCross.exports) {
        lastTaker[e.tally.key] = e.to.back(); // an owner's key has others
        const int64_t key = e.tally.key;
        earlier.emplace(key, std::move(e.tally));
      }
      for (auto it = lastTaker.begin(); it != lastTaker.end();) {
        if (it->second <= static_cast<int32_t>(index)) {
          earlier.erase(it->first);
          it = lastTaker.erase(it);
        } else {
          ++it;
        }
      }
    }
    InterruptGuard::throwIfRaised();
    if (checkpoint) {
      if (proofWriter)
        // Before the range's part: a recorded range always has its proofs.
        writeAtomically(checkpointProofsPath(checkpoint->rangeFile(range)),
                        serializeProofsPart(proofsPartOf(range, rangeProofs)));
      pieces.push_back(
          checkpoint->record(*writer, range, std::move(r.pairs), r.counts));
    } else {
      PartFile piece;
      piece.range = range;
      piece.pairs = std::move(r.pairs);
      piece.counts = r.counts;
      pieces.push_back(std::move(piece));
    }
    if (proofWriter)
      proofs[range.queryBegin] = std::move(rangeProofs);
    timings.setupSeconds += r.timings.setupSeconds;
    timings.runSeconds += r.timings.runSeconds;
    timings.readbackSeconds += r.timings.readbackSeconds;
    timings.steps += r.timings.steps;
    chunks += r.chunks;
    chunkSize = std::max(chunkSize, r.chunkSize);
    done += range.candidates();
  }
  progress.finish();
  std::sort(pieces.begin(), pieces.end(),
            [](const PartFile &a, const PartFile &b) {
              return a.range.queryBegin < b.range.queryBegin;
            });
  std::vector<PairRanks> pairs;
  pairs.reserve(static_cast<size_t>(2 * scope.queries()));
  OutcomeCounts counts;
  std::vector<RowSlice> slices;
  for (PartFile &piece : pieces) {
    pairs.insert(pairs.end(), piece.pairs.begin(), piece.pairs.end());
    counts.add(piece.counts);
    if (checkpoint && rows)
      slices.push_back(piece.rows);
  }
  if (staged_->spool)
    slices.push_back(staged_->spool->slice());
  if (cross) {
    // Pairs unranked and counts short of other shards' tallies: the report
    // is made by resolveCrossShard() (no rows or proofs here).
    RunOutput out;
    out.pairs = std::move(pairs);
    out.counts = counts;
    out.report.timings = timings;
    out.chunks = chunks;
    out.chunkSize = chunkSize;
    out.range = scope;
    out.crossShard = std::move(cross);
    return out;
  }
  RunOutput out = finishScope(scope, std::move(pairs), counts, timings, chunks,
                              chunkSize, resumed);
  out.rows = std::move(slices);
  if (!options_.outcomes.empty())
    staged_->ownRows = out.rows;
  if (proofWriter) {
    out.proofLines.emplace();
    for (const auto &[begin, lines] : proofs)
      *out.proofLines += lines;
  }
  return out;
}

void RunSession::resolveCrossShard(RunOutput &output,
                                   std::vector<SharedTally> imported) {
  if (!output.crossShard)
    fail("resolveCrossShard: the run shared no list across shards");
  std::vector<PairRanks> pairs = std::move(output.pairs);
  OutcomeCounts counts = output.counts;
  SharedLists::resolveCrossShard(*output.crossShard, std::move(imported),
                                 2 * output.range.queryBegin, pairs, counts);
  output =
      finishScope(output.range, std::move(pairs), counts, output.report.timings,
                  output.chunks, output.chunkSize, output.resumedCandidates);
}

ProofsPart RunSession::proofsPartOf(const QueryRange &range,
                                    std::string lines) const {
  ProofsPart part;
  part.identity = identity();
  part.range = range;
  part.format = options_.proofsFormat;
  part.of = options_.proofsOf;
  part.lines = std::move(lines);
  return part;
}

std::string RunSession::resumedProofs(const QueryRange &range,
                                      const std::string &rangeFile) const {
  const std::string path = checkpointProofsPath(rangeFile);
  const std::string remedy =
      "resume with the --proofs-format and --proofs-of the checkpoint was "
      "started with, or without --proofs, or give another --checkpoint "
      "directory";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    fail("{}: recorded without --proofs (there is no {}); resume without "
         "--proofs, or give another --checkpoint directory",
         rangeFile, path);
  const ProofsPart part = readProofsPart(path);
  checkProofsPart(part, path, identity(), range, options_.proofsFormat,
                  options_.proofsOf, /*ignoreShardIndex=*/false, remedy);
  return part.lines;
}

RunOutput RunSession::finishScope(const QueryRange &scope,
                                  std::vector<PairRanks> pairs,
                                  const OutcomeCounts &counts,
                                  const BackendTimings &timings, int64_t chunks,
                                  int64_t chunkSize, int64_t resumed) {
  RunOutput out;
  out.pairs = pairs;
  out.counts = counts;
  ReportedResult finished =
      SessionAccess::finish(*session_, weights_, scope, std::move(pairs),
                            counts, timings, chunks, chunkSize);
  out.report = std::move(finished.report);
  out.chunks = finished.result.chunks;
  out.chunkSize = finished.result.chunkSize;
  out.range = scope;
  out.resumedCandidates = resumed;
  out.report.totalSeconds = secondsSince(options_.started);
  out.report.provenance.startedUtc = utcTimestamp(options_.startedWall);
  return out;
}

RunOutput RunSession::evaluate() {
  if (options_.shardCount > 0 || !options_.checkpoint.empty())
    return evaluateRanges();
  const int64_t total = layout().candidateCount();
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
  // The proofs are replayed from every outcome and action at the end.
  control.keepOutcomes = options_.keepOutcomes || !options_.proofs.empty();
  InterruptGuard::throwIfRaised();
  // The outcomes file is written as the blocks finish, into its temporary
  // (nothing is visible before writeOutputs() commits).
  staged_ = std::make_unique<Staged>();
  if (!options_.outcomes.empty()) {
    staged_->outcomes = std::make_unique<OutcomesWriter>(
        staged_->set, options_.outcomes, dataset(), hostThreads());
    control.onBlock = [this](const OutcomeBlock &block) {
      staged_->outcomes->write(block.candidates, block.outcomes, block.pairs);
    };
  }
  ReportedResult result;
  try {
    result = SessionAccess::evaluate(*session_, weights_, control);
    if (staged_->outcomes)
      staged_->outcomesSha256 = staged_->outcomes->finish();
  } catch (...) {
    staged_.reset(); // its temporaries removed
    throw;
  }
  InterruptGuard::throwIfRaised();
  progress.finish();

  RunOutput out;
  out.outcomes = std::move(result.result.outcomes);
  out.actions = std::move(result.result.actions);
  out.report = std::move(result.report);
  out.chunks = result.result.chunks;
  out.chunkSize = result.result.chunkSize;
  out.range = wholeRange(layout());
  // The tool's run started before the program was compiled or loaded.
  out.report.totalSeconds = secondsSince(options_.started);
  out.report.provenance.startedUtc = utcTimestamp(options_.startedWall);
  return out;
}

RunOutput RunSession::gatheredOutput(std::vector<PairRanks> pairs,
                                     const OutcomeCounts &counts,
                                     const BackendTimings &timings,
                                     int64_t chunks, int64_t chunkSize,
                                     int64_t resumed) {
  RunOutput out = finishScope(wholeRange(layout()), std::move(pairs), counts,
                              timings, chunks, chunkSize, resumed);
  out.report.mpiRanks = options_.mpiRanks;
  return out;
}

OutcomesWriter &RunSession::outcomesWriter() const {
  if (!staged_)
    staged_ = std::make_unique<Staged>();
  if (!staged_->outcomes) {
    staged_->outcomes = std::make_unique<OutcomesWriter>(
        staged_->set, options_.outcomes, dataset(), hostThreads());
    OutcomesWriter &writer = *staged_->outcomes;
    copyRows(staged_->ownRows,
             [&](std::string_view b) { writer.appendRows(b); });
    staged_->ownRows.clear();
  }
  return *staged_->outcomes;
}

void RunSession::appendOutcomeRows(std::string_view rows) {
  if (options_.outcomes.empty())
    fail("outcome rows for a run that writes no outcomes file");
  outcomesWriter().appendRows(rows);
}

void RunSession::printSummary(std::FILE *out, const RunOutput &output) const {
  if (options_.mpiRanks > 0)
    fmt::print(out, "mpi       {} ranks, one shard of the queries each\n",
               options_.mpiRanks);
  else if (options_.shardCount > 0)
    fmt::print(out,
               "shard     {}/{}: queries [{}, {}) of {}, candidates [{}, {}) "
               "(metrics below: this shard's)\n",
               options_.shardIndex, options_.shardCount,
               output.range.queryBegin, output.range.queryEnd,
               layout().queryCount(), output.range.candidateBegin,
               output.range.candidateEnd);
  if (!options_.checkpoint.empty())
    // An MPI rank's directory is DIR/rank-r-of-N; rank 0 counts every rank's.
    fmt::print(
        out, "checkpoint {}: {} of {} candidates read back\n",
        options_.mpiRanks > 0
            ? std::filesystem::path(options_.checkpoint).parent_path().string()
            : options_.checkpoint,
        output.resumedCandidates, output.range.candidates());
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

PartFile RunSession::shardPart(const RunOutput &output) const {
  PartFile part;
  part.kind = "shard";
  part.identity = identity();
  part.range = output.range;
  part.totalQueries = layout().queryCount();
  part.totalCandidates = layout().candidateCount();
  part.rankMetrics = options_.rankMetrics;
  part.report = reportJson(output.report);
  part.pairs = output.pairs;
  part.counts = output.counts;
  return part;
}

ProofsPart RunSession::shardProofs(const RunOutput &output) const {
  if (!output.proofLines)
    fail("--proofs {}: the shard's run has no proofs", options_.proofs);
  return proofsPartOf(output.range, *output.proofLines);
}

void RunSession::writeOutputs(const RunOutput &output, std::FILE *out) const {
  InterruptGuard::throwIfRaised();
  if (options_.shardCount > 0 && options_.mpiRanks == 0) {
    // The proofs part first: a part that is there has its proofs.
    if (!options_.proofs.empty())
      writeAtomically(options_.proofs,
                      serializeProofsPart(shardProofs(output)));
    // The part's rows were written as the run went, or are in the
    // checkpoint's range files: copied, never held.
    std::unique_ptr<PartWriter> writer;
    if (staged_ && staged_->part) {
      writer = std::move(staged_->part);
    } else {
      writer = std::make_unique<PartWriter>(options_.part, wantsRows());
      copyRows(output.rows, [&](std::string_view b) { writer->appendRows(b); });
    }
    PartFile part = shardPart(output);
    writer->commit(part);
    fmt::print(out, "part      {}\n", options_.part);
    if (!options_.proofs.empty())
      fmt::print(out, "proofs    {}\n", options_.proofs);
    return;
  }
  // One result: all staged (a streamed run's outcomes file already is),
  // then the outcomes and the report (last) made visible together
  // (OutputFiles.h, docs/outputs.md).
  if (!options_.outcomes.empty() &&
      (!staged_ || staged_->outcomesSha256.empty())) {
    OutcomesWriter &writer = outcomesWriter();
    staged_->outcomesSha256 = writer.finish();
  }
  std::unique_ptr<Staged> staged = std::move(staged_);
  if (!staged)
    staged = std::make_unique<Staged>();
  OutputSet &set = staged->set;
  ReportInputs report = output.report;
  if (!options_.outcomes.empty()) {
    report.outcomesFile = options_.outcomes;
    report.outcomesSha256 = staged->outcomesSha256;
  }
  if (!options_.proofs.empty()) {
    const ProofFormat format =
        parseProofFormat(options_.proofsFormat, "--proofs-format");
    const ProofSelection of =
        parseProofSelection(options_.proofsOf, "--proofs-of");
    // A run by ranges made its lines range by range; a whole run's are
    // replayed from every outcome and action now.
    std::string text =
        output.proofLines
            ? proofsFileHeader(format) + *output.proofLines
            : proofsFile(format, of, dataset(), options_.factsIncludeValid,
                         program().shape, candidates(), output.outcomes,
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
