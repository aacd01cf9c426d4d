//===- Session.h - Load once, evaluate many weight sets ---------*- C++ -*-===//
//
// The embedding API of the runtime. A Session binds, once, a compiled
// program (a bundle written by `proofc compile`), a dataset, a candidate
// specification (split, queries, corruptions, seed, facts) and a device;
// evaluate() then runs any number of weight sets over the same candidates.
// On CUDA the context, the modules, the knowledge base, the candidate pool,
// the buffers and the graph persist across calls; a call uploads the weights
// (device to device when they already are on the session's GPU), runs the
// weight prologue (folding), the proof loop and the readback, and nothing
// else. Whatever depends on the weights (the folded tables, the step memo)
// starts fresh at every call: evaluating A, B, A gives A's results twice,
// bit for bit, equal to a fresh `proofc-run` with A.
//
// The library never installs signal handlers and never prints: progress and
// cancellation go through EvaluateControl, every error is a proofc::Error
// (a cancelled call throws its subclass proofc::Interrupted, after which the
// session is usable again). docs/embedding.md shows a complete program.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SESSION_H
#define PROOFC_RUNTIME_SESSION_H

#include "proofc/contract/Program.h"
#include "proofc/runtime/Candidates.h"
#include "proofc/runtime/Dataset.h"
#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/QueryRanges.h"
#include "proofc/runtime/RankMetrics.h"
#include "proofc/runtime/Rollouts.h"
#include "proofc/runtime/Safetensors.h"
#include "proofc/runtime/TensorView.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace proofc {

/// SessionOptions::blockCandidates' default: big enough that a block keeps a
/// GPU busy (a backend run of this many candidates), small enough that the
/// few blocks in flight (candidates 24 B, outcomes 12 B each) stay within
/// about 0.75 GB of host memory. 2^22 since issue 29: on fb15k-237's first
/// 700 test queries (H200) as fast as 2^23 or faster (8.08-8.54 s against
/// 8.80-8.91 end to end) with 0.74 GB of host memory instead of 1.09.
inline constexpr int64_t kDefaultBlockCandidates = int64_t{1} << 22;

/// The limits of the integer options, one set for the command line (the
/// flags' ranges) and Python (the keywords'; proofc._core.LIMITS).
inline constexpr int64_t kMaxUnroll = 1024;
inline constexpr int64_t kMaxMemoEntries = int64_t{1} << 28;
inline constexpr int64_t kMaxBlockCandidates = int64_t{1} << 40;
inline constexpr int64_t kMaxBootstrapSamples = int64_t{1} << 20;
inline constexpr int64_t kMaxWorkersPerDevice = 8;

/// BackendOptions::memoEntries' rule: -1 (sized from the pool), 0 (off) or
/// a power of two up to kMaxMemoEntries.
inline bool validMemoEntries(int64_t entries) {
  return entries == -1 || entries == 0 ||
         (entries > 0 && entries <= kMaxMemoEntries &&
          (entries & (entries - 1)) == 0);
}

/// Where and how the proof loop runs: --device, --devices,
/// --workers-per-device, --threads, --cond, --unroll, --memo-entries on the
/// command line, the keywords of the same names in Python.
struct BackendOptions {
  /// "cpu", "cuda" (device 0), "cuda:N", or "auto" (the default: cuda when
  /// a device is there, else cpu).
  std::string device = "auto";
  /// Several GPUs of this host (docs/scale-out.md, "Every GPU of a host"):
  /// "all" or a list of CUDA ordinals "0,1,3"; empty: `device` alone. The
  /// GPUs' device workers (workersPerDevice each) take blocks from a shared
  /// queue; outcomes and metrics are those of one device. `device` must
  /// then be cuda or auto.
  std::string devices;
  /// Device workers per CUDA device (docs/scale-out.md, "Every GPU of a
  /// host"): each its own backend (buffers, step memo) taking blocks from
  /// the same queue, so that one worker's host work between blocks (the
  /// pool's gather and upload, the outcomes' readback) overlaps another's
  /// run. 0: auto, 2 on CUDA (a worker allocates device memory only when it
  /// takes a block, and a call of one block runs on the first) and 1 on the
  /// host backend, whose run already uses every thread; else 1 to
  /// kMaxWorkersPerDevice (above 1 only on CUDA).
  int workersPerDevice = 0;
  /// Host threads: the host backend's, and the streamed run's candidate
  /// builders and outcome formatting; 0: every core.
  int threads = 0;
  /// CUDA: how the proof loop runs ("native" | "emulated" | "host", see
  /// CudaBackend) and steps per launch (1 to kMaxUnroll). Both backends:
  /// step memo entries (-1 auto, 0 off, else a power of two up to
  /// kMaxMemoEntries); the memo never changes an outcome.
  std::string cond = "native";
  int unroll = 8;
  int64_t memoEntries = -1;
};

