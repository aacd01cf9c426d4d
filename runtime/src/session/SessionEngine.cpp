//===- SessionEngine.cpp - A call's blocks: built, run, ranked ------------===//
//
// The block engine of a Session call: runBlock runs one block of the pool on
// a device worker (in chunks, checked, recorded), stream pipelines the
// blocks (BlockPipeline.h) and hands each to the caller as it finishes.
//
//===----------------------------------------------------------------------===//
#include "session/SessionState.h"

namespace proofc {

void Session::State::runBlock(
    PipelineBlock &block, CandidateSet &set, int worker,
    const TensorMap &weights,
    const std::map<std::string, DeviceWeight> *deviceWeights, bool wholePool,
    bool shared, const RunShape &shape, const EvaluateControl &evalControl,
    ProgressTally &progress) {
  Backend *backend = backends.at(static_cast<size_t>(worker));
  std::vector<Candidate> &pool = set.candidates;
  const CandidateLayout *numbering = shared ? &layout() : nullptr;
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
  if (size < n) // several chunks (one is moved in whole)
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
                        block.range.candidateBegin, numbering);
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
    // Last: the recording's check above reads outcomes.size().
    if (whole)
      block.outcomes = std::move(outcomes); // a block in one chunk: no copy
    else
      block.outcomes.insert(block.outcomes.end(), outcomes.begin(),
                            outcomes.end());
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
  // The block's every candidate, the shared lists' copies included.
  progress.report(evalControl, worker, block.range.candidates(), true);
}

