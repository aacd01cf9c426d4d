//===- CudaBackend.h - Executes a bundle's GpuPlan on a CUDA GPU -*- C++
//-*-===//
//
// The `--device cuda` backend. Generic over the plan: it resolves the
// run-time symbols, allocates every buffer once, uploads the bindings, loads
// the modules through the disk kernel cache (NVRTC for CUDA C++, the driver
// JIT for PTX; a cold setup may start on the quick tier, CompileTiers.h)
// and builds ONE CUDA graph with cuGraphAddNode: the schedule's
// setup launches, then K copies of the step under a conditional WHILE node, the
// first copy's conds as conditional IF nodes (a handle drives one node; the
// later copies' cond bodies check their flag themselves). Outcomes are
// written on the device and copied back once; ranking stays on the host.
//
// CondMode picks how the loop and conds run:
//   native    conditional graph nodes (handles set on the device); the
//             WHILE body holds K copies of the step;
//   emulated  no conditional nodes: the step is unrolled K times per graph
//             launch, kernels in a cond body return at once when its flag is
//             0, and the host reads the loop flag (pinned, async) after each
//             launch, two launches in flight;
//   host      the V10 behaviour for comparison: the host reads the flags
//             every step and launches the cond bodies only when set.
// Native falls back to emulated, with a one-line notice, when the probe says
// this driver/device cannot run conditional nodes. BackendTimings::steps:
// host mode counts steps exactly, emulated mode K x the graph launches that
// found a slot active, native mode 0 (the WHILE node iterates on the device
// uncounted).
//
// This header needs no CUDA headers; a build without them gets a backend
// whose run() throws a clear error.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_CUDABACKEND_H
#define PROOFC_RUNTIME_CUDA_CUDABACKEND_H

#include "bundle/Bundle.h"
#include "cuda/CompileTiers.h"
#include "cuda/KernelCache.h"
#include "proofc/runtime/Evaluation.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace proofc {

class ModuleBuilds;

enum class CondMode { Native, Emulated, Host };
const char *condModeName(CondMode mode);
/// "native" | "emulated" | "host"; throws proofc::Error naming `flag`.
CondMode parseCondMode(const std::string &text, const std::string &flag);

struct CudaBackendOptions {
  CondMode cond = CondMode::Native;
  int device = 0; ///< CUDA device ordinal
  int unroll = 8; ///< K, steps per WHILE iteration (native) or per graph
                  ///< launch (emulated)
  /// Time every kernel launch with events (host-driven steps, no graph):
  /// slower, for the per-phase split in CudaRunInfo::launchSeconds. Default
  /// from the environment variable PROOFC_PROFILE=1.
  bool profile = profileFromEnvironment();
  static bool profileFromEnvironment();
  KernelCacheOptions cache = KernelCacheOptions::fromEnvironment();
  /// Whether a cold setup starts on the quick kernels (CompileTiers.h).
  /// Default from the environment variable PROOFC_COMPILE_TIERS.
  CompileTiers tiers = compileTiersFromEnvironment();
  /// The step memo's entries for bundles that have one (persistent
  /// schedule): < 0 sized from the pool within a quarter of the free device
  /// memory (memoEntriesFor, memoAutoCap), 0 off.
  int64_t memoEntries = -1;
};

/// CudaRunInfo::moduleCompileSeconds' name of the runtime's own device
/// prologue module (prologue.cu), beside the bundle's (the compiler names
/// those with identifiers: policy, step, advance, slot, ...).
inline constexpr const char *kDevicePrologueModule = "device prologue";

/// What a run did, for reports (valid after run()).
struct CudaRunInfo {
  std::string device;               ///< e.g. "NVIDIA H100 80GB HBM3 (sm_90)"
  CondMode cond = CondMode::Native; ///< the mode actually used
  bool condFellBack = false;        ///< native requested, emulated used
  size_t deviceBytes = 0;           ///< all plan buffers
  KernelCacheStats cache;
  /// Wall time to get every module's cubin (from the cache, or compiled,
  /// all modules at once) and load it: a cold program's compile time,
  /// until it can run (on the quick tier when it starts on it).
  double moduleSeconds = 0;
  /// The last call ran on the quick tier's kernels (CompileTiers.h).
  bool quickKernels = false;
  /// The setup started on the quick tier (its optimized kernels were
  /// compiled in the background).
  bool tiered = false;
  /// When tiered: seconds from the first setup's start until the
  /// optimized kernels were compiled; < 0 while they still compile.
  double optimizedModuleSeconds = -1;
  /// Per loaded module (by name): the wall time of its own thread to get
  /// its cubin, with the modules linked into it (from the cache, or
  /// compiled): which one a cold program waits for. With the runtime's
  /// device prologue (kDevicePrologueModule) where setup compiled it
  /// beside them.
  std::map<std::string, double> moduleCompileSeconds;
  int64_t graphLaunches = 0;
  int64_t hostFlagReads = 0;
  bool profiled = false; ///< CudaBackendOptions::profile was set
  /// Profiled runs: kernel time per launch name (summed over the run).
  std::map<std::string, double> launchSeconds;
  /// The launch names of the engine and of the policy (for the phase split),
  /// and of the persistent kernel, which is both (not split).
  std::vector<std::string> engineLaunches, policyLaunches, fusedLaunches;
};

