//===- RunSession.h - One evaluation run, shared by the tools ---*- C++ -*-===//
//
// The run flow of `proofc run` and `proofc-run` after the program and the
// backend are known, as one user of the embedding API (Session.h): the
// Session loads the dataset and builds the candidates (spec §6); this class
// adds what a command-line tool needs around it: the output paths checked
// first, the weights file read and checked, SIGINT/SIGTERM handling, a
// progress display, the summary, and the report and the outcomes written as
// one result (OutputSet, docs/outputs.md). The Session runs the backend
// over the pool in chunks (contiguous ranges of candidates, at most
// --max-pool or what the backend says fits, e.g. the device's free memory).
//
// Chunking never changes a result: a candidate's outcome depends only on the
// candidate (spec, preamble), so the concatenated chunk outcomes equal one
// pass bit for bit. SIGINT/SIGTERM during the session stop the backend at its
// next check and end the session with proofc::Interrupted; no report or
// outcomes file is written then.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_RUNSESSION_H
#define PROOFC_RUNTIME_RUNSESSION_H

#include "outputs/Provenance.h"
#include "outputs/Report.h"
#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"
#include "proofc/runtime/Safetensors.h"
#include "proofc/runtime/Session.h"
#include "session/PoolRuns.h" // chunkSizeFor, countFacts, ...
#include "session/SharedLists.h"
#include "support/SameFile.h"
#include "tooling/Interrupts.h"
#include "tooling/PartFile.h"
#include "tooling/ProofParts.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofc {

class OutcomesWriter;

/// --checkpoint-every's default on the CPU: about 9 MiB of outcomes per
/// range file, and a few minutes of the host backend's work.
inline constexpr int64_t kDefaultCheckpointEvery = int64_t{1} << 20;
/// Its default on a GPU (a backend that prefers one run size): each range is
/// its own call, with its own device setup (fb15k-237 on an H200: 0.29 s a
/// range, 162 s of a whole-split run's 326 s at 2^20), while 2^23 candidates
/// are a few seconds of GPU work (72 MiB of outcomes a range file).
inline constexpr int64_t kDefaultCheckpointEveryDevice = int64_t{1} << 23;

/// A tool's run: a session's options (candidates, backend, rank metrics,
/// the pool's cut) plus the tool's outputs and scale-out fields. The
/// tools' flags bind straight to these fields (tools/common/RunFlags.h).
struct RunSessionOptions : SessionOptions {
  std::string weights; ///< policy weights (.safetensors)
  /// True: RunOutput::outcomes holds every outcome (embedders, tests).
  /// False (the tools): none is kept, so that host memory is bounded by the
  /// blocks in flight, not the pool; the outcomes file is written as the
  /// blocks finish either way. --proofs keeps them regardless; a shard, a
  /// checkpointed run and an MPI rank never keep them (their tally does).
  bool keepOutcomes = true;
  /// The run keeps its scope's outcome rows (the TSV lines) on disk besides
  /// its tally: `--part-outcomes` (the part carries them, so that `proofc
  /// merge --outcomes` can write the file), and an MPI rank other than 0
  /// when rank 0 writes an outcomes file (it sends them). Implied by
  /// `outcomes`.
  bool outcomeRows = false;
  bool quiet = false;   ///< no progress display
  std::string report;   ///< JSON report path; empty: none
  std::string outcomes; ///< outcomes TSV path; empty: none
  /// Proofs file path (docs/proofs.md); empty: none. Set, the backend
  /// records every step's action and the proved candidates' derivations
  /// are replayed from them on the host when the outputs are written.
  std::string proofs;
  std::string proofsFormat = "json"; ///< json | prolog
  std::string proofsOf = "all";      ///< all | positives (proved ones)
  /// Where the progress display goes (a bar when it is a terminal).
  std::FILE *progressStream = stderr;
  /// Also told the candidates done after each progress update (embedders,
  /// tests); never called from two threads at once.
  std::function<void(int64_t done)> onProgress;
  /// Where the report's total_seconds starts: by default when the options
  /// are made, i.e. the tool's start, before the program is compiled/loaded.
  std::chrono::steady_clock::time_point started =
      std::chrono::steady_clock::now();
  /// The same moment on the wall clock: the report's provenance.started_utc.
  std::chrono::system_clock::time_point startedWall =
      std::chrono::system_clock::now();
  /// `--shard i/n` (docs/scale-out.md): shardCount > 0 runs only the
  /// queries of shardRange(i, n) and writes them as a part to `part`
  /// (PartFile.h) instead of a report and outcomes (`proofc merge` writes
  /// those from every part).
  int64_t shardIndex = 0, shardCount = 0;
  std::string part;
  /// `--checkpoint DIR`: finished ranges recorded in DIR and skipped when
  /// the same run is started again (Checkpoint.h); empty: none.
  std::string checkpoint;
  /// Candidates per recorded range (whole queries; splitRange); 0: auto,
  /// kDefaultCheckpointEvery or on a GPU kDefaultCheckpointEveryDevice (the
  /// session resolves it when it opens).
  int64_t checkpointEvery = 0;
  /// An MPI launch of this many ranks (tools/common/mpi, docs/scale-out.md);
  /// 0: none. The tool sets shardIndex/shardCount to rank/ranks: the rank
  /// runs its shard as --shard does, but writes no part: its shardPart()
  /// goes to rank 0, whose gatheredOutput() is the whole run's and whose
  /// writeOutputs() writes the report and the outcomes. Every rank opens
  /// the --devices list it was given (docs/scale-out.md, "MPI ranks"); a
  /// rank may replace device "cuda" by its own GPU (rankDevice()).
  int64_t mpiRanks = 0;
  /// An MPI rank that shares lists with the other ranks (docs/scale-out.md,
  /// "Shared lists"): a key whose lists lie in several shards runs on one
  /// rank only, and evaluate() leaves RunOutput::crossShard for the
  /// exchange, which resolveCrossShard() completes. The MPI launch sets it
  /// on every rank alike, where lists are shared and nothing but the tally
  /// is kept (no outcomes, proofs or checkpoint).
  bool crossShard = false;
};

