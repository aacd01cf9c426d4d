//===- CudaBackend.cpp - Executes a bundle's GpuPlan on a CUDA GPU --------===//
//
// One run: bind the plan (PlanBinding), allocate and upload every buffer,
// compile/load the modules through the kernel cache, then execute the
// schedule in the requested CondMode and copy the outcomes back. Every
// driver object lives in a DeviceSession that frees them in reverse order,
// also when an error unwinds the run.
//
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include "Fail.h"
#include "Kernels/kernel_abi.h"

#include <cstdlib>

namespace proofc {

const char *condModeName(CondMode mode) {
  switch (mode) {
  case CondMode::Native: return "native";
  case CondMode::Emulated: return "emulated";
  case CondMode::Host: return "host";
  }
  return "?";
}

CondMode parseCondMode(const std::string &text, const std::string &flag) {
  for (CondMode m : {CondMode::Native, CondMode::Emulated, CondMode::Host})
    if (text == condModeName(m)) return m;
  fail("{}: unknown cond mode '{}' (native, emulated, host)", flag, text);
}

static nlohmann::json cudaRunInfoBaseJson(const CudaRunInfo &info) {
  return {{"device", info.device},
          {"cond", condModeName(info.cond)},
          {"cond_fell_back", info.condFellBack},
          {"device_bytes", info.deviceBytes},
          {"kernel_cache",
           {{"hits", info.cache.hits},
            {"misses", info.cache.misses},
            {"discarded", info.cache.discarded},
            {"evicted", info.cache.evicted},
            {"compile_seconds", info.cache.compileSeconds},
            {"load_seconds", info.cache.loadSeconds}}},
          {"modules_seconds", info.moduleSeconds},
          {"graph_launches", info.graphLaunches},
          {"host_flag_reads", info.hostFlagReads}};
}

nlohmann::json cudaRunInfoJson(const CudaRunInfo &info) {
  nlohmann::json j = cudaRunInfoBaseJson(info);
  if (!info.profiled) return j;
  auto sumOf = [&](const std::vector<std::string> &names) {
    double total = 0;
    for (const std::string &n : names) {
      auto it = info.launchSeconds.find(n);
      if (it != info.launchSeconds.end()) total += it->second;
    }
    return total;
  };
  double all = 0;
  for (const auto &[name, seconds] : info.launchSeconds) all += seconds;
  const double policy = sumOf(info.policyLaunches);
  const double engine = sumOf(info.engineLaunches);
  const double fused = sumOf(info.fusedLaunches);
  j["phases"] = {{"policy_s", policy},
                 {"engine_s", engine},
                 {"fused_s", fused},
                 {"rest_s", all - policy - engine - fused},
                 {"by_launch", info.launchSeconds}};
  return j;
}

bool CudaBackendOptions::profileFromEnvironment() {
  const char *v = std::getenv("PROOFC_PROFILE");
  return v && std::string(v) == "1";
}

bool cudaBackendBuilt() { return PROOFC_HAVE_CUDA != 0; }

CudaBackend::CudaBackend(Bundle bundle, std::string bundlePath,
                         CudaBackendOptions options)
    : bundle_(std::move(bundle)), path_(std::move(bundlePath)),
      options_(std::move(options)) {}

void CudaBackend::clearRunInfo() { info_ = CudaRunInfo{}; }

} // namespace proofc

#if !PROOFC_HAVE_CUDA

namespace proofc {

bool cudaDeviceAvailable(std::string *why) {
  if (why) *why = "proofc was built without the CUDA headers (cuda.h, nvrtc.h)";
  return false;
}

int cudaDeviceCount() { return 0; }

struct CudaBackend::Persistent {};
CudaBackend::~CudaBackend() = default;

int64_t CudaBackend::poolCapacity(const EvalInputs &) { return 0; }

std::vector<Outcome> CudaBackend::run(const EvalInputs &, BackendTimings &) {
  fail("--device cuda: proofc was built without the CUDA headers (cuda.h, "
       "nvrtc.h); rebuild with the CUDA toolkit's include directory");
}

} // namespace proofc

#else // PROOFC_HAVE_CUDA

#include "Interrupts.h"
#include "KnowledgeBase.h"
#include "cuda/CudaDriver.h"
#include "cuda/DevicePrologue.h"
#include "cuda/Nvrtc.h"
#include "cuda/PlanBinding.h"
#include "proofc/runtime/Notices.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

namespace proofc {

bool cudaDeviceAvailable(std::string *why) {
  std::string reason;
  if (!CudaDriver::available(&reason)) {
    if (why) *why = reason;
    return false;
  }
  CudaDriver &drv = CudaDriver::get();
  int count = 0;
  CUresult r = drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    if (why)
      *why = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + drv.errorName(r)
                               : "the CUDA driver sees no device";
    return false;
  }
  return true;
}

int cudaDeviceCount() {
  if (!CudaDriver::available(nullptr))
    return 0;
  int count = 0;
  return CudaDriver::get().cuDeviceGetCount(&count) == CUDA_SUCCESS ? count
                                                                    : 0;
}

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Every driver object of one run, released in reverse order of creation.
/// Errors while releasing are ignored: the run has failed or finished.
struct DeviceSession {
  CudaDriver &drv;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUstream cancelStream = nullptr; ///< non-blocking: the cancel write
  std::vector<CUdeviceptr> buffers;
  std::vector<CUmodule> modules;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUevent events[2] = {nullptr, nullptr};
  std::vector<CUevent> timing; ///< profiling events (timing enabled)
  int32_t *pinned = nullptr; ///< host-visible flag slots
  int32_t *pinnedOutcomes = nullptr; ///< readback staging: 3N words

