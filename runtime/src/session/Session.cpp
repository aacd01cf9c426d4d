//===- Session.cpp - Load once, evaluate many weight sets -----------------===//
//
// The bind-once state (dataset, candidates, backend) and the per-call flow:
// check the weights, run the backend over the pool in chunks, check the
// outcomes, compute the metrics and the report. The backend keeps whatever
// does not depend on the weights between calls (the CUDA backend: context,
// modules, buffers, graph; CudaBackend.h), so a call costs the weights'
// upload, the proof loop and the readback.
//
//===----------------------------------------------------------------------===//
#include "proofc/runtime/Session.h"

#include "cuda/CudaBackend.h"
#include "host/HostBackend.h"
#include "outputs/Provenance.h"
#include "outputs/Report.h"
#include "proofc/runtime/Bundle.h"
#include "proofc/runtime/RunControl.h"
#include "session/BlockPipeline.h"
#include "session/PoolRuns.h"
#include "support/Cancellation.h"
#include "support/Fail.h"
#include "support/MessageText.h"
#include "support/Sha256.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

namespace proofc {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// "cuda" -> 0, "cuda:N" -> N; -1 for anything else.
int cudaOrdinal(const std::string &device) {
  if (device == "cuda")
    return 0;
  if (device.rfind("cuda:", 0) != 0 || device.size() == 5 || device.size() > 9)
    return -1;
  int ordinal = 0;
  for (size_t i = 5; i < device.size(); ++i) {
    if (device[i] < '0' || device[i] > '9')
      return -1;
    ordinal = ordinal * 10 + (device[i] - '0');
  }
  return ordinal;
}

/// SHA-256 of host tensors, for the provenance of weights given in memory:
/// per tensor in name order, its name, a NUL, its rank and sizes as
/// little-endian int64, then its float32 data as little-endian bytes
/// (docs/report-schema.md).
std::string tensorsSha256(const TensorMap &weights) {
  std::string bytes;
  auto putI64 = [&](int64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(
          static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  };
  for (const auto &[name, tensor] : weights) {
    bytes += name;
    bytes.push_back('\0');
    putI64(static_cast<int64_t>(tensor.shape.size()));
    for (int64_t s : tensor.shape)
      putI64(s);
    const size_t at = bytes.size();
    bytes.resize(at + tensor.data.size() * 4);
    std::memcpy(bytes.data() + at, tensor.data.data(), tensor.data.size() * 4);
  }
  return sha256Hex(bytes);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

} // namespace

SelectedDevice openDevice(const Bundle &bundle, const std::string &bundlePath,
                          const SessionOptions &options,
                          const std::string &flag) {
  SelectedDevice out;
  std::string device = options.device;
  if (device == "auto") {
    std::string why;
    device = cudaDeviceAvailable(&why) ? "cuda" : "cpu";
  }
  if (device == "cpu") {
    HostBackendOptions host;
    host.threads = options.threads;
    out.name = hostDeviceName(options.threads, bundle.program.shape.B);
    out.backend = std::make_unique<HostBackend>(host);
    return out;
  }
  const int ordinal = cudaOrdinal(device);
  if (ordinal < 0)
    fail("{} {}: expected cpu, cuda, cuda:N or auto", flag,
         escapeForMessage(options.device));
  std::string why;
  if (!cudaDeviceAvailable(&why))
    fail("{} {}: no usable CUDA device: {}", flag, device, why);
  CudaBackendOptions cuda;
  cuda.cond = parseCondMode(options.cond, "cond");
  cuda.device = ordinal;
  cuda.unroll = options.unroll;
  cuda.memoEntries = options.memoEntries;
  out.backend = std::make_unique<CudaBackend>(bundle, bundlePath, cuda);
  out.name = device;
  return out;
}

std::vector<int> parseDeviceList(const std::string &text, int count,
                                 const std::string &flag) {
  std::vector<int> ordinals;
  if (text == "all") {
    for (int i = 0; i < count; ++i)
      ordinals.push_back(i);
    return ordinals;
  }
  const std::string shown = escapeForMessage(text);
  size_t at = 0;
  for (;;) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.size() > 4 ||
        item.find_first_not_of("0123456789") != std::string::npos)
      fail("{} {}: expected all or CUDA device ordinals separated by commas "
           "(e.g. 0,1)",
           flag, shown);
    const int ordinal = std::stoi(item);
    if (ordinal >= count)
      fail("{} {}: there is no CUDA device {} (the driver sees {}: 0 to {})",
           flag, shown, ordinal, count, count - 1);
    if (std::find(ordinals.begin(), ordinals.end(), ordinal) != ordinals.end())
      fail("{} {}: device {} is named twice", flag, shown, ordinal);
    ordinals.push_back(ordinal);
    if (comma == text.size())
      return ordinals;
    at = comma + 1;
  }
}