/// A session's options: the candidates, the backend and the rank metrics
/// (each defined once, above and in Candidates.h, RankMetrics.h), and how
/// the pool is cut. The tools' RunSessionOptions extend it with their
/// outputs and scale-out fields.
struct SessionOptions : CandidateOptions, BackendOptions {
  std::string data; ///< dataset directory (spec §1.1)
  /// Candidates per backend run; <= 0: only the backend's own limit. The
  /// CUDA state persists across calls when the pool runs in one chunk.
  int64_t maxPool = 0;
  /// Candidates per block of the streamed run (whole queries; a query
  /// with more stays whole): blocks are built, run and ranked one after the
  /// other, a few in flight, so that memory is bounded by the block, not
  /// the pool (docs/scale-out.md, "Streaming"). <= 0: the default. Blocks
  /// never change a result.
  int64_t blockCandidates = kDefaultBlockCandidates;
  /// Lists that hold the same corruptions (queries sharing (r, t) in head
  /// mode or (h, r) in tail mode, every filtered corruption taken) run them
  /// once and share their outcomes (docs/scale-out.md, "Shared lists").
  /// Never changes a result; false runs every list's own candidates.
  bool shareLists = true;
  /// Record every step's action (SessionResult::actions), from which the
  /// proofs are replayed (docs/proofs.md). Only a backend whose
  /// recordsActions() is true can: the session refuses others when made.
  bool recordActions = false;
  /// Hits@k list, per-relation and bootstrap settings of the metrics.
  RankMetricOptions rankMetrics;
  /// The embedder's argv (or its own words), for the report's provenance.
  std::vector<std::string> commandLine;
};

/// One finished block of a streamed call (EvaluateControl::onBlock).
struct OutcomeBlock {
  QueryRange range; ///< its queries and candidates, in the pool's numbering
  /// Its candidates: `queries` is the whole list, `candidates` the block's,
  /// the groups numbered from the block's first candidate.
  const CandidateSet &candidates;
  const std::vector<Outcome> &outcomes; ///< parallel to candidates
  /// Every group's ranks (rankPairs(candidates, outcomes)).
  const std::vector<PairRanks> &pairs;
  /// The block's actions when SessionOptions::recordActions, else null.
  const ActionTrace *actions = nullptr;
};

/// Progress and cancellation of one evaluate() call.
struct EvaluateControl {
  /// When non-null and raised (by another thread, a signal handler), the
  /// call stops at the backend's next check and throws proofc::Interrupted.
  const std::atomic<bool> *cancel = nullptr;
  /// Candidates finished so far out of the pool; called from the calling
  /// thread or a backend thread, never from two at once.
  std::function<void(int64_t done, int64_t total)> progress;
  /// When set, called with every finished block, in query order, on the
  /// calling thread (while later blocks run): an outcomes file written as
  /// the run goes, checkpoint ranges. An exception from it ends the call.
  std::function<void(const OutcomeBlock &block)> onBlock;
  /// False: the call keeps no outcome (SessionResult::outcomes and
  /// RangeResult::outcomes stay empty, and so do the actions), so that its
  /// memory does not grow with the pool; the metrics and the report are
  /// the same (they need only each pair's ranks and the outcome counts).
  bool keepOutcomes = true;
};

