//===- Session.cpp - Load once, evaluate many weight sets -----------------===//
//
// The facade: the constructor binds (SessionState.h; the tools' sessions on
// backends they opened: SessionAccess.h), evaluate() checks the
// weights (host or device tensors, a weights file) and runs the call
// (SessionEngine.cpp), finish() makes the metrics and keeps the report's
// inputs (SessionReport.h makes the report on request). The
// backend keeps whatever does not depend on the weights between calls (the
// CUDA backend: context, modules, buffers, graph; CudaBackend.h), so a call
// costs the weights' upload, the proof loop and the readback.
//
//===----------------------------------------------------------------------===//
#include "session/SessionState.h"

#include "session/Devices.h"

namespace proofc {
namespace {

/// XXH3-128 of host tensors, for the provenance of weights given in memory
/// (`weights_xxh3`): per tensor in name order, its name, a NUL, its rank and
/// sizes as little-endian int64, then its float32 data as little-endian
/// bytes (docs/report-schema.md). Streamed over the tensors in place: a
/// training loop's call pays a pass over its weights at memory speed, no
/// copy (the hand-written SHA-256 over a concatenated copy cost more than
/// the upload; issue 28).
std::string tensorsDigest(const TensorMap &weights) {
  std::vector<std::string> heads;
  heads.reserve(weights.size());
  auto putI64 = [](std::string &bytes, int64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(
          static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  };
  std::vector<std::string_view> pieces;
  pieces.reserve(2 * weights.size());
  for (const auto &[name, tensor] : weights) {
    std::string head = name;
    head.push_back('\0');
    putI64(head, static_cast<int64_t>(tensor.shape.size()));
    for (int64_t s : tensor.shape)
      putI64(head, s);
    heads.push_back(std::move(head));
  }
  size_t i = 0;
  for (const auto &[name, tensor] : weights) {
    pieces.emplace_back(heads[i++]);
    pieces.emplace_back(reinterpret_cast<const char *>(tensor.data.data()),
                        tensor.data.size() * sizeof(float));
  }
  return checksumText(pieces);
}

} // namespace

SessionResult Session::State::finish(
    const QueryRange &range, std::vector<PairRanks> pairs,
    const OutcomeCounts &counts, const BackendTimings &timings, int64_t chunks,
    int64_t chunkSize, const std::string &weightsName,
    const std::string &weightsMemory, const std::string &weightsDigest,
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
    if (pairs[i].query != query || pairs[i].mode != static_cast<Mode>(i % 2) ||
        pairs[i].listSize !=
            layout().listSize(2 * query + static_cast<int64_t>(i % 2)))
      fail("the ranks of list {} are not those of query {} ({} list)", i, query,
           modeName(static_cast<Mode>(i % 2)));
  }
  SessionResult result;
  const Clock::time_point reportStart = Clock::now();
  // The report's inputs as of this call, by value; the rank metrics, the
  // backend details and the text are made on request (SessionReport.h).
  ReportInputs r;
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
  r.provenance.datasetFingerprint = fingerprint.get();
  (weightsDigest.rfind("xxh3:", 0) == 0 ? r.provenance.weightsXxh3
                                        : r.provenance.weightsSha256) =
      weightsDigest;
  r.provenance.startedUtc = utcTimestamp(startedWall);
  if (options.rankMetrics.perRelation)
    for (int32_t id = 0; id < dataset.numRelations(); ++id)
      r.relationNames.push_back(dataset.relations.name(id));
  r.timings = timings;
  r.backend = backend->name();
  r.device = deviceName;
  // What the backends say now: the next call clears it (clearInfo).
  std::vector<BackendInfo> infos;
  infos.reserve(backends.size());
  for (Backend *b : backends)
    infos.push_back(b->info());
  r.totalSeconds = secondsSince(callStart);
  result.metrics = r.metrics;
  result.setupSeconds = timings.setupSeconds;
  result.runSeconds = timings.runSeconds;
  result.readbackSeconds = timings.readbackSeconds;
  result.chunks = chunks;
  result.chunkSize = chunkSize;
  SessionAccess::setReport(result, std::make_shared<const SessionReport>(
                                       std::move(r), std::move(pairs),
                                       options.rankMetrics, std::move(infos)));
  result.reportSeconds = secondsSince(reportStart);
  result.callSeconds = secondsSince(callStart);
  return result;
}

SessionResult Session::State::run(
    const TensorMap &weights,
    const std::map<std::string, DeviceWeight> *deviceWeights,
    const std::string &weightsName, const std::string &weightsMemory,
    const std::string &weightsDigest, const EvaluateControl &evalControl,
    Clock::time_point callStart) {
  const auto startedWall = std::chrono::system_clock::now();
  const QueryRange all = wholeRange(layout());
  Streamed streamed = stream(weights, deviceWeights, all, evalControl);
  SessionResult out =
      finish(all, std::move(streamed.pairs), streamed.counts, streamed.timings,
             streamed.chunks, streamed.chunkSize, weightsName, weightsMemory,
             weightsDigest, callStart, startedWall);
  out.outcomes = std::move(streamed.outcomes);
  out.actions = std::move(streamed.actions);
  return out;
}

Session::Session(const std::string &bundlePath, SessionOptions options)
    : state_(std::make_unique<State>()) {
  Bundle bundle = readBundle(bundlePath);
  state_->options = std::move(options);
  OpenedBackends opened = openBackends(bundle, bundlePath, state_->options);
  state_->program = bundle.program;
  state_->backends = std::move(opened.backends);
  state_->owned = std::move(opened.owned);
  state_->deviceName = std::move(opened.device);
  state_->bind();
}

Session::Session(std::unique_ptr<State> state) : state_(std::move(state)) {}

Session::Session(Session &&) noexcept = default;
Session &Session::operator=(Session &&) noexcept = default;

Session SessionAccess::make(const ProgramSpec &program,
                            const std::vector<Backend *> &backends,
                            std::string deviceName, SessionOptions options) {
  auto state = std::make_unique<Session::State>();
  state->options = std::move(options);
  state->program = program;
  state->backends = backends;
  state->deviceName = std::move(deviceName);
  state->bind();
  return Session(std::move(state));
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
  return state_->run(weights, nullptr, "", "host", tensorsDigest(weights),
                     control, start);
}

Session::State::BoundViews
Session::State::bindViews(const TensorViews &weights) const {
  checkViews(weights);
  BoundViews bound;
  bool onHost = false, onDevice = false;
  for (const auto &[name, v] : weights)
    (v.memory == MemoryKind::Cuda ? onDevice : onHost) = true;
  if (onHost && onDevice)
    fail("weights: some tensors are on the host and some on a CUDA device; "
         "give them all on one (e.g. all on the session's device)");
  if (!onDevice) {
    // Host memory: copied once into the session's own tensors, checked as
    // it is copied (one pass over the bytes, not two).
    for (const auto &[name, v] : weights) {
      Tensor t;
      t.shape = v.shape;
      const int64_t n = t.numel();
      t.data.resize(static_cast<size_t>(n));
      const float *from = static_cast<const float *>(v.data);
      float *to = t.data.data();
      bool finite = true;
      for (int64_t i = 0; i < n; ++i) {
        const float x = from[i];
        to[i] = x;
        finite &= std::isfinite(x);
      }
      if (!finite)
        for (int64_t i = 0; i < n; ++i)
          if (!std::isfinite(to[i]))
            fail("weights: tensor '{}' holds a non-finite value ({}) at "
                 "element {}",
                 name, to[i], i);
      bound.host.emplace(name, std::move(t));
    }
    return bound;
  }
  // Several workers of one device read the same tensors; several devices
  // cannot.
  if (ordinals.size() > 1)
    fail("weights: tensor '{}' is on a CUDA device but the session runs on "
         "{} devices (devices {}); give host tensors (e.g. .cpu()), which "
         "every device gets a copy of",
         weights.begin()->first, ordinals.size(), options.devices);
  const int ordinal = ordinals.front();
  if (ordinal < 0)
    fail("weights: tensor '{}' is on a CUDA device but the session runs on "
         "{}; give host tensors (e.g. .cpu()) or open the session on cuda",
         weights.begin()->first, deviceName);
  for (const auto &[name, v] : weights) {
    if (v.device != ordinal)
      fail("weights: tensor '{}' is on cuda:{}, the session runs on cuda:{}",
           name, v.device, ordinal);
    bound.device[name] = {reinterpret_cast<uint64_t>(v.data), v.shape};
  }
  bound.onDevice = true;
  return bound;
}

SessionResult Session::evaluate(const TensorViews &weights,
                                const EvaluateControl &control) {
  const Clock::time_point start = Clock::now();
  State &s = *state_;
  const State::BoundViews bound = s.bindViews(weights);
  if (!bound.onDevice)
    return s.run(bound.host, nullptr, "", "host", tensorsDigest(bound.host),
                 control, start);
  // The weights stay on the device: no hash of their bytes (provenance
  // says so with null weights_sha256 and no weights_xxh3;
  // docs/report-schema.md).
  return s.run(bound.host, &bound.device, "", "cuda", "", control, start);
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

ReportedResult SessionAccess::evaluate(Session &session,
                                       const WeightsFile &weights,
                                       const EvaluateControl &control) {
  ReportedResult out;
  out.result = session.evaluate(weights, control);
  out.report = out.result.report_->inputs();
  return out;
}

RangeResult Session::State::Streamed::rangeResult(const QueryRange &range) && {
  RangeResult out;
  out.range = range;
  out.outcomes = std::move(outcomes);
  out.pairs = std::move(pairs);
  out.counts = counts;
  out.timings = timings;
  out.chunks = chunks;
  out.chunkSize = chunkSize;
  return out;
}

RangeResult Session::evaluateRange(const WeightsFile &weights,
                                   const QueryRange &range,
                                   const EvaluateControl &control) {
  return state_->stream(weights.tensors, nullptr, range, control)
      .rangeResult(range);
}

RangeResult SessionAccess::evaluateShard(Session &session,
                                         const WeightsFile &weights,
                                         const QueryRange &range,
                                         const EvaluateControl &control,
                                         const CrossShardCall &cross) {
  return session.state_
      ->stream(weights.tensors, nullptr, range, control, &cross)
      .rangeResult(range);
}

const std::string &SessionAccess::datasetFingerprint(const Session &session) {
  return session.state_->fingerprint.get();
}

const ShardSharing &SessionAccess::shardSharing(Session &session,
                                                int64_t shardCount) {
  Session::State &state = *session.state_;
  if (!state.shardSharing || state.shardSharing->shardCount != shardCount)
    state.shardSharing = std::make_shared<const ShardSharing>(
        SharedLists::acrossShards(*state.builder, shardCount));
  return *state.shardSharing;
}

ShardSharing
SessionAccess::rangeSharing(Session &session,
                            const std::vector<QueryRange> &ranges) {
  return SharedLists::acrossRanges(*session.state_->builder, ranges,
                                   SharedLists::Owner::First);
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

ReportedResult SessionAccess::finish(
    Session &session, const WeightsFile &weights, const QueryRange &range,
    std::vector<PairRanks> pairs, const OutcomeCounts &counts,
    const BackendTimings &timings, int64_t chunks, int64_t chunkSize) {
  ReportedResult out;
  out.result = session.finish(weights, range, std::move(pairs), counts, timings,
                              chunks, chunkSize);
  out.report = out.result.report_->inputs();
  return out;
}

SessionResult Session::evaluateFile(const std::string &weightsPath,
                                    const EvaluateControl &control) {
  return evaluate(loadWeights(weightsPath), control);
}

} // namespace proofc
