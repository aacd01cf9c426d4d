//===- CudaRollouts.cpp - Rollouts on the CUDA backend --------------------===//
//
// CudaBackend::rollouts() (Rollouts.h, docs/rollouts.md), on the device
// (docs/rollouts-cuda.md): the bundle's plan runs as for evaluation, with
// its step and slot modules compiled with -DPROOFC_ROLLOUT=1 (rollout.cu:
// the draw of sample.cu, drawing with proofc/contract/Sampling.h as the
// host backend does, and the recording of trajectory.cu, in the slot's
// block before its advance) and the step memo off; the pool is the
// request's triples, each K times (episode e = n * K + k is candidate e).
// The call's parameters go to the modules' proofc_rollout_params before
// the graph runs; DeviceTrajectories records and finishes the
// trajectories, which stay on the device.
//
// A runner (the device setup of CudaRunner) is kept between calls of one
// size on one dataset (RolloutInputs::kbId): a later call uploads only its
// triples.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include "bundle/RolloutBundle.h"
#include "proofc/runtime/Rollouts.h"
#include "support/Fail.h"

#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "cuda/DeviceTrajectories.h"
#include "proofc/contract/kernel_abi.h"

#include <algorithm>
#include <cstring>

namespace proofc {

struct CudaBackend::RolloutState {
  RolloutState(Bundle b, const std::string &p, const CudaBackendOptions &o)
      : bundle(std::move(b)), path(p), options(o),
        builds(bundle, path, options.cache, options.tiers) {
    options.memoEntries = 0; // a memoized step would replay the first draw
  }
  ~RolloutState() {
    CudaDriver &drv = CudaDriver::get();
    if (status)
      drv.cuMemFree(status);
    if (depth)
      drv.cuMemFree(depth);
  }
  RolloutState(const RolloutState &) = delete;
  RolloutState &operator=(const RolloutState &) = delete;
  Bundle bundle; ///< the rollouts' modules (-DPROOFC_ROLLOUT=1)
  std::string path;
  CudaBackendOptions options;
  /// The rollout modules' cubins, for every size's runner (before
  /// runner: released after it).
  ModuleBuilds builds;
  std::unique_ptr<CudaRunner> runner;
  std::unique_ptr<DeviceTrajectories> traj;
  CandidateSet candidates;   ///< the episodes, as the runner's candidates
  uint64_t shapeId = 0;      ///< the runner's (kbId and E)
  uint64_t calls = 0;        ///< the poolId of each call
  int32_t entries = 1 << 16; ///< the state table's, doubled on overflow
                             ///< and kept >= 2 U of the last call
  CUdeviceptr status = 0, depth = 0;
  int64_t statusEpisodes = 0;
};

namespace {

TensorView deviceView(CUdeviceptr p, std::vector<int64_t> shape,
                      const char *dtype, int device) {
  TensorView v;
  v.data = reinterpret_cast<const void *>(static_cast<uintptr_t>(p));
  v.shape = std::move(shape);
  v.dtype = dtype;
  v.memory = MemoryKind::Cuda;
  v.device = device;
  return v;
}

} // namespace

Trajectories CudaBackend::rollouts(const RolloutInputs &inputs) {
  const Clock::time_point callStart = Clock::now();
  const RolloutRequest &rq = inputs.request;
  const int64_t K = rq.episodesPerTriple;
  const int64_t E = static_cast<int64_t>(rq.triples.size()) * K;
  const ShapeParams &shape = inputs.program.shape;
  if (!rollouts_)
    rollouts_ = std::make_shared<RolloutState>(rolloutBundle(bundle_, path_),
                                               path_, options_);
  RolloutState &st = *rollouts_;
  // The first call's table: 32 entries an episode (a trained policy's
  // batch has a few to a few hundred distinct states an episode), so that
  // a large first batch does not run again and again while the table
  // doubles up to its size.
  if (st.calls == 0)
    while (st.entries < (1 << 24) && st.entries < E * 32)
      st.entries *= 2;

  st.candidates.candidates.clear();
  st.candidates.candidates.reserve(static_cast<size_t>(E));
  for (int64_t e = 0; e < E; ++e)
    st.candidates.candidates.push_back(
        Candidate{rq.triples[static_cast<size_t>(e / K)], 0, Mode::Head, 0});
  // One runner per size and dataset: a later call of the same size uploads
  // only its triples (EvalInputs::shapeId); kbId 0 promises nothing.
  const uint64_t shapeId = inputs.kbId == 0
                               ? 0
                               : (inputs.kbId * 0x9E3779B97F4A7C15ull) ^
                                     (static_cast<uint64_t>(E) << 1 | 1);
  EvalInputs eval{inputs.program,
                  inputs.dataset,
                  inputs.weights,
                  st.candidates,
                  inputs.factsIncludeValid,
                  inputs.control,
                  inputs.deviceWeights,
                  /*poolId=*/0x726f6c6c00000000ull + ++st.calls,
                  shapeId,
                  /*weightsId=*/0,
                  /*actions=*/nullptr};
  BackendTimings timings;
  const bool reuse = st.runner && shapeId != 0 && st.shapeId == shapeId &&
                     st.runner->sameShape(eval);
  try {
    if (reuse) {
      // On the quick tier: the optimized kernels, once compiled (before
      // the module globals below are written).
      st.runner->refreshModules();
      st.runner->uploadPool(eval, timings);
    } else {
      st.traj.reset();
      st.runner.reset();
      st.runner = std::make_unique<CudaRunner>(st.bundle, st.path, st.options,
                                               st.builds);
      st.runner->setup(eval, timings);
      st.shapeId = shapeId;
      KernelCache cache(st.options.cache);
      st.traj = std::make_unique<DeviceTrajectories>(
          CudaDriver::get(), cache, st.runner->ccMajor(), st.runner->ccMinor(),
          path_);
    }
    CudaRunner &runner = *st.runner;
    CudaDriver &drv = CudaDriver::get();
    const CUstream stream = runner.stream();
    // Every module with rollout code has the variable (a persistent
    // bundle's step module too, whose advance is not launched): all get
    // the parameters.
    const std::vector<CUdeviceptr> params = runner.moduleGlobals(
        "proofc_rollout_params", sizeof(proofc_abi::RolloutParams));
    if (params.empty())
      fail("{}: the rollout modules have no proofc_rollout_params", path_);
    // Pool position -> episode: the runner uploads the pool in poolOrder.
    const std::vector<int64_t> order =
        poolOrder(E, runner.binding().symbols().at("B"));
    std::vector<int32_t> episodeOf(order.begin(), order.end());

    std::vector<Outcome> outcomes;
    DeviceTrajectories::Recording rec;
    for (;;) {
      rec = st.traj->prepare(E, shape.D, shape.S, shape.A, st.entries, stream);
      const CUdeviceptr dEpisodeOf = st.traj->episodeMap(episodeOf);
      proofc_abi::RolloutParams p{};
      p.seed = rq.seed;
      p.episodeBase = rq.episodeBase;
      p.episodeOf = dEpisodeOf;
      p.logits = runner.bufferAddress("score_select_logits");
      p.table = rec.table;
      p.overflow = rec.overflow;
      p.stepState = rec.stepState;
      p.stepDerived = rec.stepDerived;
      p.stepCount = rec.stepCount;
      p.stepAction = rec.stepAction;
      p.stepLogp = rec.stepLogp;
      p.temperature = rq.mode == SelectMode::Sampled ? rq.temperature : 0.f;
      p.entries = rec.entries;
      p.D = rec.D;
      PROOFC_CU(drv, cuStreamSynchronize, stream); // prepare()'s fills
      for (CUdeviceptr at : params)
        PROOFC_CU(drv, cuMemcpyHtoD, at, &p, sizeof p);
      outcomes = runner.execute(eval, timings);
      if (!st.traj->overflowed(stream))
        break;
      if (st.entries >= (1 << 28))
        fail("{}: rollouts: the batch's distinct states do not fit a state "
             "table of 2^28 entries; split the batch",
             path_);
      st.entries *= 2; // and run the call again
    }
    addRunInfo(runner.info(), !reuse);

    // Per episode: status and depth from the outcomes (candidate order).
    std::vector<int32_t> status(static_cast<size_t>(E)),
        depth(static_cast<size_t>(E));
    for (int64_t e = 0; e < E; ++e) {
      status[e] = static_cast<int32_t>(outcomes[e].status);
      depth[e] = outcomes[e].depth;
    }
    const uint64_t bytes = static_cast<uint64_t>(std::max<int64_t>(E, 1)) * 4;
    if (st.statusEpisodes != E) {
      if (st.status)
        drv.cuMemFree(st.status);
      if (st.depth)
        drv.cuMemFree(st.depth);
      st.status = st.depth = 0;
      PROOFC_CU(drv, cuMemAlloc, &st.status, bytes);
      PROOFC_CU(drv, cuMemAlloc, &st.depth, bytes);
      st.statusEpisodes = E;
    }
    PROOFC_CU(drv, cuMemcpyHtoD, st.status, status.data(), E * 4);
    PROOFC_CU(drv, cuMemcpyHtoD, st.depth, depth.data(), E * 4);
    const DeviceTrajectories::Output out =
        st.traj->finish(st.depth, static_cast<int32_t>(K), rq.positive, stream);
    if (out.firstNonFinite >= 0) {
      int64_t e = 0, first = 0;
      while (e < E && first + depth[e] <= out.firstNonFinite)
        first += depth[e++];
      fail("rollouts: episode {} (triple {}, global id {}) step {}: a logit "
           "over its derived states is not finite (the weights overflow)",
           e, e / K, rq.episodeBase + static_cast<uint64_t>(e),
           out.firstNonFinite - first);
    }

    // The next call's table at a load of at most 1/2 for a batch like this
    // one (linear probing's walks stay short; trajectory.cu's kMaxProbes).
    while (st.entries < (1 << 28) && out.numStates * 2 > st.entries)
      st.entries *= 2;

    const int dev = options_.device;
    Trajectories t;
    t.status = deviceView(st.status, {E}, "I32", dev);
    t.depth = deviceView(st.depth, {E}, "I32", dev);
    t.triple = deviceView(out.triple, {E}, "I32", dev);
    t.positive = deviceView(out.positive, {E}, "U8", dev);
    t.logp = deviceView(out.logp, {E}, "F32", dev);
    t.states = deviceView(out.states, {out.numStates, shape.A, 3}, "I32", dev);
    t.stepEpisode = deviceView(out.stepEpisode, {out.steps}, "I32", dev);
    t.stepState = deviceView(out.stepState, {out.steps}, "I32", dev);
    t.stepDerived =
        deviceView(out.stepDerived, {out.steps, shape.S}, "I32", dev);
    t.stepCount = deviceView(out.stepCount, {out.steps}, "I32", dev);
    t.stepAction = deviceView(out.stepAction, {out.steps}, "I32", dev);
    t.stepLogp = deviceView(out.stepLogp, {out.steps}, "F32", dev);
    t.episodes = E;
    t.numStates = out.numStates;
    t.steps = out.steps;
    t.runSeconds = timings.runSeconds;
    t.callSeconds = secondsSince(callStart);
    return t;
  } catch (const Interrupted &) {
    throw; // the device state is intact
  } catch (...) {
    rollouts_.reset(); // a failed call's device state is not reused
    throw;
  }
}

} // namespace proofc

#else // !PROOFC_HAVE_CUDA

namespace proofc {

Trajectories CudaBackend::rollouts(const RolloutInputs &inputs) {
  (void)inputs;
  fail("rollouts need the CUDA backend, which this build does not have");
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
