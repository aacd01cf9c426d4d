//===- CudaRunner.h - one pool's device state and runs ----------*- C++ -*-===//
//
// Internal to the CUDA backend (CudaBackend.cpp keeps one CudaRunner per
// pool). A CudaRunner owns every driver object of its pool in a
// DriverObjects, which frees them in reverse order, also when an error
// unwinds. Its methods, one group a file:
//   RunnerSetup.cpp   the device, the knowledge base, the buffers and their
//                     first contents, the weights' uploads
//   ModuleLoader.cpp  every module's cubin (ModuleBuilds: the kernel
//                     cache, NVRTC, the PTX JIT and link, the tiers) loaded,
//                     and the quick tier's modules swapped for the
//                     optimized ones
//   GraphBuilder.cpp  the cond mode (probing conditional nodes), the
//                     prepared launches, the CUDA graph
//   Executors.cpp     one run: the native, emulated and host executors and
//                     the cancellation watcher
//   Readback.cpp      the outcomes and the recorded actions
//   Profiling.cpp     per-launch timing events (PROOFC_PROFILE=1)
// Built only with the CUDA headers (PROOFC_HAVE_CUDA).
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_CUDARUNNER_H
#define PROOFC_RUNTIME_CUDA_CUDARUNNER_H

#include "cuda/CudaBackend.h"

#include "cuda/CudaDriver.h"
#include "cuda/DevicePrologue.h"
#include "cuda/ModuleBuilds.h"
#include "cuda/PlanBinding.h"
#include "data/KnowledgeBase.h"
#include "support/Timing.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace proofc {

/// Every driver object of one run, released in reverse order of creation.
/// Errors while releasing are ignored: the run has failed or finished.
struct DriverObjects {
  CudaDriver &drv;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUstream cancelStream = nullptr; ///< non-blocking: the cancel write
  std::vector<CUdeviceptr> buffers;
  std::vector<CUmodule> modules;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  /// The zero fills before a run (buildResetGraph): one launch.
  CUgraph resetGraph = nullptr;
  CUgraphExec resetExec = nullptr;
  CUevent events[2] = {nullptr, nullptr};
  std::vector<CUevent> timing;       ///< profiling events (timing enabled)
  int32_t *pinned = nullptr;         ///< host-visible flag slots
  int32_t *pinnedOutcomes = nullptr; ///< readback staging: 3N words
  uint32_t *pinnedPool = nullptr;    ///< pool upload staging (uploadPool)
  /// Host weights' staging (stageHostWeights): pinned and on the device,
  /// `hostWeightWords` floats each, kept for the later calls.
  float *pinnedWeights = nullptr;
  CUdeviceptr hostWeights = 0;
  size_t hostWeightWords = 0;

  explicit DriverObjects(CudaDriver &d) : drv(d) {}
  ~DriverObjects() {
    if (ctx)
      drv.cuCtxSynchronize();
    if (exec)
      drv.cuGraphExecDestroy(exec);
    if (graph)
      drv.cuGraphDestroy(graph);
    if (resetExec)
      drv.cuGraphExecDestroy(resetExec);
    if (resetGraph)
      drv.cuGraphDestroy(resetGraph);
    for (CUevent e : events)
      if (e)
        drv.cuEventDestroy(e);
    for (CUevent e : timing)
      drv.cuEventDestroy(e);
    if (pinned)
      drv.cuMemFreeHost(pinned);
    if (pinnedOutcomes)
      drv.cuMemFreeHost(pinnedOutcomes);
    if (pinnedPool)
      drv.cuMemFreeHost(pinnedPool);
    if (pinnedWeights)
      drv.cuMemFreeHost(pinnedWeights);
    if (hostWeights)
      drv.cuMemFree(hostWeights);
    for (CUmodule m : modules)
      drv.cuModuleUnload(m);
    for (CUdeviceptr p : buffers)
      if (p)
        drv.cuMemFree(p);
    if (stream)
      drv.cuStreamDestroy(stream);
    if (cancelStream)
      drv.cuStreamDestroy(cancelStream);
    if (ctx)
      drv.cuDevicePrimaryCtxRelease(device);
  }
};

/// A launch with its function and its kernel-parameter block.
struct PreparedLaunch {
  std::string name;
  CUfunction function = nullptr;
  uint32_t grid = 1, block = 1, sharedBytes = 0;
  std::vector<uint64_t> storage; ///< one 8-byte slot per argument
  std::vector<void *> params;    ///< &storage[i]
  /// The "node:" arguments naming a launch: (index, launch). Their slot is
  /// 0 here; each graph node of this launch gets the address of the record
  /// of the next node of that launch (bindNodeArgs).
  std::vector<std::pair<size_t, std::string>> nodeArgs;
};

