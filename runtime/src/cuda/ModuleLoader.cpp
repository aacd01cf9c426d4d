//===- ModuleLoader.cpp - the runner's modules, loaded and swapped --------===//
//
// A setup's modules: the cubins ModuleBuilds gives (from the disk kernel
// cache, or compiled: a cold program waits for the slowest module, each
// module's own time reported as module_compile_seconds), loaded. On the
// quick tier (CompileTiers.h), the optimized cubins replace them between
// calls once their background build is done: the new modules loaded, the
// launches prepared and the graph built again on their functions, the old
// modules unloaded. The buffers, and so every result, stay.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "support/Fail.h"

#include <algorithm>

namespace proofc {

void CudaRunner::loadModules(const ModuleSet &set, double compiledSeconds) {
  const Clock::time_point start = Clock::now();
  loadSet(set);
  info_.cache = set.cache;
  info_.moduleCompileSeconds = set.moduleSeconds;
  // The device prologue's compile ran beside the modules' (setup): the
  // first run needs both.
  double compiled = compiledSeconds;
  // prologueSeconds_ is >= 0 once a started compile has succeeded, whether
  // its future is still here or setup's fold check already took it; no
  // compile started, or a failed one (the host folds), adds no time.
  if (prologueCubin_.valid())
    prologueCubin_.wait();
  if (prologueSeconds_ >= 0) {
    info_.moduleCompileSeconds[kDevicePrologueModule] = prologueSeconds_;
    compiled = std::max(compiled, prologueSeconds_);
  }
  info_.moduleSeconds = compiled + secondsSince(start);
}

void CudaRunner::loadSet(const ModuleSet &set) {
  CudaDriver &drv = dev_.drv;
  for (size_t i = 0; i < bundle_.modules.size(); ++i) {
    const KernelModule &m = bundle_.modules[i];
    if (isLinkedModule(bundle_, m.name))
      continue;
    std::vector<char> log(16384, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(
                                      static_cast<uintptr_t>(log.size()))};
    CUmodule module = nullptr;
    CUresult r =
        drv.cuModuleLoadDataEx(&module, set.cubins[i].data(), 2, opts, values);
    if (r != CUDA_SUCCESS)
      fail("{}: module '{}': cuModuleLoadDataEx failed: {}: {}", path_, m.name,
           drv.errorName(r), jitLogLine(log.data()));
    dev_.modules.push_back(module);
    modules_[m.name] = module;
  }
  info_.quickKernels = set.quick;
}

void CudaRunner::refreshModules() {
  if (!info_.quickKernels && !quickPrologue_)
    return;
  const std::shared_ptr<const ModuleSet> set = builds_.optimizedIfDone();
  if (!set)
    return;
  CudaDriver &drv = dev_.drv;
  PROOFC_CU(drv, cuCtxSetCurrent, dev_.ctx);
  PROOFC_CU(drv, cuStreamSynchronize, dev_.stream);
  if (info_.quickKernels) {
    // The graph and the launches name the old functions: made again below.
    if (dev_.exec)
      PROOFC_CU(drv, cuGraphExecDestroy, dev_.exec);
    if (dev_.graph)
      PROOFC_CU(drv, cuGraphDestroy, dev_.graph);
    dev_.exec = nullptr;
    dev_.graph = nullptr;
    // The old modules stay in dev_.modules until the new ones are loaded
    // (an error unloads both with the runner).
    const std::vector<CUmodule> old = dev_.modules;
    modules_.clear();
    loadSet(*set);
    for (CUmodule m : old)
      PROOFC_CU(drv, cuModuleUnload, m);
    dev_.modules.erase(dev_.modules.begin(),
                       dev_.modules.begin() + static_cast<long>(old.size()));
    prepareGraph();
  }
  // The quick device prologue: the background build's optimized one, else
  // the optimized one compiled when next needed.
  if (quickPrologue_) {
    devicePrologue_.reset();
    quickPrologue_ = false;
    if (!set->prologue.empty())
      devicePrologue_ =
          std::make_unique<DevicePrologue>(drv, set->prologue, path_);
  }
  PROOFC_CU(drv, cuStreamSynchronize, dev_.stream);
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