std::vector<SelectedDevice> openDevices(const Bundle &bundle,
                                        const std::string &bundlePath,
                                        const SessionOptions &options,
                                        const std::string &flag,
                                        const std::string &devicesFlag) {
  std::vector<SelectedDevice> out;
  if (options.devices.empty()) {
    out.push_back(openDevice(bundle, bundlePath, options, flag));
    return out;
  }
  if (options.device != "cuda" && options.device != "auto")
    fail("{} {} with {} {}: several devices are CUDA devices; give {} cuda "
         "(or leave it out)",
         devicesFlag, escapeForMessage(options.devices), flag,
         escapeForMessage(options.device), flag);
  // The list's form first: a typo is one whatever the machine.
  if (options.devices != "all")
    parseDeviceList(options.devices, std::numeric_limits<int>::max(),
                    devicesFlag);
  std::string why;
  const int count = cudaDeviceCount(&why);
  if (count == 0)
    fail("{} {}: no usable CUDA device: {}", devicesFlag,
         escapeForMessage(options.devices), why);
  for (int ordinal : parseDeviceList(options.devices, count, devicesFlag)) {
    SessionOptions one = options;
    one.devices.clear();
    one.device = fmt::format("cuda:{}", ordinal);
    out.push_back(openDevice(bundle, bundlePath, one, flag));
  }
  return out;
}

struct Session::State {
  SessionOptions options;
  ProgramSpec program;
  std::vector<std::unique_ptr<Backend>> owned;
  /// One device worker each (BlockPipeline.h); backend is the first.
  std::vector<Backend *> backends;
  Backend *backend = nullptr;
  std::string deviceName;
  Dataset dataset;
  CandidateOptions candidateOptions;
  /// Builds any range's candidates; its layout sizes every range.
  std::unique_ptr<CandidateBuilder> builder;
  /// The whole pool, built only when Session::candidates() is asked.
  mutable std::once_flag candidatesOnce;
  mutable CandidateSet candidates;
  Provenance provenance; ///< all but the weights' hash
  std::vector<TensorSpec> expected;
  int64_t facts = 0; ///< |F|, counted once (a sort of the facts)
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
    provenance.datasetFingerprint = datasetFingerprint(dataset);
    candidateOptions.split = options.split;
    candidateOptions.corruptions = options.corruptions;
    candidateOptions.seed = options.seed;
    candidateOptions.maxQueries = options.queries;
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

  /// The host threads of the streamed run.
  int hostThreads() const {
    if (options.threads > 0)
      return options.threads;
    return std::max(1u, std::thread::hardware_concurrency());
  }

  const CandidateLayout &layout() const { return builder->layout(); }

  /// What a streamed range produced.
  struct Streamed {
    std::vector<PairRanks> pairs;
    OutcomeCounts counts;
    BackendTimings timings;
    int64_t chunks = 0, chunkSize = 0;
    std::vector<Outcome> outcomes; ///< keepOutcomes only
    ActionTrace actions;           ///< keepOutcomes and recordActions only
  };

