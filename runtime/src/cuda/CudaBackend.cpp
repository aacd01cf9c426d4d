//===- CudaBackend.cpp - Executes a bundle's GpuPlan on a CUDA GPU --------===//
//
// One run: bind the plan (PlanBinding), allocate and upload every buffer,
// compile/load the modules through the kernel cache, then execute the
// schedule in the requested CondMode and copy the outcomes back. Every
// driver object lives in the runner's DriverObjects, which frees them in
// reverse order, also when an error unwinds the run.
//
// This file holds CudaBackend itself: a CudaRunner (cuda/CudaRunner.h) per
// pool, kept between runs of that pool or size, the run facts added up
// over runs, and the pool capacity from the device's free memory; and the
// parts that need no CUDA headers (cond mode names, the report's
// backend_details, a build without CUDA).
//===----------------------------------------------------------------------===//
#include "cuda/CudaBackend.h"

#include "support/Fail.h"

#include <fmt/format.h>

#include <cstdlib>

namespace proofc {

const char *condModeName(CondMode mode) {
  switch (mode) {
  case CondMode::Native:
    return "native";
  case CondMode::Emulated:
    return "emulated";
  case CondMode::Host:
    return "host";
  }
  return "?";
}

CondMode parseCondMode(const std::string &text, const std::string &flag) {
  for (CondMode m : {CondMode::Native, CondMode::Emulated, CondMode::Host})
    if (text == condModeName(m))
      return m;
  fail("{}: unknown cond mode '{}' (native, emulated, host)", flag, text);
}

static nlohmann::json cudaRunInfoBaseJson(const CudaRunInfo &info) {
  nlohmann::json j = {
      {"device", info.device},
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
      {"module_compile_seconds", info.moduleCompileSeconds},
      {"kernels_tier", info.quickKernels ? "quick" : "optimized"},
      {"graph_launches", info.graphLaunches},
      {"host_flag_reads", info.hostFlagReads}};
  // A setup that started on the quick tier: when its optimized kernels
  // were compiled (null while they still were at the last call's end).
  if (info.tiered)
    j["optimized_modules_seconds"] =
        info.optimizedModuleSeconds >= 0
            ? nlohmann::json(info.optimizedModuleSeconds)
            : nlohmann::json(nullptr);
  return j;
}

nlohmann::json cudaRunInfoJson(const CudaRunInfo &info) {
  nlohmann::json j = cudaRunInfoBaseJson(info);
  if (!info.profiled)
    return j;
  auto sumOf = [&](const std::vector<std::string> &names) {
    double total = 0;
    for (const std::string &n : names) {
      auto it = info.launchSeconds.find(n);
      if (it != info.launchSeconds.end())
        total += it->second;
    }
    return total;
  };
  double all = 0;
  for (const auto &[name, seconds] : info.launchSeconds)
    all += seconds;
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

void CudaBackend::clearInfo() { info_ = CudaRunInfo{}; }

BackendInfo CudaBackend::info() const {
  auto plural = [](int64_t n, const char *many = "s") {
    return n == 1 ? "" : many;
  };
  const CudaRunInfo &run = info_;
  BackendInfo out;
  out.model = run.device;
  out.cond = condModeName(run.cond);
  out.condFellBack = run.condFellBack;
  out.device = fmt::format("{}, cond {}{}", out.model, out.cond,
                           out.condFellBack ? " (fallback)" : "");
  out.ordinal = options_.device;
  out.compileSeconds = run.cache.compileSeconds;
  out.loadSeconds = run.cache.loadSeconds;
  out.modulesSeconds = run.moduleSeconds;
  out.detailsJson = cudaRunInfoJson(run).dump();
  // A cold setup's first calls may run quickly compiled kernels
  // (CompileTiers.h): said, as the run is slower.
  const std::string tier =
      run.quickKernels ? " (the quick tier: the optimized kernels compile "
                         "meanwhile)"
                       : "";
  out.summary = fmt::format(
      "{} bytes on device; kernels: {} cache hit{}, {} miss{} ({:.3f} s "
      "compiling, {:.3f} s loading){}; {} graph launch{}, {} host flag read{}",
      run.deviceBytes, run.cache.hits, plural(run.cache.hits), run.cache.misses,
      plural(run.cache.misses, "es"), run.cache.compileSeconds,
      run.cache.loadSeconds, tier, run.graphLaunches,
      plural(run.graphLaunches, "es"), run.hostFlagReads,
      plural(run.hostFlagReads));
  return out;
}

bool cudaDeviceAvailable(std::string *why) { return cudaDeviceCount(why) > 0; }

} // namespace proofc

#if !PROOFC_HAVE_CUDA

namespace proofc {

int cudaDeviceCount(std::string *why) {
  if (why)
    *why = "proofc was built without the CUDA headers (cuda.h, nvrtc.h)";
  return 0;
}

struct CudaBackend::Persistent {};
CudaBackend::~CudaBackend() = default;

int64_t CudaBackend::poolCapacity(const EvalInputs &) { return 0; }

std::vector<Outcome> CudaBackend::run(const EvalInputs &, BackendTimings &) {
  fail("--device cuda: proofc was built without the CUDA headers (cuda.h, "
       "nvrtc.h); rebuild with the CUDA toolkit's include directory");
}

void CudaBackend::prefetchModules() {}
void CudaBackend::shareModules(CudaBackend &) {}

} // namespace proofc

#else // PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"

#include <algorithm>
#include <limits>

namespace proofc {

int cudaDeviceCount(std::string *why) {
  std::string reason;
  if (!CudaDriver::available(&reason)) {
    if (why)
      *why = reason;
    return 0;
  }
  CudaDriver &drv = CudaDriver::get();
  int count = 0;
  CUresult r = drv.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    if (why)
      *why = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + drv.errorName(r)
                               : "the CUDA driver sees no device";
    return 0;
  }
  return count;
}

struct CudaBackend::Persistent {
  Persistent(const Bundle &bundle, const std::string &path,
             const CudaBackendOptions &options, ModuleBuilds &builds)
      : runner(bundle, path, options, builds) {}
  CudaRunner runner; // owns device objects: never copied or moved
};

CudaBackend::~CudaBackend() = default;

void CudaBackend::ensureBuilds() {
  if (!builds_)
    builds_ = std::make_shared<ModuleBuilds>(bundle_, path_, options_.cache,
                                             options_.tiers);
}

void CudaBackend::prefetchModules() {
  try {
    const CompileTarget target = CompileTarget::ofOrdinal(options_.device);
    ensureBuilds();
    // The prologue where a setup may fold host weights on the device: it
    // compiles beside the modules.
    builds_->prefetch(target, planFoldsAtomLayer(bundle_.plan));
  } catch (const Error &) {
    // No device to ask (a wrong ordinal, a driver error): the first run's
    // setup says so, with its own message.
  }
}

void CudaBackend::shareModules(CudaBackend &other) {
  other.ensureBuilds();
  builds_ = other.builds_;
}

std::vector<Outcome> CudaBackend::run(const EvalInputs &inputs,
                                      BackendTimings &timings) {
  const bool reuse = persistent_ && persistent_->runner.reusableFor(inputs);
  try {
    ensureBuilds();
    if (!reuse) {
      persistent_.reset(); // the previous pool's device state first
      persistent_ =
          std::make_unique<Persistent>(bundle_, path_, options_, *builds_);
      persistent_->runner.setup(inputs, timings);
    } else {
      // On the quick tier: the optimized kernels, once compiled (the swap
      // counts as setup).
      const Clock::time_point swapStart = Clock::now();
      persistent_->runner.refreshModules();
      timings.setupSeconds += secondsSince(swapStart);
    }
    if (reuse && persistent_->runner.sameShape(inputs)) {
      // Another block of the same size: only its candidates go up.
      persistent_->runner.uploadPool(inputs, timings);
    }
    std::vector<Outcome> outcomes =
        persistent_->runner.execute(inputs, timings);
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
  info_.moduleCompileSeconds = before.moduleCompileSeconds;
  info_.tiered = builds_ && builds_->startedQuick();
  info_.optimizedModuleSeconds = builds_ ? builds_->optimizedSeconds() : -1;
  if (setUp) {
    info_.cache.hits += run.cache.hits;
    info_.cache.misses += run.cache.misses;
    info_.cache.discarded += run.cache.discarded;
    info_.cache.evicted += run.cache.evicted;
    info_.cache.compileSeconds += run.cache.compileSeconds;
    info_.cache.loadSeconds += run.cache.loadSeconds;
    info_.moduleSeconds += run.moduleSeconds;
    for (const auto &[name, seconds] : run.moduleCompileSeconds)
      info_.moduleCompileSeconds[name] += seconds;
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
  if (n <= 1)
    return 0;
  CudaDriver &drv = CudaDriver::get();
  int count = 0;
  PROOFC_CU(drv, cuDeviceGetCount, &count);
  if (options_.device < 0 || options_.device >= count)
    return 0; // run() says
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  PROOFC_CU(drv, cuDeviceGet, &device, options_.device);
  PROOFC_CU(drv, cuDevicePrimaryCtxRetain, &ctx, device);
  size_t freeBytes = 0, totalBytes = 0;
  CUresult r = drv.cuCtxSetCurrent(ctx);
  if (r == CUDA_SUCCESS)
    r = drv.cuMemGetInfo(&freeBytes, &totalBytes);
  drv.cuDevicePrimaryCtxRelease(device);
  drv.check(r, "cuMemGetInfo");

  // Buffer sizes are products of symbols, linear in the pool size N.
  const KnowledgeBase kb =
      buildKnowledgeBase(inputs.dataset, inputs.factsIncludeValid);
  // The step memo as n's runner would size it (at most a quarter of the
  // free memory), counted as fixed: a smaller pool's is no larger.
  const int64_t memo =
      memoEntriesWithin(options_.memoEntries, n, freeBytes,
                        cudaMemoEntryBytes(bundle_.program.shape.A));
  auto bytesFor = [&](int64_t pool) {
    const SymbolTable symbols =
        planSymbols(bundle_.program, kb, pool, memo, inputs.actions != nullptr);
    uint64_t bytes = 0;
    for (const BufferDecl &b : bundle_.plan.buffers)
      bytes += std::max<uint64_t>(
          4,
          4 * static_cast<uint64_t>(evalExtent(
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
    capacity =
        budget > fixed + perCandidate
            ? std::min<uint64_t>(capacity, (budget - fixed) / perCandidate)
            : 1;
  }
  return capacity >= n ? 0 : capacity;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
