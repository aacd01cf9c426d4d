//===- SessionState.h - What a Session binds, and its engine ----*- C++ -*-===//
//
// Session::State, internal to the session: the bind-once state (dataset,
// candidates, backends, provenance) and the per-call engine's declarations.
// Session.cpp holds the facade and the results (finish, run);
// SessionEngine.cpp the block engine (runBlock, stream).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SESSIONSTATE_H
#define PROOFC_RUNTIME_SESSIONSTATE_H

#include "proofc/runtime/Session.h"

#include "bundle/Bundle.h"
#include "cuda/CudaBackend.h"
#include "host/HostBackend.h"
#include "outputs/Provenance.h"
#include "outputs/Report.h"
#include "proofc/runtime/RunControl.h"
#include "session/BlockPipeline.h"
#include "session/PoolRuns.h"
#include "session/SessionAccess.h"
#include "session/SharedLists.h"
#include "support/Cancellation.h"
#include "support/Checksum.h"
#include "support/Fail.h"
#include "support/HostThreads.h"
#include "support/MessageText.h"
#include "support/Sha256.h"
#include "support/Timing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace proofc {

inline std::string shapeText(const std::vector<int64_t> &shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

struct Session::State {
  SessionOptions options;
  ProgramSpec program;
  std::vector<std::unique_ptr<Backend>> owned;
  /// One device worker each (BlockPipeline.h); backend is the first.
  std::vector<Backend *> backends;
  Backend *backend = nullptr;
  /// The backends' CUDA ordinals (-1: the host backend), each once, in
  /// order: the devices a call's weights on a GPU are checked against, set
  /// once by bind() (a backend's device never changes).
  std::vector<int> ordinals;
  std::string deviceName;
  Dataset dataset;
  CandidateOptions candidateOptions;
  /// Builds any range's candidates; its layout sizes every range.
  std::unique_ptr<CandidateBuilder> builder;
  /// The whole pool, built only when Session::candidates() is asked.
  mutable std::once_flag candidatesOnce;
  mutable CandidateSet candidates;
  /// All but the weights' hash and the dataset's fingerprint.
  Provenance provenance;
  /// datasetFingerprint(dataset), computed in the background from bind()
  /// on, beside the candidates' plan and the first blocks (fb15k-237's
  /// took 0.1-0.3 s of the start); get() where a report or a part names
  /// it. Declared after `dataset`, which it reads: destroyed (waited for)
  /// before it.
  std::shared_future<std::string> fingerprint;
  std::vector<TensorSpec> expected;
  int64_t facts = 0; ///< |F|, counted once (a sort of the facts)
  /// The whole pool's candidates when one block holds it, kept from one
  /// call to the next: an in-loop evaluate runs the same pool every call,
  /// and building it again cost 0.3-0.4 ms of kinship's V10 call (issue 28).
  /// Lent to the call's block and given back when the block is consumed.
  std::mutex wholePoolMutex;
  std::optional<CandidateSet> wholePoolSet;
  /// The same pool's candidates that run when lists share their
  /// corruptions (SharedLists::runSet), kept likewise.
  std::optional<CandidateSet> wholePoolRunSet;
  /// The whole pool's shared-lists plan, made by the first call over it.
  std::optional<SharedLists> wholePoolPlan;
  /// The keys the pool's shards share (SessionAccess::shardSharing).
  std::shared_ptr<const ShardSharing> shardSharing;
  /// This session's pool, for the backends (EvalInputs::poolId).
  uint64_t poolId = uniqueId();

  static uint64_t uniqueId() {
    static std::atomic<uint64_t> next{1};
    return next.fetch_add(1);
  }

  void bind() {
    if (backends.empty())
      fail("a session needs at least one backend");
    backend = backends.front();
    for (Backend *b : backends) {
      const int ordinal = b->info().ordinal;
      if (std::find(ordinals.begin(), ordinals.end(), ordinal) ==
          ordinals.end())
        ordinals.push_back(ordinal);
    }
    for (Backend *b : backends)
      if (options.recordActions && !b->recordsActions())
        fail("proofs (--proofs): the {} backend does not record the steps' "
             "actions yet; run on the host backend (--device cpu)",
             b->name());
    dataset = loadDataset(options.data);
    provenance.version = proofcVersion();
    provenance.gitCommit = proofcGitCommit();
    provenance.commandLine = options.commandLine;
    provenance.host = hostName();
    fingerprint = std::async(std::launch::async, [this] {
                    return datasetFingerprint(dataset);
                  }).share();
    candidateOptions.split = options.split;
    candidateOptions.corruptions = options.corruptions;
    candidateOptions.seed = options.seed;
    candidateOptions.queries = options.queries;
    builder = std::make_unique<CandidateBuilder>(dataset, candidateOptions);
    facts = countFacts(dataset, options.factsIncludeValid);
    // The shapes checkWeights() wants (spec §4's table), in name order.
    expected = proofc::expectedTensors(program, dataset);
    std::sort(expected.begin(), expected.end(),
              [](const TensorSpec &a, const TensorSpec &b) {
                return a.name < b.name;
              });
  }

  /// Checks `views` against the expected tensors: the same names, float32,
  /// the shapes, row-major, one memory kind (and the session's GPU).
  void checkViews(const TensorViews &views) const {
    std::set<std::string> seen;
    for (const TensorSpec &spec : expected) {
      auto it = views.find(spec.name);
      if (it == views.end())
        fail("weights: tensor '{}' {} is missing", spec.name,
             shapeText(spec.shape));
      const TensorView &v = it->second;
      if (v.dtype != "F32")
        fail("weights: tensor '{}' has dtype {}, the policy takes F32 "
             "(float32)",
             spec.name, escapeForMessage(v.dtype));
      if (v.shape != spec.shape)
        fail("weights: tensor '{}' has shape {}, the program needs {}",
             spec.name, shapeText(v.shape), shapeText(spec.shape));
      if (!v.strides.empty()) {
        if (v.strides.size() != v.shape.size())
          fail("weights: tensor '{}' has {} strides for {} dimensions",
               spec.name, v.strides.size(), v.shape.size());
        int64_t expect = 1;
        for (size_t d = v.shape.size(); d-- > 0;) {
          if (v.shape[d] != 1 && v.strides[d] != expect)
            fail("weights: tensor '{}' is not contiguous (strides {} for "
                 "shape {}); pass a row-major copy (e.g. .contiguous())",
                 spec.name, shapeText(v.strides), shapeText(v.shape));
          expect *= v.shape[d];
        }
      }
      int64_t numel = 1;
      for (int64_t s : v.shape)
        numel *= s;
      if (v.data == nullptr && numel > 0)
        fail("weights: tensor '{}' has no data", spec.name);
      seen.insert(spec.name);
    }
    for (const auto &[name, v] : views)
      if (!seen.count(name))
        fail("weights: tensor '{}' is not used by program '{}'",
             escapeForMessage(name), program.name);
  }

  /// Weights given as views (Session::evaluate, rollouts), checked
  /// (checkViews) and bound: host memory copied into `host` (finite values
  /// only), or the pointers of tensors on the session's GPU in `device`.
  struct BoundViews {
    TensorMap host;
    std::map<std::string, DeviceWeight> device;
    bool onDevice = false;
  };
  BoundViews bindViews(const TensorViews &views) const;

  /// Session::rollouts() on the first backend, the weights checked
  /// (SessionRollouts.cpp).
  Trajectories
  rollouts(const RolloutRequest &request, const TensorMap &weights,
           const std::map<std::string, DeviceWeight> *deviceWeights,
           const EvaluateControl &control, Clock::time_point callStart);

  /// The host threads of the streamed run.
  int hostThreads() const { return hostThreadCount(options.threads); }

  const CandidateLayout &layout() const { return builder->layout(); }

  /// What a streamed range produced.
  struct Streamed {
    std::vector<PairRanks> pairs;
    OutcomeCounts counts;
    BackendTimings timings;
    int64_t chunks = 0, chunkSize = 0;
    std::vector<Outcome> outcomes; ///< keepOutcomes only
    ActionTrace actions;           ///< keepOutcomes and recordActions only
    /// Session::evaluateRange()'s result, moved out.
    RangeResult rangeResult(const QueryRange &range) &&;
  };

  /// Runs `range` block by block (BlockPipeline.h): built ahead on host
  /// threads, each run in chunks, ranked and handed on in query order.
  /// With `cross` (a shard of an MPI launch, tallying: no outcome kept, no
  /// block handed on), the keys it shares with other shards run only where
  /// they are owned; its pending pairs and its exports go to cross->out
  /// (SharedLists.h).
  Streamed stream(const TensorMap &weights,
                  const std::map<std::string, DeviceWeight> *deviceWeights,
                  const QueryRange &range, const EvaluateControl &control,
                  const CrossShardCall *cross = nullptr);
  /// Candidates finished over every device worker, for
  /// EvaluateControl::progress (called under the lock: never from two
  /// threads at once).
  struct ProgressTally {
    std::mutex mutex;
    int64_t done = 0;             ///< of the blocks finished
    std::vector<int64_t> running; ///< of each worker's block so far
    int64_t total = 0;
    void report(const EvaluateControl &control, int worker, int64_t inBlock,
                bool blockDone) {
      std::lock_guard<std::mutex> lock(mutex);
      if (blockDone) {
        done += inBlock;
        running[static_cast<size_t>(worker)] = 0;
      } else {
        running[static_cast<size_t>(worker)] = inBlock;
      }
      if (!control.progress)
        return;
      int64_t now = done;
      for (int64_t r : running)
        now += r;
      control.progress(now, total);
    }
  };
  /// Runs one block in chunks on `worker`'s backend (the pipeline's device
  /// stage).
  /// `shape` (Backend::prefersOneRunSize, several blocks): every run is of
  /// `shape.size` candidates, a shorter piece padded when that is cheaper
  /// than a new setup, so that the device state is kept (shapeId).
  struct RunShape {
    uint64_t id = 0;        ///< EvalInputs::shapeId; 0: no padding
    int64_t largest = 0;    ///< the largest block's candidates
    uint64_t weightsId = 0; ///< EvalInputs::weightsId: this call's
  };
  /// `set`: the candidates of `block` that run: block.candidates, whole or
  /// (`shared`) SharedLists::runSet's, each list a prefix of the whole
  /// one's, so that a failure names the candidate by the pool's numbering.
  void runBlock(PipelineBlock &block, CandidateSet &set, int worker,
                const TensorMap &weights,
                const std::map<std::string, DeviceWeight> *deviceWeights,
                bool wholePool, bool shared, const RunShape &shape,
                const EvaluateControl &control, ProgressTally &progress);
  /// The metrics over `range`'s queries, and the report's inputs as of
  /// this call (the rank metrics and the report are made on request:
  /// SessionReport.h). The weights' digest is a weights file's SHA-256 (64
  /// hex digits), host tensors' "xxh3:…" (tensorsDigest), or empty
  /// (tensors on the GPU).
  SessionResult finish(const QueryRange &range, std::vector<PairRanks> pairs,
                       const OutcomeCounts &counts,
                       const BackendTimings &timings, int64_t chunks,
                       int64_t chunkSize, const std::string &weightsName,
                       const std::string &weightsMemory,
                       const std::string &weightsDigest,
                       Clock::time_point callStart,
                       std::chrono::system_clock::time_point startedWall);
  SessionResult run(const TensorMap &weights,
                    const std::map<std::string, DeviceWeight> *deviceWeights,
                    const std::string &weightsName,
                    const std::string &weightsMemory,
                    const std::string &weightsDigest,
                    const EvaluateControl &control,
                    Clock::time_point callStart);
};

} // namespace proofc

#endif // PROOFC_RUNTIME_SESSIONSTATE_H