  /// Runs `range` block by block (BlockPipeline.h): built ahead on host
  /// threads, each run in chunks, ranked and handed on in query order.
  Streamed stream(const TensorMap &weights,
                  const std::map<std::string, DeviceWeight> *deviceWeights,
                  const QueryRange &range, const EvaluateControl &control);
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
  void runBlock(PipelineBlock &block, int worker, const TensorMap &weights,
                const std::map<std::string, DeviceWeight> *deviceWeights,
                bool wholePool, const RunShape &shape,
                const EvaluateControl &control, ProgressTally &progress);
  /// Metrics, rank metrics and report over `range`'s queries.
  SessionResult finish(const QueryRange &range, std::vector<PairRanks> pairs,
                       const OutcomeCounts &counts,
                       const BackendTimings &timings, int64_t chunks,
                       int64_t chunkSize, const std::string &weightsName,
                       const std::string &weightsMemory,
                       const std::string &weightsSha256,
                       Clock::time_point callStart,
                       std::chrono::system_clock::time_point startedWall);
  SessionResult run(const TensorMap &weights,
                    const std::map<std::string, DeviceWeight> *deviceWeights,
                    const std::string &weightsName,
                    const std::string &weightsMemory,
                    const std::string &weightsSha256,
                    const EvaluateControl &control,
                    Clock::time_point callStart);
};

void Session::State::runBlock(
    PipelineBlock &block, int worker, const TensorMap &weights,
    const std::map<std::string, DeviceWeight> *deviceWeights, bool wholePool,
    const RunShape &shape, const EvaluateControl &evalControl,
    ProgressTally &progress) {
  Backend *backend = backends.at(static_cast<size_t>(worker));
  CandidateSet &set = block.candidates;
  std::vector<Candidate> &pool = set.candidates;
  const int64_t n = static_cast<int64_t>(pool.size());
  // The whole pool is the same at every call: the backend may keep its
  // setup (poolId); a block or a chunk is not promised to be.
  EvalInputs all{program,
                 dataset,
                 weights,
                 set,
                 options.factsIncludeValid,
                 nullptr,
                 deviceWeights,
                 wholePool ? poolId : 0};
  all.shapeId = shape.id;
  all.weightsId = shape.weightsId;
  const int64_t size =
      chunkSizeFor(shape.id ? shape.largest : n, options.maxPool,
                   backend->poolCapacity(all));
  block.chunkSize = size;
  block.outcomes.clear();
  block.outcomes.reserve(static_cast<size_t>(n));
  const bool recording = options.recordActions;
  if (recording) {
    block.actions.D = program.shape.D;
    block.actions.actions.clear();
    block.actions.actions.reserve(static_cast<size_t>(n) *
                                  static_cast<size_t>(program.shape.D));
  }
  int64_t begin = 0, pieceSize = 0;
  RunControl control;
  control.cancel = evalControl.cancel;
  if (evalControl.progress)
    control.progress = [&](int64_t finished) {
      // A padded run counts its padding too: not beyond the piece.
      progress.report(evalControl, worker,
                      begin + std::min(finished, pieceSize), false);
    };
  // At least one run, so that an empty pool still checks the backend setup.
  do {
    if (control.cancelled())
      throwInterrupted();
    const int64_t end = std::min(n, begin + size);
    CandidateSet chunk;
    const bool whole = begin == 0 && end == n;
    // A piece of at least 3/4 of the run size is padded with copies of its
    // last candidate (an outcome depends only on its candidate; the copies'
    // are dropped): cheaper than setting the device up for its size.
    pieceSize = end - begin;
    const bool sameSize = shape.id != 0 && pieceSize > 0 &&
                          (pieceSize == size || 4 * pieceSize >= 3 * size);
    const bool padded = sameSize && pieceSize < size;
    if (!whole) {
      chunk.candidates.assign(pool.begin() + begin, pool.begin() + end);
      if (padded)
        chunk.candidates.resize(static_cast<size_t>(size),
                                chunk.candidates.back());
    } else if (padded) {
      // In place: the builder reserved room for the largest block.
      const Candidate last = pool.back();
      pool.resize(static_cast<size_t>(size), last);
    }
    // The whole block's padding goes again before anything else sees it.
    struct Unpad {
      std::vector<Candidate> &pool;
      size_t n;
      ~Unpad() { pool.resize(n); }
    } unpad{pool, static_cast<size_t>(n)};
    EvalInputs inputs{program,
                      dataset,
                      weights,
                      whole ? set : chunk,
                      options.factsIncludeValid,
                      &control,
                      deviceWeights,
                      whole && wholePool ? poolId : 0};
    inputs.shapeId = sameSize ? shape.id : 0;
    inputs.weightsId = shape.weightsId;
    ActionTrace actions;
    if (recording)
      inputs.actions = &actions;
    BackendTimings t;
    std::vector<Outcome> outcomes = backend->run(inputs, t);
    if (padded && static_cast<int64_t>(outcomes.size()) == size)
      outcomes.resize(static_cast<size_t>(pieceSize)); // the padding's
    if (recording && padded &&
        actions.actions.size() == static_cast<size_t>(size) * size_t(actions.D))
      actions.actions.resize(static_cast<size_t>(pieceSize) *
                             size_t(actions.D));
    const int64_t first = block.range.candidateBegin + begin;
    if (static_cast<int64_t>(outcomes.size()) != end - begin)
      fail("{} backend: {} outcomes for the {} candidates {}..{}",
           backend->name(), outcomes.size(), end - begin, first,
           first + (end - begin) - 1);
    // Chunks run in candidate order, and blocks are checked in order: the
    // first chunk with a non-finite logit holds the smallest candidate that
    // had one.
    checkFiniteOutcomes(set, dataset, outcomes, begin,
                        block.range.candidateBegin);
    block.outcomes.insert(block.outcomes.end(), outcomes.begin(),
                          outcomes.end());
    if (recording) {
      if (actions.D != program.shape.D ||
          actions.actions.size() != outcomes.size() * size_t(actions.D))
        fail("{} backend: {} recorded actions (D = {}) for the {} candidates "
             "{}..{}",
             backend->name(), actions.actions.size(), actions.D, end - begin,
             first, first + (end - begin) - 1);
      block.actions.actions.insert(block.actions.actions.end(),
                                   actions.actions.begin(),
                                   actions.actions.end());
    }
    block.timings.setupSeconds += t.setupSeconds;
    block.timings.runSeconds += t.runSeconds;
    block.timings.readbackSeconds += t.readbackSeconds;
    block.timings.steps += t.steps;
    ++block.chunks;
    control.report(end - begin);
    begin = end;
  } while (begin < n);
  if (control.cancelled())
    throwInterrupted();
  progress.report(evalControl, worker, n, true);
}