/// What evaluate() produced (with --shard: the shard's tally and a report
/// over its queries).
struct RunOutput {
  /// Indexed like the candidates; empty when the options' keepOutcomes is
  /// false (and --proofs did not ask for them), and with a shard, a
  /// checkpoint or an MPI rank (PartFile.h: they keep the tally).
  std::vector<Outcome> outcomes;
  /// The tally of `range`: every list's ranks (in list order) and the
  /// outcome counts; what a part, a checkpoint range and an MPI rank carry.
  std::vector<PairRanks> pairs;
  OutcomeCounts counts;
  /// The range's outcome rows where they are on disk (checkpoint ranges, an
  /// MPI rank's spool), in order; empty when they went straight to their
  /// destination or none was asked.
  std::vector<RowSlice> rows;
  /// Every step's action (RunSessionOptions::proofs set, a whole run),
  /// else empty.
  ActionTrace actions;
  /// RunSessionOptions::proofs set and a run by ranges (--shard,
  /// --checkpoint, an MPI rank; gatheredOutput() too): the proof lines of
  /// the run's proved candidates in candidate order, without the file's
  /// header (ProofFormats.h), replayed range by range as the ranges
  /// finished or read back from the checkpoint. Unset: writeOutputs()
  /// replays them from `actions`.
  std::optional<std::string> proofLines;
  /// Complete except `compileSeconds`, which the tool knows (program
  /// compile or bundle load, kernel builds);
  /// `totalSeconds` runs from RunSessionOptions::started to the end of the
  /// run.
  ReportInputs report;
  int64_t chunks = 0;    ///< backend runs
  int64_t chunkSize = 0; ///< candidates per run (the last may have fewer)
  /// The queries this run evaluated: every query, or the shard's.
  QueryRange range;
  /// With --checkpoint: the candidates read back from recorded ranges.
  int64_t resumedCandidates = 0;
  /// RunSessionOptions::crossShard: the tallies this rank owes the others
  /// and its lists whose pairs wait for theirs (`pairs` holds them unranked
  /// and `counts` without their sources' counts until
  /// RunSession::resolveCrossShard()).
  std::optional<CrossShardTallies> crossShard;
};

/// Throws proofc::Error unless the report, outcomes and proofs paths that
/// are set can be written (checkWritable) and are different files, and the
/// proofs' format and selection are known; with a shard, unless --part is
/// set and writable and neither --report nor --outcomes is (merge writes
/// them), and --proofs, when set, names a writable file other than --part
/// (the shard's proofs part); --part without --shard is refused. No
/// output may reach another or one of the run's inputs (SameFile.h): the
/// weights, the dataset's files and `inputs` (the tool's program or
/// bundle).
void checkOutputPaths(const RunSessionOptions &options,
                      std::vector<CommandFile> inputs = {});

/// What the free space check counts for a report: far more than one takes
/// (a few kB; the CUDA backend's details included).
inline constexpr uint64_t kReportBytesBound = 1 << 20;

class RunSession {
public:
  /// Installs the interrupt handlers for the session's lifetime, checks the
  /// output paths (checkOutputPaths), then loads and checks everything
  /// (`program` runs on `backend`, which must outlive the session; `device`
  /// names it in the report), and last the free space the outputs need
  /// (checkFreeSpace, the outcomes bounded by outcomesTsvBound); throws
  /// proofc::Error on bad input and Interrupted when a signal came during
  /// loading.
  RunSession(const ProgramSpec &program, Backend &backend, std::string device,
             RunSessionOptions options);
  /// The same on several backends, one device worker each (--devices).
  RunSession(const ProgramSpec &program, const std::vector<Backend *> &backends,
             std::string device, RunSessionOptions options);
  ~RunSession();

