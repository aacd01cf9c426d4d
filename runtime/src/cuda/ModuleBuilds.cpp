//===- ModuleBuilds.cpp - A bundle's kernel modules, in two tiers ---------===//
//
// See ModuleBuilds.h. The compile of one module: the kernel cache's key
// (the source with the sources it links, every option, the arch, the
// compilers' and the driver's versions), then NVRTC for CUDA C++ or the
// driver's JIT linker for PTX, which JITs the PTX while NVRTC compiles
// the relocatable modules it links.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/ModuleBuilds.h"

#include "cuda/DevicePrologue.h"
#include "cuda/Nvrtc.h"
#include "proofc/runtime/Error.h"
#include "proofc/runtime/Notices.h"
#include "support/Fail.h"

#include <chrono>
#include <exception>
#include <thread>

namespace proofc {

namespace {

/// The device's primary context, retained while a build uses it (a
/// background build may outlive the runner that started it).
class PrimaryContext {
public:
  explicit PrimaryContext(CUdevice device)
      : drv_(CudaDriver::get()), device_(device) {
    PROOFC_CU(drv_, cuDevicePrimaryCtxRetain, &ctx_, device_);
  }
  ~PrimaryContext() { drv_.cuDevicePrimaryCtxRelease(device_); }
  PrimaryContext(const PrimaryContext &) = delete;
  PrimaryContext &operator=(const PrimaryContext &) = delete;
  CUcontext get() const { return ctx_; }

private:
  CudaDriver &drv_;
  CUdevice device_;
  CUcontext ctx_ = nullptr;
};

} // namespace

ModuleBuilds::ModuleBuilds(const Bundle &bundle, const std::string &path,
                           KernelCacheOptions cache, CompileTiers tiers)
    : bundle_(bundle), path_(path), cacheOptions_(std::move(cache)),
      tiers_(tiers) {}

ModuleBuilds::~ModuleBuilds() {
  if (background_.valid())
    background_.wait(); // its error, if any, is dropped with it
}

CompileTarget CompileTarget::ofOrdinal(int ordinal) {
  CudaDriver &drv = CudaDriver::get();
  CompileTarget target;
  PROOFC_CU(drv, cuDeviceGet, &target.device, ordinal);
  PROOFC_CU(drv, cuDeviceGetAttribute, &target.major,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, target.device);
  PROOFC_CU(drv, cuDeviceGetAttribute, &target.minor,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, target.device);
  return target;
}

void ModuleBuilds::prefetch(const CompileTarget &target, bool withPrologue) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (decided_ || background_.valid())
    return;
  if (optimizedCached(target)) {
    prefetchFoundCached_ = true;
    return;
  }
  start_ = Clock::now();
  prefetchUnclaimed_ = true;
  startOptimizedLocked(target, withPrologue);
}

void ModuleBuilds::startOptimizedLocked(const CompileTarget &target,
                                        bool withPrologue) {
  background_ = std::async(std::launch::async, [this, target, withPrologue] {
    std::shared_ptr<const ModuleSet> set =
        build(target, /*quick=*/false, withPrologue);
    optimizedSeconds_ = secondsSince(start_);
    return set;
  });
}

bool ModuleBuilds::quickFor(const CompileTarget &target, int64_t candidates,
                            bool withPrologue) {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool first = !decided_;
  decided_ = true;
  if (first && !background_.valid()) {
    start_ = Clock::now();
    const bool cached = prefetchFoundCached_ || optimizedCached(target);
    if (!startsOnQuickTier(tiers_, cached, candidates))
      return false;
    startedQuick_ = true;
    startOptimizedLocked(target, withPrologue);
    return true;
  }
  // A later setup, or the first after prefetch(): the quick tier while the
  // build runs and this pool would have started on it; else the build.
  if (background_.valid() && !takeIfDone() && !quickFailed_ &&
      startsOnQuickTier(tiers_, false, candidates)) {
    startedQuick_ = startedQuick_ || first;
    return true;
  }
  finishLocked();
  return false;
}

void ModuleBuilds::finishLocked() {
  if (background_.valid()) {
    background_.wait();
    takeIfDone();
  }
}

std::shared_ptr<const ModuleSet> ModuleBuilds::takeIfDone() {
  if (background_.valid() && background_.wait_for(std::chrono::seconds(0)) ==
                                 std::future_status::ready)
    optimized_ = background_.get(); // rethrows the build's error
  return optimized_;
}

std::shared_ptr<const ModuleSet> ModuleBuilds::optimizedIfDone() {
  std::lock_guard<std::mutex> lock(mutex_);
  return takeIfDone();
}