Session::State::Streamed
Session::State::stream(const TensorMap &weights,
                       const std::map<std::string, DeviceWeight> *deviceWeights,
                       const QueryRange &range,
                       const EvaluateControl &control) {
  const QueryRange all = wholeRange(layout());
  if (range.queryBegin < 0 || range.queryBegin > range.queryEnd ||
      range.queryEnd > all.queryEnd ||
      !(queryRange(layout(), range.queryBegin, range.queryEnd) == range))
    fail("candidate range [{}, {}) of queries [{}, {}) is not a range of "
         "the {} candidates",
         range.candidateBegin, range.candidateEnd, range.queryBegin,
         range.queryEnd, all.candidateEnd);
  for (Backend *b : backends)
    if (auto *cuda = dynamic_cast<CudaBackend *>(b))
      cuda->clearRunInfo(); // the report describes this call
  const int64_t target = options.blockCandidates > 0 ? options.blockCandidates
                                                     : kDefaultBlockCandidates;
  std::vector<QueryRange> blocks = splitRange(layout(), range, target);
  // Several device workers: a multiple of their number of nearly equal
  // blocks, so that they end together (a last short block would leave the
  // others idle for up to one block's run).
  const size_t workerCount = backends.size();
  if (workerCount > 1 && blocks.size() > 1 && blocks.size() % workerCount)
    blocks = splitRangeEvenly(
        layout(), range,
        static_cast<int64_t>((blocks.size() + workerCount - 1) / workerCount *
                             workerCount));
  if (blocks.empty())
    blocks.push_back(range); // one (empty) run still checks the backend
  const bool wholePool = blocks.size() == 1 && range == all;
  // CUDA, several blocks: one device setup for all (EvalInputs::shapeId).
  RunShape shape;
  shape.weightsId = uniqueId(); // one set of weights for the whole call
  if (backend->prefersOneRunSize() && blocks.size() > 1) {
    shape.id = uniqueId();
    for (const QueryRange &b : blocks)
      shape.largest = std::max(shape.largest, b.candidates());
  }
  const int64_t total = range.candidates();
  const int threads = hostThreads();
  const int workers = static_cast<int>(backends.size());
  ProgressTally progress;
  progress.running.assign(backends.size(), 0);
  progress.total = total;

  Streamed out;
  out.pairs.reserve(static_cast<size_t>(2 * range.queries()));
  if (control.keepOutcomes)
    out.outcomes.reserve(static_cast<size_t>(total));
  if (control.keepOutcomes && options.recordActions)
    out.actions.D = program.shape.D;
  PipelineStages stages;
  stages.build = [&](const QueryRange &r) {
    return builder->build(r.queryBegin, r.queryEnd, shape.largest);
  };
  stages.run = [&](PipelineBlock &block, int worker) {
    runBlock(block, worker, weights, deviceWeights, wholePool, shape, control,
             progress);
  };
  stages.consume = [&](PipelineBlock &block) {
    std::vector<PairRanks> pairs = rankPairs(block.candidates, block.outcomes);
    out.counts.add(block.outcomes);
    out.timings.setupSeconds += block.timings.setupSeconds;
    out.timings.runSeconds += block.timings.runSeconds;
    out.timings.readbackSeconds += block.timings.readbackSeconds;
    out.timings.steps += block.timings.steps;
    out.chunks += block.chunks;
    out.chunkSize = std::max(out.chunkSize, block.chunkSize);
    if (control.onBlock)
      control.onBlock(
          OutcomeBlock{block.range, block.candidates, block.outcomes, pairs,
                       options.recordActions ? &block.actions : nullptr});
    out.pairs.insert(out.pairs.end(), pairs.begin(), pairs.end());
    if (control.keepOutcomes) {
      out.outcomes.insert(out.outcomes.end(), block.outcomes.begin(),
                          block.outcomes.end());
      if (options.recordActions)
        out.actions.actions.insert(out.actions.actions.end(),
                                   block.actions.actions.begin(),
                                   block.actions.actions.end());
    }
  };
  // Builders: candidates are cheap next to a run; two per device worker
  // keep ahead of any backend. One block in flight per worker, and one
  // more, besides the one being consumed.
  runBlockPipeline(blocks, stages, std::min(threads, 2 * workers), workers, 2,
                   control.cancel);
  if (control.cancel && control.cancel->load(std::memory_order_relaxed))
    throwInterrupted();
  return out;
}

