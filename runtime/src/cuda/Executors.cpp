//===- Executors.cpp - one run over the pool
//--------------------------------===//
//
// execute(): the fresh state and the weights, then the loop in the cond
// mode (runNative: one graph launch; runEmulated: graph launches of K
// steps, two in flight, the loop flag read back after each; runHost: the
// host reads every flag and launches each step's kernels), then the
// readback. While the loop runs, CancelWatcher stops the device's loop
// from its side when the run is cancelled (its thread, CancelThread, kept
// by the runner from one run to the next).
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "proofc/contract/kernel_abi.h"
#include "support/Cancellation.h"
#include "support/Fail.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace proofc {

/// The watcher's thread, started at a runner's first run with a cancel
/// flag and kept for the later ones (starting and joining a thread per run
/// cost about 0.1 ms of an in-loop call: issue 28). Idle between runs;
/// armed for a run's loop, it checks the flag every 2 ms.
class CudaRunner::CancelThread {
public:
  explicit CancelThread(CudaRunner &r) : r_(r), thread_([this] { loop(); }) {}
  ~CancelThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  /// Watches r_.control_ for this run, writing to `counter` when raised.
  void arm(CUdeviceptr counter) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      counter_ = counter;
      armed_ = true;
    }
    wake_.notify_one();
  }
  /// Once it returns no copy is being issued and none will be (the copies
  /// run under the lock); the caller waits for those issued.
  void disarm() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      armed_ = false;
    }
    wake_.notify_one();
  }

private:
  void loop() {
    CudaDriver &drv = r_.dev_.drv;
    CUcontext current = nullptr;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return armed_ || quit_; });
      if (quit_)
        return;
      // The runner's context (the same across its setups: the device's
      // primary context), set on this thread once.
      if (current != r_.dev_.ctx) {
        if (drv.cuCtxSetCurrent(r_.dev_.ctx) != CUDA_SUCCESS) {
          wake_.wait(lock, [this] { return !armed_ || quit_; });
          continue; // no cancel from the device's side this run
        }
        current = r_.dev_.ctx;
      }
      Clock::time_point sent{};
      bool any = false;
      while (!wake_.wait_for(lock, std::chrono::milliseconds(2),
                             [this] { return !armed_ || quit_; })) {
        if (!r_.control_->cancelled())
          continue;
        if (any && secondsSince(sent) < 0.05)
          continue;
        // An error leaves the run to finish the pool; it is still
        // reported as Interrupted.
        drv.cuMemcpyHtoDAsync(counter_, r_.dev_.pinned + 4, 4,
                              r_.dev_.cancelStream);
        sent = Clock::now();
        any = true;
      }
    }
  }

  CudaRunner &r_;
  std::mutex mutex_;
  std::condition_variable wake_;
  CUdeviceptr counter_ = 0;
  bool armed_ = false, quit_ = false;
  std::thread thread_; // last: started once the rest exists
};

/// The watcher for one run's loop: arms the runner's CancelThread (made at
/// the first run that needs one) and disarms it, the copies drained.
class CudaRunner::CancelWatcher {
public:
  CancelWatcher(CudaRunner &r, const PlanBinding &binding) : r_(r) {
    if (!r.control_ || !r.control_->cancel)
      return;
    const CUdeviceptr counter = r.poolCounter(binding);
    const int64_t n = binding.symbols().at("N");
    if (!counter || n <= 0)
      return; // nothing to stop on the device
    r.dev_.pinned[4] = static_cast<int32_t>(n);
    if (!r.dev_.cancelStream)
      PROOFC_CU(r.dev_.drv, cuStreamCreate, &r.dev_.cancelStream,
                CU_STREAM_NON_BLOCKING);
    if (!r.cancelThread_)
      r.cancelThread_ = std::make_unique<CancelThread>(r);
    r.cancelThread_->arm(counter);
    armed_ = true;
  }
  ~CancelWatcher() {
    if (!armed_)
      return;
    r_.cancelThread_->disarm();
    r_.dev_.drv.cuStreamSynchronize(r_.dev_.cancelStream); // the copies
  }

private:
  CudaRunner &r_;
  bool armed_ = false;
};