/// A kernel node of the native graph, in the order the graph runs them.
struct GraphKernelNode {
  CUgraphNode node = nullptr;
  const PreparedLaunch *launch = nullptr;
  CUgraphDeviceNode devNode = nullptr; ///< device-updatable nodes only
  bool inLoop = false;                 ///< in the WHILE body
};

class CudaRunner {
public:
  /// Out of line, as the destructor (Executors.cpp, where CancelThread
  /// is whole).
  /// `builds` gives the modules' cubins (it outlives the runner: a later
  /// pool's runner takes what this one's setup started).
  CudaRunner(const Bundle &bundle, const std::string &path,
             const CudaBackendOptions &options, ModuleBuilds &builds);
  /// Joins the cancel watcher's thread, then releases the rest.
  ~CudaRunner();
  CudaRunner(const CudaRunner &) = delete;
  CudaRunner &operator=(const CudaRunner &) = delete;

  /// Everything that does not depend on the weights: the device, the
  /// knowledge base, the buffers (first contents uploaded: the pool, the
  /// knowledge base, and the host weights' tables unless the weights are on
  /// the device), the modules, the launches and the graph.
  void setup(const EvalInputs &inputs, BackendTimings &timings);

  /// True when a run over `inputs` can reuse this setup: the same pool
  /// (EvalInputs::poolId), so the same knowledge base, buffers and graph,
  /// and the same recording of the actions (out.actions is sized for it).
  bool reusableFor(const EvalInputs &inputs) const;

  /// True when `inputs` are other candidates of this setup's size
  /// (EvalInputs::shapeId): only the pool's buffers need them.
  bool sameShape(const EvalInputs &inputs) const;

  /// Uploads `inputs`' candidates into the pool's buffers (sameShape());
  /// the run that follows sees them. The setup's pool is gone: poolId_
  /// becomes the new one's.
  void uploadPool(const EvalInputs &inputs, BackendTimings &timings);

  /// One run over the pool with inputs' weights: the state that depends on
  /// the weights (every zero-initialized buffer: slots, counters, step
  /// memo, outcomes) starts fresh unless setup() just made it, the weights
  /// and their tables are uploaded unless setup() just did, then the loop
  /// and the readback.
  std::vector<Outcome> execute(const EvalInputs &inputs,
                               BackendTimings &timings);

  /// Before a call (its module globals included: rollouts): a setup on
  /// the quick tier (CompileTiers.h) swaps its modules for the optimized
  /// ones once their background build is done, and builds its launches
  /// and graph again on them. Nothing else changes: buffers, pool and
  /// weights stay. A no-op on the optimized tier.
  void refreshModules();

  const CudaRunInfo &info() const { return info_; }

  // For rollouts (CudaRollouts.cpp), after setup():
  /// The device address of plan buffer `name`, or 0 when the plan has none.
  CUdeviceptr bufferAddress(const std::string &name) const;
  /// The device addresses of the variable `name` in every loaded module
  /// that has one of `bytes` bytes (cuModuleGetGlobal); a module whose
  /// variable has another size is an error.
  std::vector<CUdeviceptr> moduleGlobals(const char *name, size_t bytes) const;
  CUstream stream() const { return dev_.stream; }
  const PlanBinding &binding() const { return *binding_; }
  int ccMajor() const { return target_.major; }
  int ccMinor() const { return target_.minor; }

private:
  //===------------------------------------------------------------------===//
  // Setup (RunnerSetup.cpp)
  //===------------------------------------------------------------------===//

  /// The weights' buffers for a run after the first: the device prologue
  /// run over the weights, device weights in place, host weights staged
  /// (stageHostWeights; the host prologue's tables where no device prologue
  /// is to be had). The first run's come with the binding (the host
  /// prologue's tables).
  void uploadWeights(const EvalInputs &inputs);
  /// Host tensors copied as they are to the device (through pinned staging,
  /// one copy on the stream; both kept for later calls) and named in
  /// `weights` for the device prologue: a host weight's call then folds on
  /// the GPU like a device weight's, where the host prologue
  /// (runPlanPrologue) took about 1 ms of it (issue 28).
  void stageHostWeights(const TensorMap &host,
                        std::map<std::string, DeviceTensor> &weights);
  /// Whether host weights go through the device prologue: true unless its
  /// module cannot be had (then the host prologue's tables are uploaded).
  bool deviceFoldsHostWeights();