SessionResult Session::State::finish(
    const QueryRange &range, std::vector<PairRanks> pairs,
    const OutcomeCounts &counts, const BackendTimings &timings, int64_t chunks,
    int64_t chunkSize, const std::string &weightsName,
    const std::string &weightsMemory, const std::string &weightsSha256,
    Clock::time_point callStart,
    std::chrono::system_clock::time_point startedWall) {
  if (static_cast<int64_t>(pairs.size()) != 2 * range.queries() ||
      counts.candidates != range.candidates())
    fail("{} pairs and {} outcomes for the {} lists and {} candidates of "
         "queries [{}, {})",
         pairs.size(), counts.candidates, 2 * range.queries(),
         range.candidates(), range.queryBegin, range.queryEnd);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const int64_t query = range.queryBegin + static_cast<int64_t>(i / 2);
    const size_t at = static_cast<size_t>(2 * query) + i % 2;
    if (pairs[i].query != query || pairs[i].mode != static_cast<Mode>(i % 2) ||
        pairs[i].listSize !=
            layout().groupBegin[at + 1] - layout().groupBegin[at])
      fail("the ranks of list {} are not those of query {} ({} list)", i, query,
           modeName(static_cast<Mode>(i % 2)));
  }
  SessionResult result;
  const Clock::time_point reportStart = Clock::now();
  auto report = std::make_shared<ReportInputs>();
  ReportInputs &r = *report;
  r.program = program;
  r.datasetDir = options.data;
  r.datasetName = datasetNameOf(options.data);
  r.entities = dataset.numEntities();
  r.relations = dataset.numRelations();
  r.facts = facts;
  r.rules = static_cast<int64_t>(dataset.rules.size());
  r.factsIncludeValid = options.factsIncludeValid;
  r.weights = weightsName;
  r.weightsInMemory = weightsMemory;
  r.candidates = candidateOptions;
  r.metrics = computeMetrics(pairs, counts);
  r.provenance = provenance;
  r.provenance.weightsSha256 = weightsSha256;
  r.provenance.startedUtc = utcTimestamp(startedWall);
  r.rankMetrics = computeRankMetrics(pairs, options.rankMetrics);
  if (options.rankMetrics.perRelation)
    for (int32_t id = 0; id < dataset.numRelations(); ++id)
      r.relationNames.push_back(dataset.relations.name(id));
  r.timings = timings;
  r.backend = backend->name();
  r.device = deviceName;
  if (auto *cuda = dynamic_cast<CudaBackend *>(backend)) {
    const CudaRunInfo &info = cuda->info();
    r.backendDetails = cudaRunInfoJson(info);
    r.device =
        fmt::format("{}, cond {}{}", info.device, condModeName(info.cond),
                    info.condFellBack ? " (fallback)" : "");
    if (backends.size() > 1) {
      // Several GPUs (SessionOptions::devices): the first one's details,
      // and every worker's under "workers" (docs/report-schema.md).
      std::vector<std::string> ordinals;
      nlohmann::json workers = nlohmann::json::array();
      for (Backend *b : backends)
        if (auto *c = dynamic_cast<CudaBackend *>(b)) {
          ordinals.push_back(fmt::format("cuda:{}", c->deviceOrdinal()));
          nlohmann::json w = cudaRunInfoJson(c->info());
          w["ordinal"] = c->deviceOrdinal();
          workers.push_back(std::move(w));
        }
      r.backendDetails["workers"] = std::move(workers);
      r.device =
          fmt::format("{} x{} ({}), cond {}{}", info.device, backends.size(),
                      fmt::join(ordinals, ", "), condModeName(info.cond),
                      info.condFellBack ? " (fallback)" : "");
    }
  }
  r.totalSeconds = secondsSince(callStart);
  result.metrics = r.metrics;
  result.rankMetrics = *r.rankMetrics;
  result.reportJson = reportJson(r).dump(2) + "\n";
  result.setupSeconds = timings.setupSeconds;
  result.runSeconds = timings.runSeconds;
  result.readbackSeconds = timings.readbackSeconds;
  result.chunks = chunks;
  result.chunkSize = chunkSize;
  result.report = std::move(report);
  result.reportSeconds = secondsSince(reportStart);
  result.callSeconds = secondsSince(callStart);
  return result;
}