/// The report's "backend_details" for a CUDA run: device, cond mode, device
/// bytes, kernel cache (hits, misses, compile and load seconds: a warm run
/// has no misses and no compile time), the modules' seconds (all, and each
/// module's compile), graph launches and host flag reads;
/// for a profiled run also "phases" (policy_s, engine_s, rest_s, by_launch).
nlohmann::json cudaRunInfoJson(const CudaRunInfo &info);

/// True when built with the CUDA headers.
bool cudaBackendBuilt();
/// True when the backend is built, the driver loads and a device exists;
/// otherwise `why` says why not (for --device auto).
bool cudaDeviceAvailable(std::string *why = nullptr);
/// The CUDA devices the driver sees (the ordinals 0..count-1), 0 when
/// cudaDeviceAvailable() is false (`why` then says why).
int cudaDeviceCount(std::string *why = nullptr);

/// Keeps its device state (context, knowledge base, buffers, modules,
/// graph) between runs over the same pool (EvalInputs::poolId): a later run
/// resets the zero-initialized buffers, uploads the weights and runs the
/// loop (Session.h). A run over other candidates of the same size
/// (EvalInputs::shapeId: the blocks of a streamed call) also keeps it and
/// uploads only the candidates. Any other pool, or a run that failed (not
/// one that was cancelled), sets the device up anew.
class CudaBackend : public Backend {
public:
  CudaBackend(Bundle bundle, std::string bundlePath,
              CudaBackendOptions options = {});
  ~CudaBackend() override;
  std::string name() const override { return "cuda"; }
  /// Runs of one size keep the device setup (EvalInputs::shapeId).
  bool prefersOneRunSize() const override { return true; }
  /// Records each step's action with inputs.actions (the plan's
  /// out.actions; docs/proofs.md), at no cost to a run without it.
  bool recordsActions() const override { return true; }
  /// Checks the cancellation flag of inputs.control between graph
  /// launches (emulated), steps (host) or before the one launch (native),
  /// drains the stream and throws Interrupted.
  std::vector<Outcome> run(const EvalInputs &inputs,
                           BackendTimings &timings) override;
  /// The pool that fits in 90% of the device's free memory (the plan's
  /// buffers are linear in the pool size), and at most 2^31 - 1.
  int64_t poolCapacity(const EvalInputs &inputs) override;
  /// Sums the counters over every run() since the last clearInfo() (a
  /// chunked pool is several runs).
  const CudaRunInfo &runInfo() const { return info_; }
  /// runInfo() as the Backend interface gives it: the device, the kernels'
  /// seconds, backend_details (cudaRunInfoJson) and the summary line.
  BackendInfo info() const override;
  void clearInfo() override;
  /// Rollouts (Rollouts.h, docs/rollouts.md) on the device:
  /// runtime/src/cuda/CudaRollouts.cpp.
  Trajectories rollouts(const RolloutInputs &inputs) override;
  int deviceOrdinal() const { return options_.device; }
  /// Starts compiling the bundle's kernels for the device in the
  /// background (ModuleBuilds::prefetch), so that the first run's setup
  /// finds them compiled or compiling: the Session's backends do when they
  /// open, before the dataset loads. A device that cannot be asked now is
  /// left for that setup to report.
  void prefetchModules();
  /// Gets the kernels through `other`'s module builds: the same bundle on
  /// the same device (a second worker of one GPU), compiled once for both.
  void shareModules(CudaBackend &other);

private:
  /// The modules' cubins (ModuleBuilds.h), for every pool's runner;
  /// declared before persistent_, which is released first.
  std::shared_ptr<ModuleBuilds> builds_;
  struct Persistent;   ///< the device state kept between runs of one pool
  void ensureBuilds(); ///< builds_, made on first use
  void addRunInfo(const CudaRunInfo &run, bool setUp);
  int64_t measurePoolCapacity(const EvalInputs &inputs);

  Bundle bundle_;
  std::string path_;
  CudaBackendOptions options_;
  CudaRunInfo info_;
  std::unique_ptr<Persistent> persistent_;
  /// rollouts()' device state (CudaRollouts.cpp; shared_ptr: the type is
  /// complete only there).
  struct RolloutState;
  std::shared_ptr<RolloutState> rollouts_;
  uint64_t capacityPool_ = 0;  ///< the poolId capacity_ was measured for
  uint64_t capacityShape_ = 0; ///< the shapeId capacity_ was measured for
  int64_t capacity_ = 0;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_CUDABACKEND_H