  void openDevice();
  /// The step memo's entries for `inputs`' pool: options_.memoEntries, or
  /// when that is auto (< 0) memoEntriesFor sized by the device's free
  /// memory (memoAutoCap).
  int64_t memoEntries(const EvalInputs &inputs);

  void allocate(PlanBinding &binding);

  /// The device prologue module's cubin on a tier, compiled in a thread
  /// of its own from here on (prologueCubin_), for devicePrologue().
  void startPrologueCompile(bool quick);

  /// The device prologue's module: loaded in setup where the first run
  /// needs it, else at the first run after the first (a one-shot run
  /// never loads it).
  DevicePrologue &devicePrologue();

  //===------------------------------------------------------------------===//
  // Modules (ModuleLoader.cpp)
  //===------------------------------------------------------------------===//

  /// Loads `set` (builds_' cubins for this setup, compiled in
  /// `compiledSeconds` from the setup's compile start): the modules'
  /// seconds (with the device prologue's compile, when setup started it).
  void loadModules(const ModuleSet &set, double compiledSeconds);

  /// Loads `set`'s cubins (modules_, dev_.modules; info_.quickKernels).
  void loadSet(const ModuleSet &set);

  //===------------------------------------------------------------------===//
  // The cond mode, the launches and the graph (GraphBuilder.cpp)
  //===------------------------------------------------------------------===//

  void resolveCondMode();

  std::vector<std::string> condNames() const;

  void prepareLaunches(
      const PlanBinding &binding,
      const std::map<std::string, CUgraphConditionalHandle> &handles);

  CUgraphNode addKernelNode(CUgraph graph, CUgraphNode dep, PreparedLaunch &l);

  /// Whether the native graph's "node:" arguments are bound: the driver
  /// has device-updatable kernel nodes (CUDA 12.4) and some launch names
  /// another's node.
  bool bindsGraphNodes() const;

  /// Gives each recorded kernel node with "node:" arguments the device
  /// address of the GraphNodeRecord (kernel_abi.h: handle and grid, in a
  /// device buffer made here) of the next node of the launch named (in the
  /// WHILE body, the next iteration's first one after the last), before
  /// instantiation.
  void bindNodeArgs();

  /// Appends `nodes` to `graph` after `dep`; returns the last node. Conds
  /// become IF nodes (native, unless `inlineConds`) or are inlined (their
  /// kernels check the flag themselves).
  CUgraphNode
  addNodes(CUgraph graph, CUgraphNode dep,
           const std::vector<ScheduleNode> &nodes,
           const std::map<std::string, CUgraphConditionalHandle> &handles,
           bool inlineConds = false);

  /// A conditional node after `dep` whose body graph `fillBody` fills.
  CUgraphNode addConditional(CUgraph graph, CUgraphNode dep,
                             CUgraphConditionalNodeType type,
                             CUgraphConditionalHandle handle,
                             const std::function<void(CUgraph)> &fillBody);

  void
  buildGraph(const std::map<std::string, CUgraphConditionalHandle> &handles);

  /// The launches and, unless the steps are host-driven, the graph on the
  /// loaded modules (native: the graph made first, with a handle for each
  /// cond): at setup and again after refreshModules' swap.
  void prepareGraph();

  /// The reset graph: one memset node for each of zeroBuffers_, which
  /// execute() launches before every run but the first. One graph launch
  /// instead of one cuMemsetD8Async per buffer (23 for V10's step
  /// schedule), each of which cost a few microseconds of host time on every
  /// Session call (docs/performance.md, row 44 and "The Session call after
  /// rows 42-43"). None when there is no buffer to reset.
  void buildResetGraph();

  //===------------------------------------------------------------------===//
  // Execution (Executors.cpp)
  //===------------------------------------------------------------------===//

  void launchDirect(const PreparedLaunch &l);

  int32_t readFlag(CUdeviceptr flag);

  /// Host-driven execution of nodes: conds read their flag first.
  void runNodesDirect(const std::vector<ScheduleNode> &nodes);

  /// Polled between graph launches (emulated) or steps (host) and after the
  /// loop; within a launch, CancelWatcher stops the device's loop.
  bool cancelled();

  int64_t runNative();

  int64_t runEmulated();

  int64_t runHost();

  /// The buffer proofc_init gets as `nextCand` (InitArg::NextCand), or 0 when
  /// the plan has no init launch.
  CUdeviceptr poolCounter(const PlanBinding &binding) const;