SessionResult Session::State::run(
    const TensorMap &weights,
    const std::map<std::string, DeviceWeight> *deviceWeights,
    const std::string &weightsName, const std::string &weightsMemory,
    const std::string &weightsSha256, const EvaluateControl &evalControl,
    Clock::time_point callStart) {
  const auto startedWall = std::chrono::system_clock::now();
  const QueryRange all = wholeRange(layout());
  Streamed streamed = stream(weights, deviceWeights, all, evalControl);
  SessionResult result =
      finish(all, std::move(streamed.pairs), streamed.counts, streamed.timings,
             streamed.chunks, streamed.chunkSize, weightsName, weightsMemory,
             weightsSha256, callStart, startedWall);
  result.outcomes = std::move(streamed.outcomes);
  result.actions = std::move(streamed.actions);
  return result;
}

Session::Session(const std::string &bundlePath, SessionOptions options)
    : state_(std::make_unique<State>()) {
  Bundle bundle = readBundle(bundlePath);
  state_->options = std::move(options);
  std::vector<SelectedDevice> selected =
      openDevices(bundle, bundlePath, state_->options);
  state_->program = bundle.program;
  std::vector<std::string> names;
  for (SelectedDevice &d : selected) {
    state_->backends.push_back(d.backend.get());
    state_->owned.push_back(std::move(d.backend));
    names.push_back(d.name);
  }
  state_->deviceName = fmt::format("{}", fmt::join(names, ","));
  state_->bind();
}