CudaRunner::CudaRunner(const Bundle &bundle, const std::string &path,
                       const CudaBackendOptions &options, ModuleBuilds &builds)
    : bundle_(bundle), path_(path), options_(options), builds_(builds),
      dev_(CudaDriver::get()) {}

CudaRunner::~CudaRunner() = default;

std::vector<Outcome> CudaRunner::execute(const EvalInputs &inputs,
                                         BackendTimings &timings) {
  const Clock::time_point start = Clock::now();
  // A session's calls may come from any thread, one at a time.
  PROOFC_CU(dev_.drv, cuCtxSetCurrent, dev_.ctx);
  control_ = inputs.control;
  stoppedEarly_ = false;
  info_.graphLaunches = 0;
  info_.hostFlagReads = 0;
  info_.launchSeconds.clear();
  if (!stateFresh_ && dev_.resetExec)
    dev_.drv.check(dev_.drv.launchGraph(dev_.resetExec, dev_.stream),
                   "cuGraphLaunch");
  stateFresh_ = false;
  // The blocks of one call share their weights (EvalInputs::weightsId):
  // the prologue's tables on the device are already theirs.
  const bool sameWeights =
      inputs.weightsId != 0 && inputs.weightsId == weightsId_;
  if (!weightsCurrent_ && !sameWeights) {
    uploadWeights(inputs);
    weightsId_ = inputs.weightsId;
  }
  weightsCurrent_ = false;
  PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream);
  timings.setupSeconds += secondsSince(start);

  {
    // One launch may run the whole pool (the native WHILE graph; the
    // persistent kernel in every mode): the watcher stops it from the
    // device's side when the run is cancelled. Its thread starts and
    // joins outside the timed loop.
    CancelWatcher watcher(*this, *binding_);
    const Clock::time_point loop = Clock::now();
    switch (info_.cond) {
    case CondMode::Native:
      timings.steps = runNative();
      break;
    case CondMode::Emulated:
      timings.steps = runEmulated();
      break;
    case CondMode::Host:
      timings.steps = runHost();
      break;
    }
    PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream); // drained
    timings.runSeconds = secondsSince(loop);
  }
  // Raised while the loop ran: the pool may not have been done.
  if (cancelled())
    throwInterrupted();
  const Clock::time_point readback = Clock::now();
  std::vector<Outcome> outcomes = readOutcomes(*binding_);
  if (inputs.actions)
    *inputs.actions = readActions(*binding_, outcomes);
  timings.readbackSeconds = secondsSince(readback);
  return outcomes;
}

void CudaRunner::launchDirect(const PreparedLaunch &l) {
  CUevent before = nullptr, after = nullptr;
  if (info_.profiled) {
    before = timingEvent();
    after = timingEvent();
    PROOFC_CU(dev_.drv, cuEventRecord, before, dev_.stream);
  }
  PROOFC_CU(dev_.drv, cuLaunchKernel, l.function, l.grid, 1, 1, l.block, 1, 1,
            l.sharedBytes, dev_.stream, const_cast<void **>(l.params.data()),
            nullptr);
  if (info_.profiled) {
    PROOFC_CU(dev_.drv, cuEventRecord, after, dev_.stream);
    timed_.push_back({&l.name, before, after});
  }
}

int32_t CudaRunner::readFlag(CUdeviceptr flag) {
  PROOFC_CU(dev_.drv, cuMemcpyDtoHAsync, dev_.pinned, flag, 4, dev_.stream);
  PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream);
  if (info_.profiled)
    collectTimings();
  ++info_.hostFlagReads;
  return dev_.pinned[0];
}

void CudaRunner::runNodesDirect(const std::vector<ScheduleNode> &nodes) {
  for (const ScheduleNode &n : nodes) {
    if (!n.launch.empty())
      launchDirect(launches_.at(n.launch));
    else if (readFlag(flagPtr(n.flag)))
      runNodesDirect(n.body);
  }
}

bool CudaRunner::cancelled() {
  if (control_ && control_->cancelled())
    stoppedEarly_ = true;
  return stoppedEarly_;
}