  explicit DeviceSession(CudaDriver &d) : drv(d) {}
  ~DeviceSession() {
    if (ctx) drv.cuCtxSynchronize();
    if (exec) drv.cuGraphExecDestroy(exec);
    if (graph) drv.cuGraphDestroy(graph);
    for (CUevent e : events)
      if (e) drv.cuEventDestroy(e);
    for (CUevent e : timing) drv.cuEventDestroy(e);
    if (pinned) drv.cuMemFreeHost(pinned);
    if (pinnedOutcomes) drv.cuMemFreeHost(pinnedOutcomes);
    for (CUmodule m : modules) drv.cuModuleUnload(m);
    for (CUdeviceptr p : buffers)
      if (p) drv.cuMemFree(p);
    if (stream) drv.cuStreamDestroy(stream);
    if (cancelStream) drv.cuStreamDestroy(cancelStream);
    if (ctx) drv.cuDevicePrimaryCtxRelease(device);
  }
};

/// A launch with its function and its kernel-parameter block.
struct PreparedLaunch {
  std::string name;
  CUfunction function = nullptr;
  uint32_t grid = 1, block = 1, sharedBytes = 0;
  std::vector<uint64_t> storage; ///< one 8-byte slot per argument
  std::vector<void *> params;    ///< &storage[i]
};

std::string oneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
    text.pop_back();
  for (char &c : text)
    if (c == '\n') c = ' ';
  return text;
}

class Runner {
public:
  Runner(const Bundle &bundle, const std::string &path,
         const CudaBackendOptions &options)
      : bundle_(bundle), path_(path), options_(options),
        s_(CudaDriver::get()) {}

  /// Everything that does not depend on the weights: the device, the
  /// knowledge base, the buffers (first contents uploaded: the pool, the
  /// knowledge base, and the host weights' tables unless the weights are on
  /// the device), the modules, the launches and the graph.
  void setup(const EvalInputs &inputs, BackendTimings &timings) {
    const Clock::time_point start = Clock::now();
    poolId_ = inputs.poolId;
    shapeId_ = inputs.shapeId;
    openDevice();
    kb_ = buildKnowledgeBase(inputs.dataset, inputs.factsIncludeValid);
    binding_ = std::make_unique<PlanBinding>(bundle_, inputs, kb_, path_,
                                             options_.memoEntries);
    PlanBinding &binding = *binding_;
    for (size_t i = 0; i < binding.buffers().size(); ++i)
      if (binding.buffers()[i].data.empty() &&
          std::find(binding.weightBuffers().begin(),
                    binding.weightBuffers().end(),
                    static_cast<int32_t>(i)) == binding.weightBuffers().end())
        zeroBuffers_.push_back(i);
    allocate(binding);
    loadModules();
    resolveCondMode();
    std::map<std::string, CUgraphConditionalHandle> handles;
    if (info_.cond == CondMode::Native) {
      PROOFC_CU(s_.drv, cuGraphCreate, &s_.graph, 0);
      for (const std::string &cond : condNames())
        PROOFC_CU(s_.drv, cuGraphConditionalHandleCreate, &handles[cond],
                  s_.graph, s_.ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT);
    }
    prepareLaunches(binding, handles);
    loopFlag_ = s_.buffers[binding.bufferIndex(bundle_.plan.schedule.loopFlag)];
    PROOFC_CU(s_.drv, cuMemHostAlloc, reinterpret_cast<void **>(&s_.pinned),
              64, 0);
    for (CUevent &e : s_.events)
      PROOFC_CU(s_.drv, cuEventCreate, &e, CU_EVENT_DISABLE_TIMING);
    if (info_.cond != CondMode::Host) buildGraph(handles);
    PROOFC_CU(s_.drv, cuStreamSynchronize, s_.stream);
    weightsCurrent_ = !inputs.deviceWeights; // uploaded with the binding
    timings.setupSeconds = secondsSince(start);
  }

  /// True when a run over `inputs` can reuse this setup: the same pool
  /// (EvalInputs::poolId), so the same knowledge base, buffers and graph,
  /// and the same recording of the actions (out.actions is sized for it).
  bool reusableFor(const EvalInputs &inputs) const {
    const bool sameRecording =
        binding_ && (inputs.actions != nullptr) == binding_->recordsActions();
    return sameRecording &&
           ((inputs.poolId != 0 && inputs.poolId == poolId_) ||
            sameShape(inputs));
  }

  /// True when `inputs` are other candidates of this setup's size
  /// (EvalInputs::shapeId): only the pool's buffers need them.
  bool sameShape(const EvalInputs &inputs) const {
    return binding_ && inputs.shapeId != 0 && inputs.shapeId == shapeId_ &&
           !(inputs.poolId != 0 && inputs.poolId == poolId_) &&
           static_cast<int64_t>(inputs.candidates.candidates.size()) ==
               binding_->symbols().at("N");
  }

  /// Uploads `inputs`' candidates into the pool's buffers (sameShape());
  /// the run that follows sees them. The setup's pool is gone: poolId_
  /// becomes the new one's.
  void uploadPool(const EvalInputs &inputs, BackendTimings &timings) {
    const Clock::time_point start = Clock::now();
    PROOFC_CU(s_.drv, cuCtxSetCurrent, s_.ctx);
    for (auto &[index, data] : binding_->poolData(inputs.candidates))
      PROOFC_CU(s_.drv, cuMemcpyHtoD, s_.buffers[static_cast<size_t>(index)],
                data.data(), data.size() * 4);
    poolId_ = inputs.poolId;
    timings.setupSeconds += secondsSince(start);
  }