Session::Session(const ProgramSpec &program, Backend &backend,
                 std::string deviceName, SessionOptions options)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->program = program;
  state_->backends = {&backend};
  state_->deviceName = std::move(deviceName);
  state_->bind();
}

Session::Session(const ProgramSpec &program,
                 const std::vector<Backend *> &backends, std::string deviceName,
                 SessionOptions options)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  state_->program = program;
  state_->backends = backends;
  state_->deviceName = std::move(deviceName);
  state_->bind();
}

Session::~Session() = default;

std::vector<TensorSpec> Session::expectedTensors() const {
  return state_->expected;
}
const ProgramSpec &Session::program() const { return state_->program; }
const Dataset &Session::dataset() const { return state_->dataset; }
const CandidateLayout &Session::layout() const { return state_->layout(); }
CandidateSet Session::candidatesOf(const QueryRange &range) const {
  return state_->builder->build(range.queryBegin, range.queryEnd);
}
const CandidateSet &Session::candidates() const {
  std::call_once(state_->candidatesOnce, [&] {
    state_->candidates =
        buildCandidates(state_->dataset, state_->candidateOptions);
  });
  return state_->candidates;
}
const SessionOptions &Session::options() const { return state_->options; }
std::string Session::backendName() const { return state_->backend->name(); }
std::string Session::deviceName() const { return state_->deviceName; }
Backend &Session::backend() { return *state_->backend; }
const std::vector<Backend *> &Session::backends() const {
  return state_->backends;
}

SessionResult Session::evaluate(const TensorMap &weights,
                                const EvaluateControl &control) {
  // The call is timed whole: the checks and the hash of the weights too.
  const Clock::time_point start = Clock::now();
  checkWeights(state_->program, state_->dataset, weights, "weights");
  return state_->run(weights, nullptr, "", "host", tensorsSha256(weights),
                     control, start);
}

SessionResult Session::evaluate(const TensorViews &weights,
                                const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  State &s = *state_;
  s.checkViews(weights);
  bool onHost = false, onDevice = false;
  for (const auto &[name, v] : weights)
    (v.memory == MemoryKind::Cuda ? onDevice : onHost) = true;
  if (onHost && onDevice)
    fail("weights: some tensors are on the host and some on a CUDA device; "
         "give them all on one (e.g. all on the session's device)");
  if (!onDevice) {
    // Host memory: copied once into the session's own tensors.
    TensorMap map;
    for (const auto &[name, v] : weights) {
      Tensor t;
      t.shape = v.shape;
      const int64_t n = t.numel();
      t.data.resize(static_cast<size_t>(n));
      if (n > 0)
        std::memcpy(t.data.data(), v.data, static_cast<size_t>(n) * 4);
      for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(t.data[static_cast<size_t>(i)]))
          fail("weights: tensor '{}' holds a non-finite value ({}) at "
               "element {}",
               name, t.data[static_cast<size_t>(i)], i);
      map.emplace(name, std::move(t));
    }
    return s.run(map, nullptr, "", "host", tensorsSha256(map), control, start);
  }
  if (s.backends.size() > 1)
    fail("weights: tensor '{}' is on a CUDA device but the session runs on "
         "{} devices (devices {}); give host tensors (e.g. .cpu()), which "
         "every device gets a copy of",
         weights.begin()->first, s.backends.size(), s.options.devices);
  auto *cuda = dynamic_cast<CudaBackend *>(s.backend);
  if (!cuda)
    fail("weights: tensor '{}' is on a CUDA device but the session runs on "
         "{}; give host tensors (e.g. .cpu()) or open the session on cuda",
         weights.begin()->first, s.deviceName);
  std::map<std::string, DeviceWeight> pointers;
  for (const auto &[name, v] : weights) {
    if (v.device != cuda->deviceOrdinal())
      fail("weights: tensor '{}' is on cuda:{}, the session runs on cuda:{}",
           name, v.device, cuda->deviceOrdinal());
    pointers[name] = {reinterpret_cast<uint64_t>(v.data), v.shape};
  }
  // The weights stay on the device: no hash of their bytes (provenance
  // says so with an empty weights_sha256; docs/report-schema.md).
  static const TensorMap kNone;
  return s.run(kNone, &pointers, "", "cuda", "", control, start);
}