/// A call's report, made on request (runtime/src/session/SessionReport.h).
class SessionReport;

/// What one evaluate() call produced. The metrics are made by the call; the
/// rank metrics (PyKEEN's whole set) and the report are made from the
/// call's ranks when first asked for, then kept: a caller that reads only
/// `metrics` never pays for them. Copies share what was made; a result
/// outlives its session, and a later call never changes it.
struct SessionResult {
  std::vector<Outcome> outcomes; ///< indexed like candidates()
  /// Every candidate's actions when SessionOptions::recordActions, else
  /// empty (ActionTrace::D == 0).
  ActionTrace actions;
  Metrics metrics; ///< the report's "metrics" (MRR, Hits@1/3/10 per side)
  /// The report's "rank_metrics" (and its "pykeen" block): computed on the
  /// first call, from this call's ranks. Empty for a default-made result.
  const RankMetrics &rankMetrics() const;
  /// The report as `proofc run --report` writes it (JSON text): made on
  /// the first call (the rank metrics too), the same bytes every call.
  /// Empty for a default-made result.
  const std::string &reportJson() const;
  /// The report's value at top-level `key` as compact JSON text, equal to
  /// reportJson()'s: "metrics" and "timings" are made alone, without the
  /// rank metrics (the in-loop caller's way to them); any other key makes
  /// the report. Throws proofc::Error for a key the report lacks, or for a
  /// default-made result.
  std::string reportSectionJson(const std::string &key) const;
  double setupSeconds = 0;    ///< this call's uploads and folding
  double runSeconds = 0;      ///< this call's proof loop
  double readbackSeconds = 0; ///< this call's outcomes to the host (CUDA)
  /// This call's metrics and the report's inputs (not the report itself,
  /// made on request).
  double reportSeconds = 0;
  /// The whole evaluate() call: the weights' checks (and, for host
  /// tensors, their copy and hash), the run, readback, the metrics and the
  /// report's inputs.
  double callSeconds = 0;
  int64_t chunks = 0;    ///< backend runs (SessionOptions::maxPool)
  int64_t chunkSize = 0; ///< candidates per run (the last may have fewer)

private:
  friend class SessionAccess;
  std::shared_ptr<const SessionReport> report_;
};

/// What one evaluateRange() call produced.
struct RangeResult {
  QueryRange range;
  /// The range's candidates, in order (empty unless keepOutcomes).
  std::vector<Outcome> outcomes;
  std::vector<PairRanks> pairs; ///< every group's ranks, in group order
  OutcomeCounts counts;
  BackendTimings timings;
  int64_t chunks = 0;    ///< backend runs
  int64_t chunkSize = 0; ///< candidates per run (the last may have fewer)
};

/// The CUDA ordinals SessionOptions::devices names: "all" is 0..count-1,
/// a list is checked (decimal, distinct, < count). Throws proofc::Error
/// starting with "devices" and the value.
std::vector<int> parseDeviceList(const std::string &text, int count);

/// A weights file read once (Session::loadWeights): its tensors, checked
/// against the program, and the SHA-256 of its bytes.
struct WeightsFile {
  std::string path;
  std::string sha256;
  TensorMap tensors;
};

class Session {
public:
  /// Reads the bundle at `bundlePath` (a `.pcb`), then binds everything
  /// (see the file comment) on the devices SessionOptions asks for. Throws
  /// proofc::Error on bad input, an unavailable device included.
  Session(const std::string &bundlePath, SessionOptions options);
  Session(Session &&) noexcept;
  Session &operator=(Session &&) noexcept;
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// The tensors evaluate() needs, in name order.
  std::vector<TensorSpec> expectedTensors() const;