int64_t CudaRunner::runNative() {
  if (cancelled())
    return 0;
  dev_.drv.check(dev_.drv.launchGraph(dev_.exec, dev_.stream), "cuGraphLaunch");
  info_.graphLaunches = 1;
  return 0; // the WHILE node iterates on the device, uncounted
}

int64_t CudaRunner::runEmulated() {
  runNodesDirect(bundle_.plan.schedule.setup);
  const int unroll = std::max(1, options_.unroll);
  int64_t issued = 0, checked = 0;
  auto issue = [&] {
    const int slot = static_cast<int>(issued % 2);
    dev_.drv.check(dev_.drv.launchGraph(dev_.exec, dev_.stream),
                   "cuGraphLaunch");
    PROOFC_CU(dev_.drv, cuMemcpyDtoHAsync, dev_.pinned + 1 + slot, loopFlag_, 4,
              dev_.stream);
    PROOFC_CU(dev_.drv, cuEventRecord, dev_.events[slot], dev_.stream);
    ++issued;
  };
  // Two launches in flight: surplus steps after the last candidate are
  // no-ops (every kernel of the step returns when the loop flag is 0).
  issue();
  issue();
  for (;;) {
    const int slot = static_cast<int>(checked % 2);
    PROOFC_CU(dev_.drv, cuEventSynchronize, dev_.events[slot]);
    ++info_.hostFlagReads;
    ++checked;
    if (dev_.pinned[1 + slot] == 0)
      break;
    if (cancelled())
      break; // the other launch in flight drains below
    issue(); // reuses the slot just read
  }
  // The tail after the loop, behind the launch still in flight (one
  // stream); a cancelled run has no tail to finish.
  if (!stoppedEarly_)
    runNodesDirect(bundle_.plan.schedule.tail);
  info_.graphLaunches = issued;
  return checked * unroll;
}

int64_t CudaRunner::runHost() {
  runNodesDirect(bundle_.plan.schedule.setup);
  int64_t steps = 0;
  while (readFlag(loopFlag_)) {
    if (cancelled())
      break;
    runNodesDirect(bundle_.plan.schedule.step);
    ++steps;
  }
  if (!stoppedEarly_)
    runNodesDirect(bundle_.plan.schedule.tail);
  return steps;
}

CUdeviceptr CudaRunner::poolCounter(const PlanBinding &binding) const {
  for (const Launch &launch : bundle_.plan.launches) {
    if (launch.role != LaunchRole::Init)
      continue;
    // The binding checked a proofc_init launch against kernel_abi.h; the
    // role alone does not name the entry, so the index is checked too.
    const BoundLaunch &bound = binding.launch(launch.name);
    const size_t nextCand = proofc_abi::InitArg::NextCand;
    if (bound.args.size() > nextCand &&
        bound.args[nextCand].kind == BoundArg::Kind::Buffer)
      return dev_.buffers.at(bound.args[nextCand].buffer);
  }
  return 0;
}

CUdeviceptr CudaRunner::flagPtr(const std::string &buffer) {
  for (size_t i = 0; i < bundle_.plan.buffers.size(); ++i)
    if (bundle_.plan.buffers[i].name == buffer)
      return dev_.buffers[i];
  fail("{}: unknown flag buffer '{}'", path_, buffer);
}

CUdeviceptr CudaRunner::bufferAddress(const std::string &name) const {
  for (size_t i = 0; i < bundle_.plan.buffers.size(); ++i)
    if (bundle_.plan.buffers[i].name == name)
      return dev_.buffers[i];
  return 0;
}

std::vector<CUdeviceptr> CudaRunner::moduleGlobals(const char *name,
                                                   size_t bytes) const {
  std::vector<CUdeviceptr> out;
  for (const auto &[moduleName, module] : modules_) {
    CUdeviceptr p = 0;
    size_t size = 0;
    if (dev_.drv.cuModuleGetGlobal(&p, &size, module, name) != CUDA_SUCCESS)
      continue;
    if (size != bytes)
      fail("{}: module '{}': {} has {} bytes, {} expected", path_, moduleName,
           name, size, bytes);
    out.push_back(p);
  }
  return out;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