  /// One run over the pool with inputs' weights: the state that depends on
  /// the weights (every zero-initialized buffer: slots, counters, step
  /// memo, outcomes) starts fresh unless setup() just made it, the weights
  /// and their tables are uploaded unless setup() just did, then the loop
  /// and the readback.
  std::vector<Outcome> execute(const EvalInputs &inputs,
                               BackendTimings &timings) {
    const Clock::time_point start = Clock::now();
    // A session's calls may come from any thread, one at a time.
    PROOFC_CU(s_.drv, cuCtxSetCurrent, s_.ctx);
    control_ = inputs.control;
    stoppedEarly_ = false;
    info_.graphLaunches = 0;
    info_.hostFlagReads = 0;
    info_.launchSeconds.clear();
    if (!stateFresh_)
      for (size_t i : zeroBuffers_)
        PROOFC_CU(s_.drv, cuMemsetD8Async, s_.buffers[i], 0,
                  binding_->buffers()[i].bytes, s_.stream);
    stateFresh_ = false;
    if (!weightsCurrent_)
      uploadWeights(inputs);
    weightsCurrent_ = false;
    PROOFC_CU(s_.drv, cuStreamSynchronize, s_.stream);
    timings.setupSeconds += secondsSince(start);

    {
      // One launch may run the whole pool (the native WHILE graph; the
      // persistent kernel in every mode): the watcher stops it from the
      // device's side when the run is cancelled. Its thread starts and
      // joins outside the timed loop.
      CancelWatcher watcher(*this, *binding_);
      const Clock::time_point loop = Clock::now();
      switch (info_.cond) {
      case CondMode::Native: timings.steps = runNative(); break;
      case CondMode::Emulated: timings.steps = runEmulated(); break;
      case CondMode::Host: timings.steps = runHost(); break;
      }
      PROOFC_CU(s_.drv, cuStreamSynchronize, s_.stream); // drained
      timings.runSeconds = secondsSince(loop);
    }
    // Raised while the loop ran: the pool may not have been done.
    if (cancelled()) throwInterrupted();
    const Clock::time_point readback = Clock::now();
    std::vector<Outcome> outcomes = readOutcomes(*binding_);
    if (inputs.actions) *inputs.actions = readActions(*binding_, outcomes);
    timings.readbackSeconds = secondsSince(readback);
    return outcomes;
  }

  const CudaRunInfo &info() const { return info_; }

private:
  /// The weights' buffers for a run after the first: the host prologue's
  /// tables uploaded, or the device prologue run over device weights.
  void uploadWeights(const EvalInputs &inputs) {
    if (inputs.deviceWeights) {
      std::map<std::string, DeviceTensor> weights;
      for (const auto &[name, w] : *inputs.deviceWeights)
        weights[name] = {static_cast<CUdeviceptr>(w.address), w.shape};
      std::map<std::string, CUdeviceptr> outputs;
      for (int32_t index : binding_->weightBuffers()) {
        const BoundBuffer &b = binding_->buffers()[static_cast<size_t>(index)];
        outputs[b.decl->init.substr(8)] = s_.buffers[static_cast<size_t>(index)];
      }
      devicePrologue().run(bundle_.plan, weights, outputs, s_.stream);
      return;
    }
    for (auto &[index, data] : binding_->weightData(inputs.weights))
      PROOFC_CU(s_.drv, cuMemcpyHtoD, s_.buffers[static_cast<size_t>(index)],
                data.data(), data.size() * 4);
  }

  void openDevice() {
    CudaDriver &drv = s_.drv;
    int count = 0;
    PROOFC_CU(drv, cuDeviceGetCount, &count);
    if (options_.device < 0 || options_.device >= count)
      fail("CUDA: device {} does not exist ({} device{} visible)",
           options_.device, count, count == 1 ? "" : "s");
    PROOFC_CU(drv, cuDeviceGet, &s_.device, options_.device);
    PROOFC_CU(drv, cuDevicePrimaryCtxRetain, &s_.ctx, s_.device);
    PROOFC_CU(drv, cuCtxSetCurrent, s_.ctx);
    // A blocking stream: it orders after the null-stream uploads and memsets.
    PROOFC_CU(drv, cuStreamCreate, &s_.stream, CU_STREAM_DEFAULT);
    PROOFC_CU(drv, cuDeviceGetAttribute, &major_,
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, s_.device);
    PROOFC_CU(drv, cuDeviceGetAttribute, &minor_,
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, s_.device);
    char name[256] = {};
    PROOFC_CU(drv, cuDeviceGetName, name, sizeof name - 1, s_.device);
    arch_ = "sm_" + std::to_string(major_) + std::to_string(minor_);
    info_.device = std::string(name) + " (" + arch_ + ")";
  }