  CUdeviceptr flagPtr(const std::string &buffer);

  /// While the proof loop runs, a thread polls the run's cancellation flag
  /// every few milliseconds; once it is raised, it writes N to the pool
  /// counter (proofc_init's `nextCand`, the contract's one counter) from
  /// pinned memory on a non-blocking stream of its own, which the copy
  /// engine runs beside the kernels. From then on no slot takes a new
  /// candidate (advance.cu's finishCandidate: atomicAdd >= N), so the
  /// slots finish the candidates they hold — at most D steps, each after
  /// at most memo-max-waits waits (advance.cu) — and the
  /// loop ends on the device as at the end of the pool: the native WHILE
  /// graph and the persistent kernel included. Written again every 50 ms
  /// (a write that lands before proofc_init is overwritten by it).
  /// Nothing runs per step: the kernels' cost is unchanged. The caller
  /// then throws Interrupted: the outcomes are partial.
  class CancelWatcher;
  /// The thread behind it, kept from one run to the next.
  class CancelThread;

  //===------------------------------------------------------------------===//
  // Readback (Readback.cpp)
  //===------------------------------------------------------------------===//

  std::vector<Outcome> readOutcomes(const PlanBinding &binding);

  /// The recorded actions (out.actions, N x D words) of a run that records
  /// them, in candidate order.
  ActionTrace readActions(const PlanBinding &binding,
                          const std::vector<Outcome> &outcomes);

  //===------------------------------------------------------------------===//
  // Profiling (Profiling.cpp)
  //===------------------------------------------------------------------===//

  /// The next event of the profiling pool (made on first use; reused after
  /// collectTimings()).
  CUevent timingEvent();

  /// Adds the timed launches since the last call to launchSeconds; the
  /// stream must be synchronized.
  void collectTimings();

  /// The native graph's kernel nodes while it is built (bindNodeArgs),
  /// the launches named by "node:" arguments, whether this graph binds them
  /// (native, bindsGraphNodes) and whether addNodes is filling the WHILE
  /// body.
  std::vector<GraphKernelNode> graphNodes_;
  /// The native graph's GraphNodeRecords (bindNodeArgs; in dev_.buffers).
  CUdeviceptr nodeRecords_ = 0;
  std::set<std::string> nodeTargets_;
  bool bindingNodes_ = false;
  bool fillingLoop_ = false;

  const Bundle &bundle_;
  const std::string &path_;
  const CudaBackendOptions &options_;
  ModuleBuilds &builds_;
  CudaRunInfo info_; ///< setup's facts, then the last execute()'s counters
  DriverObjects dev_;
  KnowledgeBase kb_;
  std::unique_ptr<PlanBinding> binding_;
  std::unique_ptr<DevicePrologue> devicePrologue_;
  /// CancelWatcher's thread (made at the first run with a cancel flag);
  /// joined before dev_ goes.
  std::unique_ptr<CancelThread> cancelThread_;
  uint64_t poolId_ = 0;
  uint64_t shapeId_ = 0; ///< EvalInputs::shapeId of the setup
  uint64_t weightsId_ =
      0; ///< EvalInputs::weightsId of the weights on the device
  std::vector<size_t> zeroBuffers_; ///< reset before every run but the first
  bool stateFresh_ = true;          ///< zero buffers as allocated
  bool weightsCurrent_ = false;     ///< weight buffers hold this run's weights
  bool hostFoldsHostWeights_ = false; ///< no device prologue to be had
  CompileTarget target_;              ///< the device, as openDevice found it
  std::string arch_;
  std::map<std::string, CUmodule> modules_;
  std::map<std::string, PreparedLaunch> launches_;
  CUdeviceptr loopFlag_ = 0;
  const RunControl *control_ = nullptr;
  bool stoppedEarly_ = false; ///< cancelled before the pool was done
  // Profiling: launches timed since the last collectTimings().
  struct TimedLaunch {
    const std::string *name;
    CUevent before, after;
  };
  std::vector<TimedLaunch> timed_;
  size_t nextEvent_ = 0;
  /// The device prologue's cubin while setup compiles it
  /// (startPrologueCompile), and that compile's seconds (< 0 when none
  /// was started, or before it ended, or when it failed). Last: a compile
  /// still running is waited for first.
  double prologueSeconds_ = -1;
  bool quickPrologue_ = false; ///< devicePrologue_ is the quick tier's
  std::future<PrologueCubin> prologueCubin_;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_CUDARUNNER_H