Session::State::Streamed
Session::State::stream(const TensorMap &weights,
                       const std::map<std::string, DeviceWeight> *deviceWeights,
                       const QueryRange &range, const EvaluateControl &control,
                       const CrossShardCall *cross) {
  const QueryRange all = wholeRange(layout());
  if (cross && (control.keepOutcomes || control.onBlock || !cross->sharing ||
                !cross->out || !options.shareLists))
    fail("sharing lists across shards needs a call that only tallies, with "
         "shared lists on");
  if (range.queryBegin < 0 || range.queryBegin > range.queryEnd ||
      range.queryEnd > all.queryEnd ||
      !(queryRange(layout(), range.queryBegin, range.queryEnd) == range))
    fail("candidate range [{}, {}) of queries [{}, {}) is not a range of "
         "the {} candidates",
         range.candidateBegin, range.candidateEnd, range.queryBegin,
         range.queryEnd, all.candidateEnd);
  for (Backend *b : backends)
    b->clearInfo(); // the report describes this call
  const int64_t target = options.blockCandidates > 0 ? options.blockCandidates
                                                     : kDefaultBlockCandidates;
  // Lists that hold the same corruptions run them once (SharedLists.h);
  // the blocks are cut by the candidates that run. The whole pool's plan is
  // made once (the in-loop call evaluates it again and again), a range's
  // per call; nothing kept by an earlier call (one interrupted, say, with
  // other weights) survives into this one.
  std::optional<SharedLists> rangePlan;
  std::optional<SharedLists> &planned =
      range == all && !cross ? wholePoolPlan : rangePlan;
  if (!planned)
    planned.emplace(*builder, range, options.shareLists,
                    options.recordActions ? program.shape.D : 0,
                    SharedLists::defaultKeepBytes(),
                    cross ? cross->sharing : nullptr, cross ? cross->shard : 0);
  SharedLists &shared = *planned;
  shared.forgetKept();
  const CandidateLayout &runLayout = shared.runLayout();
  const QueryRange runRange =
      queryRange(runLayout, range.queryBegin, range.queryEnd);
  std::vector<QueryRange> blocks = streamBlocks(
      runLayout, runRange, target, static_cast<int64_t>(backends.size()));
  if (blocks.empty())
    blocks.push_back(runRange); // one (empty) run still checks the backend
  // CUDA, several blocks: one device setup for all (EvalInputs::shapeId),
  // sized by the largest block that runs.
  RunShape shape;
  shape.weightsId = uniqueId(); // one set of weights for the whole call
  if (backend->prefersOneRunSize() && blocks.size() > 1) {
    shape.id = uniqueId();
    for (const QueryRange &b : blocks)
      shape.largest = std::max(shape.largest, b.candidates());
  }
  for (QueryRange &b : blocks) // in the pool's numbering
    b = queryRange(layout(), b.queryBegin, b.queryEnd);
  const bool wholePool = blocks.size() == 1 && range == all && !cross;
  // Nothing asks for the copies' outcomes (no outcome kept, no block handed
  // on): ranks and counts from the candidates that ran (SharedLists::tally).
  const bool tallyOnly =
      shared.any() && !wholePool && !control.keepOutcomes && !control.onBlock;
  const int64_t total = range.candidates();
  const int threads = hostThreads();
  const int workers = static_cast<int>(backends.size());
  ProgressTally progress;
  progress.running.assign(backends.size(), 0);
  progress.total = total;

  Streamed out;
  out.pairs.reserve(static_cast<size_t>(2 * range.queries()));
  if (control.keepOutcomes && blocks.size() > 1)
    out.outcomes.reserve(static_cast<size_t>(total));
  if (control.keepOutcomes && options.recordActions)
    out.actions.D = program.shape.D;
  PipelineStages stages;
  stages.build = [&](const QueryRange &r) {
    if (wholePool) {
      const std::lock_guard<std::mutex> lock(wholePoolMutex);
      if (wholePoolSet) {
        CandidateSet lent = std::move(*wholePoolSet);
        wholePoolSet.reset();
        return lent;
      }
    }
    // Shared lists: only what runs; the consumer builds the whole block
    // (the whole pool is built whole, kept for the next call, and what runs
    // of it made by the run stage).
    if (shared.any() && !wholePool)
      return shared.runSet(*builder, r.queryBegin, r.queryEnd, shape.largest);
    return builder->build(r.queryBegin, r.queryEnd, shape.largest);
  };
  stages.run = [&](PipelineBlock &block, int worker) {
    if (!shared.any() || !wholePool) {
      runBlock(block, block.candidates, worker, weights, deviceWeights,
               wholePool, shared.any(), shape, control, progress);
      return;
    }
    // The whole pool, lent whole: what runs of it is kept likewise.
    std::optional<CandidateSet> runSet;
    {
      const std::lock_guard<std::mutex> lock(wholePoolMutex);
      runSet.swap(wholePoolRunSet);
    }
    if (!runSet)
      runSet = shared.runSet(*builder, range.queryBegin, range.queryEnd, 0);
    runBlock(block, *runSet, worker, weights, deviceWeights, wholePool, true,
             shape, control, progress);
    const std::lock_guard<std::mutex> lock(wholePoolMutex);
    wholePoolRunSet = std::move(runSet);
  };
  stages.consume = [&](PipelineBlock &block) {
    std::vector<PairRanks> pairs;
    if (tallyOnly) {
      shared.tally(block.candidates, block.outcomes, pairs, out.counts);
    } else if (shared.any()) {
      // The block whole (the builder ran only what runs), then the copies'
      // corruptions from their sources: in this block or an earlier one,
      // consumed in order.
      if (!wholePool)
        block.candidates =
            builder->build(block.range.queryBegin, block.range.queryEnd);
      shared.expand(block.candidates, block.outcomes,
                    options.recordActions ? &block.actions : nullptr);
    }
    if (!tallyOnly) {
      pairs = rankPairs(block.candidates, block.outcomes);
      out.counts.add(block.outcomes);
    }
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
      if (blocks.size() == 1) // the in-loop call's pool: no copy
        out.outcomes = std::move(block.outcomes);
      else
        out.outcomes.insert(out.outcomes.end(), block.outcomes.begin(),
                            block.outcomes.end());
      if (options.recordActions)
        out.actions.actions.insert(out.actions.actions.end(),
                                   block.actions.actions.begin(),
                                   block.actions.actions.end());
    }
    if (wholePool) { // for the next call
      const std::lock_guard<std::mutex> lock(wholePoolMutex);
      wholePoolSet = std::move(block.candidates);
    }
  };
  // Builders: candidates are cheap next to a run; two per device worker
  // keep ahead of any backend. One block in flight per worker, and one
  // more, besides the one being consumed.
  runBlockPipeline(blocks, stages, std::min(threads, 2 * workers), workers, 2,
                   control.cancel);
  if (control.cancel && control.cancel->load(std::memory_order_relaxed))
    throwInterrupted();
  if (cross)
    *cross->out = shared.takeCrossShard();
  return out;
}

} // namespace proofc