WeightsFile Session::loadWeights(const std::string &weightsPath) const {
  WeightsFile file;
  file.path = weightsPath;
  // Read once: parsed, and hashed for the report's provenance.
  const std::string bytes = readFile(weightsPath);
  SafetensorsMetadata metadata;
  file.tensors = parseSafetensors(bytes, weightsPath, &metadata);
  checkWeightsMetadata(metadata, state_->program, state_->dataset, weightsPath);
  file.sha256 = sha256Hex(bytes);
  checkWeights(state_->program, state_->dataset, file.tensors, weightsPath);
  return file;
}

SessionResult Session::evaluate(const WeightsFile &weights,
                                const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  return state_->run(weights.tensors, nullptr, weights.path, "", weights.sha256,
                     control, start);
}

RangeResult Session::evaluateRange(const WeightsFile &weights,
                                   const QueryRange &range,
                                   const EvaluateControl &control) {
  State::Streamed streamed =
      state_->stream(weights.tensors, nullptr, range, control);
  RangeResult out;
  out.range = range;
  out.outcomes = std::move(streamed.outcomes);
  out.pairs = std::move(streamed.pairs);
  out.counts = streamed.counts;
  out.timings = streamed.timings;
  out.chunks = streamed.chunks;
  out.chunkSize = streamed.chunkSize;
  return out;
}

SessionResult Session::finish(const WeightsFile &weights,
                              const QueryRange &range,
                              std::vector<Outcome> outcomes,
                              const BackendTimings &timings, int64_t chunks,
                              int64_t chunkSize) {
  if (static_cast<int64_t>(outcomes.size()) != range.candidates())
    fail("{} outcomes for the {} candidates of queries [{}, {})",
         outcomes.size(), range.candidates(), range.queryBegin, range.queryEnd);
  // Ranked from the layout's list sizes: no candidate is built.
  std::vector<PairRanks> pairs = rankPairs(layout(), range, outcomes);
  OutcomeCounts counts;
  counts.add(outcomes);
  SessionResult result = finish(weights, range, std::move(pairs), counts,
                                timings, chunks, chunkSize);
  result.outcomes = std::move(outcomes);
  return result;
}

SessionResult Session::finish(const WeightsFile &weights,
                              const QueryRange &range,
                              std::vector<PairRanks> pairs,
                              const OutcomeCounts &counts,
                              const BackendTimings &timings, int64_t chunks,
                              int64_t chunkSize) {
  return state_->finish(range, std::move(pairs), counts, timings, chunks,
                        chunkSize, weights.path, "", weights.sha256,
                        Clock::now(), std::chrono::system_clock::now());
}

SessionResult Session::evaluateFile(const std::string &weightsPath,
                                    const EvaluateControl &control) {
  return evaluate(loadWeights(weightsPath), control);
}

} // namespace proofc