  void allocate(PlanBinding &binding) {
    CudaDriver &drv = s_.drv;
    size_t freeBytes = 0, totalBytes = 0;
    PROOFC_CU(drv, cuMemGetInfo, &freeBytes, &totalBytes);
    const size_t needed = binding.totalBytes();
    if (needed > freeBytes)
      fail("CUDA: the plan needs {} bytes of device memory, {} are free (of "
           "{}); lower B or --max-pool, or use a smaller dataset",
           needed, freeBytes, totalBytes);
    info_.deviceBytes = needed;
    for (const BoundBuffer &b : binding.buffers()) {
      CUdeviceptr ptr = 0;
      CUresult r = drv.cuMemAlloc(&ptr, b.bytes);
      if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        drv.cuMemGetInfo(&freeBytes, &totalBytes);
        fail("cuMemAlloc of buffer '{}' failed: out of memory (asked {} bytes, "
             "{} free)",
             b.decl->name, b.bytes, freeBytes);
      }
      drv.check(r, "cuMemAlloc");
      s_.buffers.push_back(ptr);
      if (b.data.empty())
        PROOFC_CU(drv, cuMemsetD8, ptr, 0, b.bytes);
      else
        PROOFC_CU(drv, cuMemcpyHtoD, ptr, b.data.data(), b.data.size() * 4);
    }
    binding.releaseHostData();
    PROOFC_CU(drv, cuCtxSynchronize); // memsets may still run asynchronously
  }

  /// Cubin of a module: from the cache, else NVRTC (cuda) or the driver's
  /// PTX JIT through cuLink (ptx).
  std::string compileModule(const KernelModule &m, KernelCache &cache) {
    KernelKey key;
    key.code = m.source;
    key.arch = arch_;
    key.driverVersion = s_.drv.version();
    key.proofcVersion = PROOFC_VERSION;
    const std::string name = path_ + ": module '" + m.name + "'";
    if (m.format == "cuda") {
      const Nvrtc &nvrtc = Nvrtc::get();
      key.options = m.options;
      for (const std::string &o : Nvrtc::implicitOptions(major_, minor_))
        key.options.push_back(o);
      key.compilerVersion = "nvrtc " + nvrtc.version();
      return cache.get(key, [&] {
        return nvrtc.compileToCubin(m.source, name, m.options, major_, minor_);
      });
    }
    key.compilerVersion = "ptx-jit";
    // Modules linked in: relocatable NVRTC cubins; their sources and options
    // are part of the key.
    std::vector<const KernelModule *> linked;
    for (const std::string &l : m.link) {
      const KernelModule &c = moduleNamed(l);
      linked.push_back(&c);
      key.code += "\n// link " + c.name + "\n" + c.source;
      for (const std::string &o : relocatableOptions(c))
        key.options.push_back(c.name + ": " + o);
    }
    if (!linked.empty())
      key.compilerVersion += " + nvrtc " + Nvrtc::get().version();
    return cache.get(key, [&] {
      // NVRTC compiles the linked modules while the driver JITs the PTX.
      std::vector<std::future<std::string>> objects;
      for (const KernelModule *c : linked)
        objects.push_back(std::async(std::launch::async, [this, c] {
          return Nvrtc::get().compileToCubin(
              c->source, path_ + ": module '" + c->name + "'",
              relocatableOptions(*c), major_, minor_);
        }));
      return linkPtx(m.source, name, objects);
    });
  }

  const KernelModule &moduleNamed(const std::string &name) const {
    if (const KernelModule *m = findModule(bundle_, name)) return *m;
    fail("{}: no module '{}'", path_, name); // the bundle verifier checks
  }
  /// A linked module's NVRTC options: its own, relocatable device code.
  std::vector<std::string> relocatableOptions(const KernelModule &m) const {
    std::vector<std::string> options = m.options;
    options.push_back("-rdc=true");
    return options;
  }
  bool isLinked(const std::string &name) const {
    return isLinkedModule(bundle_, name);
  }

  /// PTX (and the relocatable cubins `objects` will give, which it calls)
  /// through the driver's JIT linker.
  std::string linkPtx(const std::string &ptx, const std::string &name,
                      std::vector<std::future<std::string>> &objects) {
    CudaDriver &drv = s_.drv;
    std::vector<char> log(16384, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(),
                      reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
    CUlinkState state = nullptr;
    PROOFC_CU(drv, cuLinkCreate, 2, opts, values, &state);
    struct Destroy {
      CudaDriver &d;
      CUlinkState s;
      ~Destroy() { d.cuLinkDestroy(s); }
    } destroy{drv, state};
    CUresult r = drv.cuLinkAddData(state, CU_JIT_INPUT_PTX,
                                   const_cast<char *>(ptx.c_str()),
                                   ptx.size() + 1, name.c_str(), 0, nullptr,
                                   nullptr);
    std::vector<std::string> cubins;
    for (std::future<std::string> &object : objects)
      cubins.push_back(object.get()); // rethrows an NVRTC error
    for (size_t i = 0; r == CUDA_SUCCESS && i < cubins.size(); ++i)
      r = drv.cuLinkAddData(state, CU_JIT_INPUT_CUBIN,
                            const_cast<char *>(cubins[i].data()),
                            cubins[i].size(), name.c_str(), 0, nullptr,
                            nullptr);
    void *cubin = nullptr;
    size_t size = 0;
    if (r == CUDA_SUCCESS) r = drv.cuLinkComplete(state, &cubin, &size);
    if (r != CUDA_SUCCESS)
      fail("{}: PTX JIT failed: {}: {}", name, drv.errorName(r),
           oneLine(log.data()));
    return std::string(static_cast<const char *>(cubin), size);
  }

  /// Gets every module's cubin at once, then loads them. A cold program
  /// compiles its CUDA C++ module with NVRTC and its policy PTX with the
  /// driver's JIT: independent, so it waits for the slower, not for both.
  void loadModules() {
    KernelCache cache(options_.cache);
    CudaDriver &drv = s_.drv;
    const auto start = std::chrono::steady_clock::now();
    const size_t n = bundle_.modules.size();
    std::vector<std::string> cubins(n);
    std::vector<std::exception_ptr> errors(n);
    auto compileOne = [&](size_t i) {
      if (isLinked(bundle_.modules[i].name))
        return; // compiled into the module that links it
      try {
        // The PTX JIT links in the calling thread's context.
        PROOFC_CU(drv, cuCtxSetCurrent, s_.ctx);
        cubins[i] = compileModule(bundle_.modules[i], cache);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    };
    std::vector<std::thread> workers;
    for (size_t i = 1; i < n; ++i)
      workers.emplace_back(compileOne, i);
    if (n > 0)
      compileOne(0);
    for (std::thread &w : workers)
      w.join();
    for (const std::exception_ptr &e : errors) // the first module's error
      if (e)
        std::rethrow_exception(e);

    for (size_t i = 0; i < n; ++i) {
      const KernelModule &m = bundle_.modules[i];
      if (isLinked(m.name))
        continue;
      std::vector<char> log(16384, '\0');
      CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {
          log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
      CUmodule module = nullptr;
      CUresult r =
          drv.cuModuleLoadDataEx(&module, cubins[i].data(), 2, opts, values);
      if (r != CUDA_SUCCESS)
        fail("{}: module '{}': cuModuleLoadDataEx failed: {}: {}", path_,
             m.name, drv.errorName(r), oneLine(log.data()));
      s_.modules.push_back(module);
      modules_[m.name] = module;
    }
    info_.cache = cache.stats();
    info_.moduleSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count();
  }

  void resolveCondMode() {
    info_.cond = options_.cond;
    if (options_.profile) {
      // Every launch timed on its own: host-driven steps, no graph.
      info_.cond = CondMode::Host;
      info_.profiled = true;
      return;
    }
    if (options_.cond != CondMode::Native) return;
    std::string why;
    if (!probeConditionalNodes(s_.drv, s_.ctx, &why)) {
      notice(fmt::format("conditional graph nodes unsupported ({}); using "
                         "--cond emulated",
                         why));
      info_.cond = CondMode::Emulated;
      info_.condFellBack = true;
    }
  }

  std::vector<std::string> condNames() const {
    std::vector<std::string> names = {bundle_.plan.schedule.loopCond};
    std::function<void(const std::vector<ScheduleNode> &)> walk =
        [&](const std::vector<ScheduleNode> &nodes) {
          for (const ScheduleNode &n : nodes)
            if (!n.cond.empty()) {
              names.push_back(n.cond);
              walk(n.body);
            }
        };
    walk(bundle_.plan.schedule.prologue);
    walk(bundle_.plan.schedule.step);
    return names;
  }

  void prepareLaunches(
      const PlanBinding &binding,
      const std::map<std::string, CUgraphConditionalHandle> &handles) {
    CudaDriver &drv = s_.drv;
    for (const Launch &launch : bundle_.plan.launches) {
      const BoundLaunch &bound = binding.launch(launch.name);
      PreparedLaunch p;
      p.name = launch.name;
      p.grid = bound.grid;
      p.block = static_cast<uint32_t>(launch.block);
      p.sharedBytes = static_cast<uint32_t>(launch.sharedBytes);
      CUresult r = drv.cuModuleGetFunction(&p.function, modules_.at(launch.module),
                                           launch.entry.c_str());
      if (r != CUDA_SUCCESS)
        fail("{}: launch '{}': module '{}' has no kernel '{}' ({})", path_,
             launch.name, launch.module, launch.entry, drv.errorName(r));
      int maxThreads = 0;
      PROOFC_CU(drv, cuFuncGetAttribute, &maxThreads,
                CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, p.function);
      if (launch.block > maxThreads)
        fail("{}: launch '{}': block of {} threads, kernel '{}' allows at most "
             "{}",
             path_, launch.name, launch.block, launch.entry, maxThreads);
      // Past 48 KiB of static plus dynamic shared memory a kernel must opt in.
      if (launch.sharedBytes > 0) {
        CUresult sr = drv.cuFuncSetAttribute(
            p.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            launch.sharedBytes);
        if (sr != CUDA_SUCCESS)
          fail("{}: launch '{}': {} bytes of dynamic shared memory for kernel "
               "'{}': {}",
               path_, launch.name, launch.sharedBytes, launch.entry,
               drv.errorName(sr));
      }
      p.storage.assign(bound.args.size(), 0);
      for (size_t i = 0; i < bound.args.size(); ++i) {
        const BoundArg &a = bound.args[i];
        uint64_t &slot = p.storage[i];
        switch (a.kind) {
        case BoundArg::Kind::Buffer: slot = s_.buffers.at(a.buffer); break;
        case BoundArg::Kind::I32: std::memcpy(&slot, &a.i32, 4); break;
        case BoundArg::Kind::F32: std::memcpy(&slot, &a.f32, 4); break;
        case BoundArg::Kind::Cond: {
          auto it = handles.find(a.cond);
          slot = it == handles.end() ? 0 : it->second;
          break;
        }
        }
      }
      for (uint64_t &slot : p.storage) p.params.push_back(&slot);
      launches_.emplace(launch.name, std::move(p));
      // By the role the compiler wrote. The fused step kernel counts as
      // the engine (it is mostly derive).
      if (launch.role == LaunchRole::Engine ||
          launch.role == LaunchRole::AdvanceEngine)
        info_.engineLaunches.push_back(launch.name);
      else if (launch.role == LaunchRole::Persistent)
        info_.fusedLaunches.push_back(launch.name);
      else if (launch.role == LaunchRole::Policy)
        info_.policyLaunches.push_back(launch.name);
    }
  }

  CUgraphNode addKernelNode(CUgraph graph, CUgraphNode dep,
                            PreparedLaunch &l) {
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_KERNEL;
    params.kernel.func = l.function;
    params.kernel.gridDimX = l.grid;
    params.kernel.gridDimY = params.kernel.gridDimZ = 1;
    params.kernel.blockDimX = l.block;
    params.kernel.blockDimY = params.kernel.blockDimZ = 1;
    params.kernel.sharedMemBytes = l.sharedBytes;
    params.kernel.kernelParams = l.params.data();
    CUgraphNode node = nullptr;
    PROOFC_CU(s_.drv, cuGraphAddNode, &node, graph, dep ? &dep : nullptr,
              nullptr, dep ? 1 : 0, &params);
    return node;
  }

  /// Appends `nodes` to `graph` after `dep`; returns the last node. Conds
  /// become IF nodes (native, unless `inlineConds`) or are inlined (their
  /// kernels check the flag themselves).
  CUgraphNode addNodes(CUgraph graph, CUgraphNode dep,
                       const std::vector<ScheduleNode> &nodes,
                       const std::map<std::string, CUgraphConditionalHandle> &handles,
                       bool inlineConds = false) {
    for (const ScheduleNode &n : nodes) {
      if (!n.launch.empty()) {
        dep = addKernelNode(graph, dep, launches_.at(n.launch));
      } else if (info_.cond == CondMode::Native && !inlineConds) {
        dep = addConditional(graph, dep, CU_GRAPH_COND_TYPE_IF,
                             handles.at(n.cond), [&](CUgraph body) {
                               addNodes(body, nullptr, n.body, handles);
                             });
      } else {
        dep = addNodes(graph, dep, n.body, handles, inlineConds);
      }
    }
    return dep;
  }

  /// A conditional node after `dep` whose body graph `fillBody` fills.
  CUgraphNode addConditional(CUgraph graph, CUgraphNode dep,
                             CUgraphConditionalNodeType type,
                             CUgraphConditionalHandle handle,
                             const std::function<void(CUgraph)> &fillBody) {
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    params.conditional.handle = handle;
    params.conditional.type = type;
    params.conditional.size = 1;
    params.conditional.ctx = s_.ctx;
    CUgraphNode node = nullptr;
    PROOFC_CU(s_.drv, cuGraphAddNode, &node, graph, dep ? &dep : nullptr,
              nullptr, dep ? 1 : 0, &params);
    fillBody(params.conditional.phGraph_out[0]);
    return node;
  }

  void buildGraph(const std::map<std::string, CUgraphConditionalHandle> &handles) {
    const Schedule &schedule = bundle_.plan.schedule;
    if (info_.cond == CondMode::Native) {
      // ONE graph: prologue, then WHILE(loop) { step x K }. K steps per
      // iteration amortize the conditional node's cost; the steps after the
      // last candidate are no-ops (every step kernel checks the loop flag).
      // A conditional handle drives one node, so only the first copy's
      // conds are IF nodes; the later copies' are inlined.
      CUgraphNode dep = addNodes(s_.graph, nullptr, schedule.prologue, handles);
      addConditional(s_.graph, dep, CU_GRAPH_COND_TYPE_WHILE,
                     handles.at(schedule.loopCond), [&](CUgraph body) {
                       CUgraphNode last = nullptr;
                       for (int k = 0; k < std::max(1, options_.unroll); ++k)
                         last = addNodes(body, last, schedule.step, handles,
                                         /*inlineConds=*/k > 0);
                     });
    } else {
      // Emulated: K copies of the step; the prologue runs once, directly.
      PROOFC_CU(s_.drv, cuGraphCreate, &s_.graph, 0);
      CUgraphNode dep = nullptr;
      for (int k = 0; k < std::max(1, options_.unroll); ++k)
        dep = addNodes(s_.graph, dep, schedule.step, handles);
    }
    PROOFC_CU(s_.drv, cuGraphInstantiateWithFlags, &s_.exec, s_.graph, 0);
  }

  void launchDirect(const PreparedLaunch &l) {
    CUevent before = nullptr, after = nullptr;
    if (info_.profiled) {
      before = timingEvent();
      after = timingEvent();
      PROOFC_CU(s_.drv, cuEventRecord, before, s_.stream);
    }
    PROOFC_CU(s_.drv, cuLaunchKernel, l.function, l.grid, 1, 1, l.block, 1, 1,
              l.sharedBytes, s_.stream,
              const_cast<void **>(l.params.data()), nullptr);
    if (info_.profiled) {
      PROOFC_CU(s_.drv, cuEventRecord, after, s_.stream);
      timed_.push_back({&l.name, before, after});
    }
  }

  /// The next event of the profiling pool (made on first use; reused after
  /// collectTimings()).
  CUevent timingEvent() {
    if (nextEvent_ == s_.timing.size()) {
      CUevent e = nullptr;
      PROOFC_CU(s_.drv, cuEventCreate, &e, CU_EVENT_DEFAULT);
      s_.timing.push_back(e);
    }
    return s_.timing[nextEvent_++];
  }

  /// Adds the timed launches since the last call to launchSeconds; the
  /// stream must be synchronized.
  void collectTimings() {
    for (const TimedLaunch &t : timed_) {
      float ms = 0;
      PROOFC_CU(s_.drv, cuEventElapsedTime, &ms, t.before, t.after);
      info_.launchSeconds[*t.name] += ms * 1e-3;
    }
    timed_.clear();
    nextEvent_ = 0;
  }

  int32_t readFlag(CUdeviceptr flag) {
    PROOFC_CU(s_.drv, cuMemcpyDtoHAsync, s_.pinned, flag, 4, s_.stream);
    PROOFC_CU(s_.drv, cuStreamSynchronize, s_.stream);
    if (info_.profiled) collectTimings();
    ++info_.hostFlagReads;
    return s_.pinned[0];
  }

  /// Host-driven execution of nodes: conds read their flag first.
  void runNodesDirect(const std::vector<ScheduleNode> &nodes) {
    for (const ScheduleNode &n : nodes) {
      if (!n.launch.empty())
        launchDirect(launches_.at(n.launch));
      else if (readFlag(flagPtr(n.flag)))
        runNodesDirect(n.body);
    }
  }

  /// Polled between graph launches (emulated) or steps (host) and after the
  /// loop; within a launch, CancelWatcher stops the device's loop.
  bool cancelled() {
    if (control_ && control_->cancelled()) stoppedEarly_ = true;
    return stoppedEarly_;
  }

  int64_t runNative() {
    if (cancelled()) return 0;
    PROOFC_CU(s_.drv, cuGraphLaunch, s_.exec, s_.stream);
    info_.graphLaunches = 1;
    return 0; // the WHILE node iterates on the device, uncounted
  }

  int64_t runEmulated() {
    runNodesDirect(bundle_.plan.schedule.prologue);
    const int unroll = std::max(1, options_.unroll);
    int64_t issued = 0, checked = 0;
    auto issue = [&] {
      const int slot = static_cast<int>(issued % 2);
      PROOFC_CU(s_.drv, cuGraphLaunch, s_.exec, s_.stream);
      PROOFC_CU(s_.drv, cuMemcpyDtoHAsync, s_.pinned + 1 + slot, loopFlag_, 4,
                s_.stream);
      PROOFC_CU(s_.drv, cuEventRecord, s_.events[slot], s_.stream);
      ++issued;
    };
    // Two launches in flight: surplus steps after the last candidate are
    // no-ops (every kernel of the step returns when the loop flag is 0).
    issue();
    issue();
    for (;;) {
      const int slot = static_cast<int>(checked % 2);
      PROOFC_CU(s_.drv, cuEventSynchronize, s_.events[slot]);
      ++info_.hostFlagReads;
      ++checked;
      if (s_.pinned[1 + slot] == 0) break;
      if (cancelled()) break; // the other launch in flight drains below
      issue(); // reuses the slot just read
    }
    info_.graphLaunches = issued;
    return checked * unroll;
  }

  int64_t runHost() {
    runNodesDirect(bundle_.plan.schedule.prologue);
    int64_t steps = 0;
    while (readFlag(loopFlag_)) {
      if (cancelled()) break;
      runNodesDirect(bundle_.plan.schedule.step);
      ++steps;
    }
    return steps;
  }

  /// While the proof loop runs, a thread polls the run's cancellation flag
  /// every few milliseconds; once it is raised, it writes N to the pool
  /// counter (proofc_init's `nextCand`, the contract's one counter) from
  /// pinned memory on a non-blocking stream of its own, which the copy
  /// engine runs beside the kernels. From then on no slot takes a new
  /// candidate (advance.cu's finishCandidate: atomicAdd >= N), so the
  /// slots finish the candidates they hold — at most D steps — and the
  /// loop ends on the device as at the end of the pool: the native WHILE
  /// graph and the persistent kernel included. Written again every 50 ms
  /// (a write that lands before proofc_init is overwritten by it).
  /// Nothing runs per step: the kernels' cost is unchanged. The caller
  /// then throws Interrupted: the outcomes are partial.
  class CancelWatcher {
  public:
    CancelWatcher(Runner &r, const PlanBinding &binding) : r_(r) {
      if (!r.control_ || !r.control_->cancel) return;
      const CUdeviceptr counter = r.poolCounter(binding);
      const int64_t n = binding.symbols().at("N");
      if (!counter || n <= 0) return; // nothing to stop on the device
      r.s_.pinned[4] = static_cast<int32_t>(n);
      if (!r.s_.cancelStream)
        PROOFC_CU(r.s_.drv, cuStreamCreate, &r.s_.cancelStream,
                  CU_STREAM_NON_BLOCKING);
      thread_ = std::thread([this, counter] { watch(counter); });
    }
    ~CancelWatcher() {
      if (!thread_.joinable()) return;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
      }
      wake_.notify_one();
      thread_.join();
      r_.s_.drv.cuStreamSynchronize(r_.s_.cancelStream); // the copies
    }

  private:
    void watch(CUdeviceptr counter) {
      CudaDriver &drv = r_.s_.drv;
      if (drv.cuCtxSetCurrent(r_.s_.ctx) != CUDA_SUCCESS) return;
      std::unique_lock<std::mutex> lock(mutex_);
      Clock::time_point sent{};
      bool any = false;
      while (!wake_.wait_for(lock, std::chrono::milliseconds(2),
                             [this] { return done_; })) {
        if (!r_.control_->cancelled()) continue;
        if (any && secondsSince(sent) < 0.05) continue;
        // An error leaves the run to finish the pool; it is still
        // reported as Interrupted.
        drv.cuMemcpyHtoDAsync(counter, r_.s_.pinned + 4, 4,
                              r_.s_.cancelStream);
        sent = Clock::now();
        any = true;
      }
    }

    Runner &r_;
    std::thread thread_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool done_ = false;
  };

  /// The buffer proofc_init gets as `nextCand` (InitArg::NextCand), or 0 when the
  /// plan has no init launch.
  CUdeviceptr poolCounter(const PlanBinding &binding) const {
    for (const Launch &launch : bundle_.plan.launches) {
      if (launch.role != LaunchRole::Init) continue;
      // The binding checked a proofc_init launch against kernel_abi.h; the
      // role alone does not name the entry, so the index is checked too.
      const BoundLaunch &bound = binding.launch(launch.name);
      const size_t nextCand = proofc_abi::InitArg::NextCand;
      if (bound.args.size() > nextCand &&
          bound.args[nextCand].kind == BoundArg::Kind::Buffer)
        return s_.buffers.at(bound.args[nextCand].buffer);
    }
    return 0;
  }

  CUdeviceptr flagPtr(const std::string &buffer) {
    for (size_t i = 0; i < bundle_.plan.buffers.size(); ++i)
      if (bundle_.plan.buffers[i].name == buffer) return s_.buffers[i];
    fail("{}: unknown flag buffer '{}'", path_, buffer);
  }

  std::vector<Outcome> readOutcomes(const PlanBinding &binding) {
    const size_t n = static_cast<size_t>(binding.symbols().at("N"));
    std::vector<int32_t> status(n), depth(n);
    std::vector<float> logp(n);
    if (n > 0) {
      // Through pinned staging (allocated once per setup): one
      // synchronization for the three copies, at the copy engine's speed.
      if (!s_.pinnedOutcomes)
        PROOFC_CU(s_.drv, cuMemHostAlloc,
                  reinterpret_cast<void **>(&s_.pinnedOutcomes), 3 * n * 4, 0);
      int32_t *staged = s_.pinnedOutcomes;
      const int32_t sources[3] = {binding.outStatus(), binding.outDepth(),
                                  binding.outLogp()};
      for (int k = 0; k < 3; ++k)
        PROOFC_CU(s_.drv, cuMemcpyDtoHAsync, staged + k * n,
                  s_.buffers[static_cast<size_t>(sources[k])], n * 4,
                  s_.stream);
      PROOFC_CU(s_.drv, cuStreamSynchronize, s_.stream);
      std::memcpy(status.data(), staged, n * 4);
      std::memcpy(depth.data(), staged + n, n * 4);
      std::memcpy(logp.data(), staged + 2 * n, n * 4);
    }
    return binding.outcomes(status, depth, logp);
  }

  /// The recorded actions (out.actions, N x D words) of a run that records
  /// them, in candidate order.
  ActionTrace readActions(const PlanBinding &binding,
                          const std::vector<Outcome> &outcomes) {
    const size_t buffer = static_cast<size_t>(binding.outActions());
    std::vector<int32_t> words(
        static_cast<size_t>(binding.buffers()[buffer].elements));
    if (!words.empty())
      PROOFC_CU(s_.drv, cuMemcpyDtoH, words.data(), s_.buffers[buffer],
                words.size() * 4);
    return binding.actions(words, outcomes);
  }

  /// The device prologue's module, loaded at the first run with device
  /// weights.
  DevicePrologue &devicePrologue() {
    if (!devicePrologue_) {
      KernelCache cache(options_.cache);
      devicePrologue_ = std::make_unique<DevicePrologue>(
          s_.drv, cache, major_, minor_, path_);
    }
    return *devicePrologue_;
  }

  const Bundle &bundle_;
  const std::string &path_;
  const CudaBackendOptions &options_;
  CudaRunInfo info_; ///< setup's facts, then the last execute()'s counters
  DeviceSession s_;
  KnowledgeBase kb_;
  std::unique_ptr<PlanBinding> binding_;
  std::unique_ptr<DevicePrologue> devicePrologue_;
  uint64_t poolId_ = 0;
  uint64_t shapeId_ = 0; ///< EvalInputs::shapeId of the setup
  std::vector<size_t> zeroBuffers_; ///< reset before every run but the first
  bool stateFresh_ = true;      ///< zero buffers as allocated
  bool weightsCurrent_ = false; ///< weight buffers hold this run's weights
  int major_ = 0, minor_ = 0;
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
};

} // namespace