  const ProgramSpec &program() const { return session_->program(); }
  const Dataset &dataset() const { return session_->dataset(); }
  const TensorMap &weights() const { return weights_.tensors; }
  /// Every candidate, built at the first call (Session::candidates(): 24 B
  /// each); the run never needs it.
  const CandidateSet &candidates() const { return session_->candidates(); }
  const CandidateLayout &layout() const { return session_->layout(); }
  const RunSessionOptions &options() const { return options_; }
  /// The device as the tool named it ("cpu (2 threads)", "cuda:1").
  std::string deviceName() const { return session_->deviceName(); }

  /// Runs the backend over every candidate (with a shard: the shard's) in
  /// chunks of chunkSizeFor(pool, maxPool, backend.poolCapacity()),
  /// reporting progress; with a checkpoint, range by range, skipping the
  /// recorded ranges and recording each finished one.
  RunOutput evaluate();

  /// RunSessionOptions::crossShard, after evaluate(): completes `output`'s
  /// pairs, counts and report from `imported` (every tally the other ranks
  /// sent this one; SharedLists::resolveCrossShard).
  void resolveCrossShard(RunOutput &output, std::vector<SharedTally> imported);

  /// With a shard: the part of `output` (evaluate()'s) without rows, as
  /// writeOutputs() writes it to --part and an MPI rank sends it.
  PartFile shardPart(const RunOutput &output) const;

  /// With a shard and --proofs: the shard's proofs part (ProofParts.h), as
  /// writeOutputs() writes it to --proofs; an MPI rank sends it to rank 0.
  ProofsPart shardProofs(const RunOutput &output) const;

  /// An MPI launch's rank 0: the whole run's output from every rank's
  /// tally, concatenated in rank order (`pairs`: every list's, `counts`:
  /// the sum), by the code of one run (Session::finish over wholeRange());
  /// `timings`, `chunks`, `chunkSize` and `resumed` as summed over the
  /// ranks.
  RunOutput gatheredOutput(std::vector<PairRanks> pairs,
                           const OutcomeCounts &counts,
                           const BackendTimings &timings, int64_t chunks,
                           int64_t chunkSize, int64_t resumed);

  /// An MPI launch's rank 0, after evaluate(): appends another rank's
  /// outcome rows to the outcomes file, after this run's own and those
  /// appended before (in rank order).
  void appendOutcomeRows(std::string_view rows);

  /// printRunSummary(), plus a `pool` line when the pool ran in chunks.
  void printSummary(std::FILE *out, const RunOutput &output) const;

  /// With a shard (not an MPI launch): writes the part (PartFile.h).
  /// Otherwise writes the
  /// report, the outcomes and the proofs that were asked for as one result
  /// (one OutputSet: all complete before any is visible, the report last,
  /// its "outcomes" and "proofs" naming their SHA-256), then names each on
  /// `out`. The proofs are replayed here (ProofFormats.h): a replay that
  /// fails writes nothing. Throws Interrupted, writing nothing, when a signal
  /// has come before the commit.
  void writeOutputs(const RunOutput &output, std::FILE *out = stdout) const;

  /// True when the report, the outcomes or the proofs go to standard output
  /// (`-`, or a path that is the file stdout is: /dev/stdout, its pipe): the
  /// tools then print their text on stderr.
  bool writesStandardOutput() const;

  /// Every input that determines this run's outcomes (PartFile.h).
  RunIdentity identity() const;

private:
  /// evaluate() with a shard or a checkpoint: range by range.
  RunOutput evaluateRanges();
  /// The streamed run's host threads (RunSessionOptions::threads).
  int hostThreads() const;

  /// The outputs of a streamed run, staged while it runs (the outcomes
  /// file's temporary) and committed by writeOutputs().
  struct Staged;
  /// The proofs part of `range` of this run holding `lines`.
  ProofsPart proofsPartOf(const QueryRange &range, std::string lines) const;
  /// The proof lines of a range read back from the checkpoint: the proofs
  /// part beside its file `rangeFile`, checked against this run.
  std::string resumedProofs(const QueryRange &range,
                            const std::string &rangeFile) const;
  /// The output over `scope` from its tally (Session::finish).
  RunOutput finishScope(const QueryRange &scope, std::vector<PairRanks> pairs,
                        const OutcomeCounts &counts,
                        const BackendTimings &timings, int64_t chunks,
                        int64_t chunkSize, int64_t resumed);
  /// Whether this run formats its scope's outcome rows.
  bool wantsRows() const {
    return options_.outcomeRows || !options_.outcomes.empty();
  }
  /// The outcomes file's writer (staged), made at the first call, this
  /// run's own rows kept on disk copied into it first.
  OutcomesWriter &outcomesWriter() const;

  InterruptGuard interrupts_; ///< first: covers loading too
  RunSessionOptions options_;
  std::unique_ptr<Session> session_;
  WeightsFile weights_;
  mutable std::unique_ptr<Staged> staged_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_RUNSESSION_H