std::shared_ptr<const ModuleSet> ModuleBuilds::cachelessOptimized() {
  std::lock_guard<std::mutex> lock(mutex_);
  return cacheOptions_.disabled ? optimized_ : nullptr;
}

std::shared_ptr<const ModuleSet> ModuleBuilds::claimPrefetched() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!prefetchUnclaimed_ || !takeIfDone())
    return nullptr;
  prefetchUnclaimed_ = false;
  return optimized_;
}

std::shared_ptr<const ModuleSet>
ModuleBuilds::modules(const CompileTarget &target, bool quick) {
  if (quick) {
    try {
      return build(target, /*quick=*/true, /*withPrologue=*/false);
    } catch (const Error &e) {
      notice(fmt::format("the quick kernels did not compile ({}); waiting "
                         "for the optimized ones",
                         e.what()));
      std::lock_guard<std::mutex> lock(mutex_);
      quickFailed_ = true; // later setups do not try again
      finishLocked();
    }
  }
  // The prefetch's set, to the first setup that asks, with the compile's
  // counters (later setups read the cache it filled); without a cache,
  // the background build's cubins as they are rather than compiled again.
  if (std::shared_ptr<const ModuleSet> set = claimPrefetched())
    return set;
  if (std::shared_ptr<const ModuleSet> set = cachelessOptimized())
    return set;
  return build(target, /*quick=*/false, /*withPrologue=*/false);
}

PrologueCubin ModuleBuilds::prologue(const CompileTarget &target, bool quick) {
  if (quick) {
    try {
      KernelCache cache(cacheOptions_);
      return {compilePrologue(target, /*quick=*/true, cache), true};
    } catch (const Error &) {
      // The optimized one, as before the tiers: where it cannot be had
      // either (no NVRTC), the runner's fallback to the host fold says so.
    }
  }
  if (std::shared_ptr<const ModuleSet> set = cachelessOptimized();
      set && !set->prologue.empty())
    return {set->prologue, false};
  KernelCache cache(cacheOptions_);
  return {compilePrologue(target, /*quick=*/false, cache), false};
}