  const ProgramSpec &program() const;
  const Dataset &dataset() const;
  /// The queries and the size of every list, without the candidates.
  const CandidateLayout &layout() const;
  /// The candidates of `range` only (its groups renumbered to them).
  CandidateSet candidatesOf(const QueryRange &range) const;
  /// Every candidate of the pool, built at the first call and kept: 24 B
  /// per candidate (fb15k-237's full ranking: 14 GB). Evaluation never
  /// needs it (it builds blocks); for small pools, tests and tools that
  /// look at candidates.
  const CandidateSet &candidates() const;
  const SessionOptions &options() const;
  /// "host" or "cuda".
  std::string backendName() const;
  /// The device in words: "cpu (8 threads)", "NVIDIA H100 ... (sm_90)".
  std::string deviceName() const;
  /// The first backend (the first device's first worker).
  Backend &backend();
  /// Every backend, one device worker each (SessionOptions::devices and
  /// workersPerDevice).
  const std::vector<Backend *> &backends() const;

  /// Evaluates host tensors (a parsed safetensors file).
  SessionResult evaluate(const TensorMap &weights,
                         const EvaluateControl &control = {});
  /// Evaluates tensors read in place: host memory, or device memory on the
  /// session's GPU (copied device to device).
  SessionResult evaluate(const TensorViews &weights,
                         const EvaluateControl &control = {});
  /// Reads a safetensors file and checks it against the program.
  WeightsFile loadWeights(const std::string &weightsPath) const;
  /// Evaluates a file read by loadWeights() (its path and SHA-256 go to
  /// the report).
  SessionResult evaluate(const WeightsFile &weights,
                         const EvaluateControl &control = {});
  /// Part of a run (docs/scale-out.md: shards, checkpoints): the outcomes
  /// of `range`'s candidates only (QueryRanges.h), run as evaluate() runs
  /// the pool (in chunks, checked); progress counts the range's candidates.
  /// A candidate's outcome does not depend on the range it ran in.
  RangeResult evaluateRange(const WeightsFile &weights, const QueryRange &range,
                            const EvaluateControl &control = {});
  /// The result of outcomes already computed (evaluateRange() calls, or
  /// parts read back) for `range`, concatenated in candidate order: the
  /// metrics, rank metrics and report over `range`'s queries, with
  /// `timings`, `chunks` and `chunkSize` as given. For the whole pool
  /// (wholeRange()) its metrics, rank metrics and outcomes equal
  /// evaluate(weights)'s bit for bit. Throws proofc::Error when the
  /// outcomes are not as many as the range's candidates.
  SessionResult finish(const WeightsFile &weights, const QueryRange &range,
                       std::vector<Outcome> outcomes,
                       const BackendTimings &timings, int64_t chunks,
                       int64_t chunkSize);
  /// The same from the range's pairs' ranks (in group order) and outcome
  /// counts alone (RangeResult::pairs, counts): no outcome is needed, and
  /// SessionResult::outcomes is empty. Throws proofc::Error when the pairs
  /// are not the range's groups.
  SessionResult finish(const WeightsFile &weights, const QueryRange &range,
                       std::vector<PairRanks> pairs,
                       const OutcomeCounts &counts,
                       const BackendTimings &timings, int64_t chunks,
                       int64_t chunkSize);
  /// loadWeights() then evaluate().
  SessionResult evaluateFile(const std::string &weightsPath,
                             const EvaluateControl &control = {});

  /// Runs the episodes of `request` (Rollouts.h, docs/rollouts.md) with
  /// these weights on the session's device (its first backend), over the
  /// session's dataset and facts, and returns the trajectories: views of
  /// tensors the session owns until its next rollouts() or evaluate()
  /// call. Only
  /// control.cancel is used. Throws proofc::Error for a bad request (see
  /// checkRolloutRequest) or weights, proofc::Interrupted when cancelled.
  Trajectories rollouts(const RolloutRequest &request, const TensorMap &weights,
                        const EvaluateControl &control = {});
  Trajectories rollouts(const RolloutRequest &request,
                        const TensorViews &weights,
                        const EvaluateControl &control = {});
  Trajectories rollouts(const RolloutRequest &request,
                        const WeightsFile &weights,
                        const EvaluateControl &control = {});

private:
  struct State;
  explicit Session(std::unique_ptr<State> state);
  /// The tools' way in (runtime/src/session/SessionAccess.h, internal): a
  /// session on backends they opened, results with the report's inputs.
  friend class SessionAccess;
  std::unique_ptr<State> state_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SESSION_H