struct CudaBackend::Persistent {
  Persistent(const Bundle &bundle, const std::string &path,
             const CudaBackendOptions &options)
      : runner(bundle, path, options) {}
  Runner runner; // owns device objects: never copied or moved
};

CudaBackend::~CudaBackend() = default;

std::vector<Outcome> CudaBackend::run(const EvalInputs &inputs,
                                      BackendTimings &timings) {
  const bool reuse = persistent_ && persistent_->runner.reusableFor(inputs);
  try {
    if (!reuse) {
      persistent_.reset(); // the previous pool's device state first
      persistent_ = std::make_unique<Persistent>(bundle_, path_, options_);
      persistent_->runner.setup(inputs, timings);
    } else if (persistent_->runner.sameShape(inputs)) {
      // Another block of the same size: only its candidates go up.
      persistent_->runner.uploadPool(inputs, timings);
    }
    std::vector<Outcome> outcomes = persistent_->runner.execute(inputs, timings);
    addRunInfo(persistent_->runner.info(), !reuse);
    return outcomes;
  } catch (const Interrupted &) {
    // The device state is intact; the next run resets what it changed.
    if (persistent_)
      addRunInfo(persistent_->runner.info(), !reuse);
    throw;
  } catch (...) {
    persistent_.reset(); // a failed run's device state is not reused
    throw;
  }
}