std::shared_ptr<const ModuleSet>
ModuleBuilds::build(const CompileTarget &target, bool quick,
                    bool withPrologue) const {
  PrimaryContext ctx(target.device);
  CudaDriver &drv = CudaDriver::get();
  KernelCache cache(cacheOptions_);
  auto set = std::make_shared<ModuleSet>();
  set->quick = quick;
  const size_t n = bundle_.modules.size();
  set->cubins.resize(n);
  // One more job after the modules: the device prologue.
  std::vector<std::exception_ptr> errors(n + 1);
  std::vector<double> seconds(n, -1);
  auto compileOne = [&](size_t i) {
    try {
      if (i == n) { // counted apart: the set's counters are its modules'
        KernelCache own(cacheOptions_);
        try {
          set->prologue = compilePrologue(target, quick, own);
        } catch (const Error &) {
          // No prologue to be had (no NVRTC, which a bundle of PTX modules
          // alone never needed): the runner's own attempt says so and the
          // host folds (CudaRunner::deviceFoldsHostWeights).
        }
        return;
      }
      const KernelModule &m = bundle_.modules[i];
      if (isLinkedModule(bundle_, m.name))
        return; // compiled into the module that links it
      const Clock::time_point begin = Clock::now();
      // The PTX JIT links in the calling thread's context.
      PROOFC_CU(drv, cuCtxSetCurrent, ctx.get());
      set->cubins[i] = compileModule(m, quick, target, cache);
      seconds[i] = secondsSince(begin);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  const size_t jobs = n + (withPrologue ? 1 : 0);
  std::vector<std::thread> workers;
  for (size_t i = 1; i < jobs; ++i)
    workers.emplace_back(compileOne, i);
  if (jobs > 0)
    compileOne(0);
  for (std::thread &w : workers)
    w.join();
  for (const std::exception_ptr &e : errors) // the first module's error
    if (e)
      std::rethrow_exception(e);
  set->cache = cache.stats();
  for (size_t i = 0; i < n; ++i)
    if (seconds[i] >= 0)
      set->moduleSeconds[bundle_.modules[i].name] = seconds[i];
  return set;
}

std::string ModuleBuilds::compilePrologue(const CompileTarget &target,
                                          bool quick,
                                          KernelCache &cache) const {
  return DevicePrologue::compileCubin(
      cache, CudaDriver::get().version(), target.major, target.minor,
      path_ + (quick ? " (quick tier)" : ""), tierOptions({}, quick));
}

KernelKey ModuleBuilds::keyFor(const KernelModule &m, bool quick,
                               const CompileTarget &target) const {
  if (m.format == "cuda")
    return nvrtcKernelKey(m.source, tierOptions(m.options, quick), target.major,
                          target.minor, CudaDriver::get().version());
  KernelKey key;
  key.code = m.source;
  key.arch = Nvrtc::arch(target.major, target.minor);
  key.driverVersion = CudaDriver::get().version();
  key.proofcVersion = PROOFC_VERSION;
  key.compilerVersion = "ptx-jit";
  // Modules linked in: relocatable NVRTC cubins; their sources and options
  // are part of the key.
  for (const std::string &l : m.link) {
    const KernelModule &c = moduleNamed(l);
    key.code += "\n// link " + c.name + "\n" + c.source;
    for (const std::string &o : relocatableOptions(c, quick))
      key.options.push_back(c.name + ": " + o);
  }
  if (!m.link.empty())
    key.compilerVersion += " + nvrtc " + Nvrtc::get().version();
  return key;
}

bool ModuleBuilds::optimizedCached(const CompileTarget &target) const {
  KernelCache cache(cacheOptions_);
  for (const KernelModule &m : bundle_.modules)
    if (!isLinkedModule(bundle_, m.name) &&
        !cache.contains(keyFor(m, /*quick=*/false, target)))
      return false;
  return true;
}

std::string ModuleBuilds::moduleLabel(const KernelModule &m, bool quick) const {
  return path_ + ": module '" + m.name + "'" + (quick ? " (quick tier)" : "");
}

std::string ModuleBuilds::compileModule(const KernelModule &m, bool quick,
                                        const CompileTarget &target,
                                        KernelCache &cache) const {
  const std::string name = moduleLabel(m, quick);
  if (m.format == "cuda")
    return cachedNvrtcCubin(cache, CudaDriver::get().version(), m.source, name,
                            target.major, target.minor,
                            tierOptions(m.options, quick));
  return cache.get(keyFor(m, quick, target), [&] {
    // NVRTC compiles the linked modules while the driver JITs the PTX.
    std::vector<std::future<std::string>> objects;
    for (const std::string &l : m.link) {
      const KernelModule *c = &moduleNamed(l);
      objects.push_back(std::async(std::launch::async, [this, c, quick,
                                                        target] {
        return Nvrtc::get().compileToCubin(c->source, moduleLabel(*c, quick),
                                           relocatableOptions(*c, quick),
                                           target.major, target.minor);
      }));
    }
    return linkPtx(m.source, name, objects);
  });
}

const KernelModule &ModuleBuilds::moduleNamed(const std::string &name) const {
  if (const KernelModule *m = findModule(bundle_, name))
    return *m;
  fail("{}: no module '{}'", path_, name); // the bundle verifier checks
}

std::vector<std::string> ModuleBuilds::relocatableOptions(const KernelModule &m,
                                                          bool quick) const {
  std::vector<std::string> options = tierOptions(m.options, quick);
  options.push_back("-rdc=true");
  return options;
}

std::string
ModuleBuilds::linkPtx(const std::string &ptx, const std::string &name,
                      std::vector<std::future<std::string>> &objects) const {
  CudaDriver &drv = CudaDriver::get();
  std::vector<char> log(16384, '\0');
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {
      log.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(log.size()))};
  CUlinkState state = nullptr;
  PROOFC_CU(drv, cuLinkCreate, 2, opts, values, &state);
  struct Destroy {
    CudaDriver &d;
    CUlinkState s;
    ~Destroy() { d.cuLinkDestroy(s); }
  } destroy{drv, state};
  CUresult r = drv.cuLinkAddData(
      state, CU_JIT_INPUT_PTX, const_cast<char *>(ptx.c_str()), ptx.size() + 1,
      name.c_str(), 0, nullptr, nullptr);
  std::vector<std::string> cubins;
  for (std::future<std::string> &object : objects)
    cubins.push_back(object.get()); // rethrows an NVRTC error
  for (size_t i = 0; r == CUDA_SUCCESS && i < cubins.size(); ++i)
    r = drv.cuLinkAddData(state, CU_JIT_INPUT_CUBIN,
                          const_cast<char *>(cubins[i].data()),
                          cubins[i].size(), name.c_str(), 0, nullptr, nullptr);
  void *cubin = nullptr;
  size_t size = 0;
  if (r == CUDA_SUCCESS)
    r = drv.cuLinkComplete(state, &cubin, &size);
  if (r != CUDA_SUCCESS)
    fail("{}: PTX JIT failed: {}: {}", name, drv.errorName(r),
         jitLogLine(log.data()));
  return std::string(static_cast<const char *>(cubin), size);
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