void CudaBackend::addRunInfo(const CudaRunInfo &run, bool setUp) {
  // A pool run in chunks is several runs: the counters add up over them;
  // the cache and module load count only where a run set the device up.
  const CudaRunInfo before = info_;
  info_ = run;
  info_.cache = before.cache;
  info_.moduleSeconds = before.moduleSeconds;
  if (setUp) {
    info_.cache.hits += run.cache.hits;
    info_.cache.misses += run.cache.misses;
    info_.cache.discarded += run.cache.discarded;
    info_.cache.evicted += run.cache.evicted;
    info_.cache.compileSeconds += run.cache.compileSeconds;
    info_.cache.loadSeconds += run.cache.loadSeconds;
    info_.moduleSeconds += run.moduleSeconds;
  }
  info_.graphLaunches += before.graphLaunches;
  info_.hostFlagReads += before.hostFlagReads;
  info_.deviceBytes = std::max(info_.deviceBytes, before.deviceBytes);
  for (const auto &[name, seconds] : before.launchSeconds)
    info_.launchSeconds[name] += seconds;
}

int64_t CudaBackend::poolCapacity(const EvalInputs &inputs) {
  // A session asks again at every call: its pool's answer is kept (the
  // device memory it measured is now partly the pool's own buffers).
  if ((inputs.poolId != 0 && inputs.poolId == capacityPool_) ||
      (inputs.shapeId != 0 && inputs.shapeId == capacityShape_))
    return capacity_;
  const int64_t capacity = measurePoolCapacity(inputs);
  capacityPool_ = inputs.poolId;
  capacityShape_ = inputs.shapeId;
  capacity_ = capacity;
  return capacity;
}

int64_t CudaBackend::measurePoolCapacity(const EvalInputs &inputs) {
  const int64_t n = static_cast<int64_t>(inputs.candidates.candidates.size());
  if (n <= 1) return 0;
  CudaDriver &drv = CudaDriver::get();
  int count = 0;
  PROOFC_CU(drv, cuDeviceGetCount, &count);
  if (options_.device < 0 || options_.device >= count) return 0; // run() says
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  PROOFC_CU(drv, cuDeviceGet, &device, options_.device);
  PROOFC_CU(drv, cuDevicePrimaryCtxRetain, &ctx, device);
  size_t freeBytes = 0, totalBytes = 0;
  CUresult r = drv.cuCtxSetCurrent(ctx);
  if (r == CUDA_SUCCESS) r = drv.cuMemGetInfo(&freeBytes, &totalBytes);
  drv.cuDevicePrimaryCtxRelease(device);
  drv.check(r, "cuMemGetInfo");

  // Buffer sizes are products of symbols, linear in the pool size N.
  const KnowledgeBase kb =
      buildKnowledgeBase(inputs.dataset, inputs.factsIncludeValid);
  auto bytesFor = [&](int64_t pool) {
    const SymbolTable symbols =
        planSymbols(bundle_.program, kb, pool, options_.memoEntries,
                    inputs.actions != nullptr);
    uint64_t bytes = 0;
    for (const BufferDecl &b : bundle_.plan.buffers)
      bytes += std::max<uint64_t>(
          4, 4 * static_cast<uint64_t>(evalExtent(
                     b.elements, symbols, path_ + ": buffer '" + b.name + "'")));
    return bytes;
  };
  const uint64_t all = bytesFor(n), one = bytesFor(1);
  const uint64_t perCandidate = all > one ? (all - one) / uint64_t(n - 1) : 0;
  // Candidate indices and N are int32 kernel arguments.
  int64_t capacity = std::numeric_limits<int32_t>::max();
  if (perCandidate > 0) {
    // A tenth of the free memory stays for modules, graphs and the driver.
    const uint64_t budget = freeBytes / 10 * 9;
    const uint64_t fixed = one - std::min(one, perCandidate);
    // When not even one candidate fits, run() says how much was asked.
    capacity = budget > fixed + perCandidate
                   ? std::min<uint64_t>(capacity, (budget - fixed) / perCandidate)
                   : 1;
  }
  return capacity >= n ? 0 : capacity;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
