//===- RunnerSetup.cpp - a pool's device setup
//------------------------------===//
//
// CudaRunner's setup (CudaRunner.h): open the device, build the knowledge
// base, bind the plan (PlanBinding), allocate every buffer and upload its
// first contents, then the modules, launches and graph (ModuleLoader.cpp,
// GraphBuilder.cpp); and what a later run over the same pool or size
// uploads: its candidates, its weights (the device prologue over weights on
// the GPU, or over host weights staged there).
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "cuda/CudaRunner.h"
#include "cuda/Nvrtc.h"
#include "support/Fail.h"

#include <algorithm>
#include <cstring>
#include <future>

namespace proofc {

void CudaRunner::setup(const EvalInputs &inputs, BackendTimings &timings) {
  const Clock::time_point start = Clock::now();
  poolId_ = inputs.poolId;
  shapeId_ = inputs.shapeId;
  openDevice();
  // The compiles first, each in threads of its own, so that they run
  // beside the host's work below (the knowledge base, the binding, the
  // buffers): the bundle's modules, and the device prologue's module where
  // this setup's first run needs it (device weights, or host weights
  // folded on the device), on the tier builds_ gives (CompileTiers.h). A
  // cold program waited for the prologue's NVRTC compile, then for the
  // modules'.
  const Clock::time_point compileStart = Clock::now();
  const bool mayFold = planFoldsAtomLayer(bundle_.plan);
  const bool quick = builds_.quickFor(
      target_, static_cast<int64_t>(inputs.candidates.candidates.size()),
      inputs.deviceWeights || mayFold);
  double modulesCompiled = 0;
  std::future<std::shared_ptr<const ModuleSet>> modules = std::async(
      std::launch::async, [this, quick, compileStart, &modulesCompiled] {
        std::shared_ptr<const ModuleSet> set = builds_.modules(target_, quick);
        modulesCompiled = secondsSince(compileStart);
        return set;
      });
  kb_ = buildKnowledgeBase(inputs.dataset, inputs.factsIncludeValid);
  // A folded atom layer (kinship's: 98 MB) is made by the device prologue
  // in about a millisecond, where the host took a few tenths of a second
  // and uploaded it: host weights go through the device prologue too when
  // there is one, before the first run (uploadWeights). A plan whose table
  // has no rows here (over the fold's budget) folds nothing and needs no
  // prologue in its first run.
  const bool hostWeightsFold = !inputs.deviceWeights && mayFold &&
                               atomLayerRowsFor(bundle_.program, kb_) > 0;
  if (inputs.deviceWeights || hostWeightsFold)
    startPrologueCompile(quick);
  const bool foldOnDevice = hostWeightsFold && deviceFoldsHostWeights();
  binding_ = std::make_unique<PlanBinding>(bundle_, inputs, kb_, path_,
                                           memoEntries(inputs), !foldOnDevice);
  PlanBinding &binding = *binding_;
  for (size_t i = 0; i < binding.buffers().size(); ++i)
    if (binding.buffers()[i].data.empty() &&
        std::find(binding.weightBuffers().begin(),
                  binding.weightBuffers().end(),
                  static_cast<int32_t>(i)) == binding.weightBuffers().end())
      zeroBuffers_.push_back(i);
  allocate(binding);
  buildResetGraph();
  const std::shared_ptr<const ModuleSet> set = modules.get();
  loadModules(*set, modulesCompiled);
  resolveCondMode();
  loopFlag_ = dev_.buffers[binding.bufferIndex(bundle_.plan.schedule.loopFlag)];
  PROOFC_CU(dev_.drv, cuMemHostAlloc, reinterpret_cast<void **>(&dev_.pinned),
            64, 0);
  for (CUevent &e : dev_.events)
    PROOFC_CU(dev_.drv, cuEventCreate, &e, CU_EVENT_DISABLE_TIMING);
  prepareGraph();
  PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream);
  // Uploaded with the binding, unless the device prologue folds them.
  weightsCurrent_ = !inputs.deviceWeights && !foldOnDevice;
  weightsId_ = weightsCurrent_ ? inputs.weightsId : 0;
  timings.setupSeconds = secondsSince(start);
}

int64_t CudaRunner::memoEntries(const EvalInputs &inputs) {
  size_t freeBytes = 0, totalBytes = 0;
  PROOFC_CU(dev_.drv, cuMemGetInfo, &freeBytes, &totalBytes);
  return memoEntriesWithin(
      options_.memoEntries,
      static_cast<int64_t>(inputs.candidates.candidates.size()), freeBytes,
      cudaMemoEntryBytes(bundle_.program.shape.A));
}

bool CudaRunner::reusableFor(const EvalInputs &inputs) const {
  const bool sameRecording =
      binding_ && (inputs.actions != nullptr) == binding_->recordsActions();
  return sameRecording && ((inputs.poolId != 0 && inputs.poolId == poolId_) ||
                           sameShape(inputs));
}

bool CudaRunner::sameShape(const EvalInputs &inputs) const {
  return binding_ && inputs.shapeId != 0 && inputs.shapeId == shapeId_ &&
         !(inputs.poolId != 0 && inputs.poolId == poolId_) &&
         static_cast<int64_t>(inputs.candidates.candidates.size()) ==
             binding_->symbols().at("N");
}

void CudaRunner::uploadPool(const EvalInputs &inputs, BackendTimings &timings) {
  const Clock::time_point start = Clock::now();
  PROOFC_CU(dev_.drv, cuCtxSetCurrent, dev_.ctx);
  // Gathered straight into pinned staging (allocated once per setup, the
  // size is fixed: sameShape) and copied at the copy engine's speed.
  const std::vector<std::pair<int32_t, size_t>> pool = binding_->poolBuffers();
  size_t most = 0;
  for (const auto &[index, words] : pool)
    most = std::max(most, words);
  if (!dev_.pinnedPool && most > 0)
    PROOFC_CU(dev_.drv, cuMemHostAlloc,
              reinterpret_cast<void **>(&dev_.pinnedPool), most * 4, 0);
  for (const auto &[index, words] : pool) {
    binding_->writePool(index, inputs.candidates, dev_.pinnedPool);
    PROOFC_CU(dev_.drv, cuMemcpyHtoDAsync,
              dev_.buffers[static_cast<size_t>(index)], dev_.pinnedPool,
              words * 4, dev_.stream);
    PROOFC_CU(dev_.drv, cuStreamSynchronize, dev_.stream);
  }
  poolId_ = inputs.poolId;
  timings.setupSeconds += secondsSince(start);
}

void CudaRunner::uploadWeights(const EvalInputs &inputs) {
  if (!inputs.deviceWeights && !deviceFoldsHostWeights()) {
    for (auto &[index, data] : binding_->weightData(inputs.weights))
      PROOFC_CU(dev_.drv, cuMemcpyHtoD,
                dev_.buffers[static_cast<size_t>(index)], data.data(),
                data.size() * 4);
    return;
  }
  std::map<std::string, DeviceTensor> weights;
  if (inputs.deviceWeights) {
    for (const auto &[name, w] : *inputs.deviceWeights)
      weights[name] = {static_cast<CUdeviceptr>(w.address), w.shape};
  } else {
    stageHostWeights(inputs.weights, weights);
  }
  std::map<std::string, CUdeviceptr> outputs;
  for (int32_t index : binding_->weightBuffers()) {
    const BoundBuffer &b = binding_->buffers()[static_cast<size_t>(index)];
    outputs[b.decl->init.substr(8)] = dev_.buffers[static_cast<size_t>(index)];
  }
  devicePrologue().run(bundle_.plan, weights, outputs, dev_.stream);
}

bool CudaRunner::deviceFoldsHostWeights() {
  if (!hostFoldsHostWeights_) {
    try {
      devicePrologue();
    } catch (const Error &) {
      // No prologue module (e.g. no NVRTC, which a bundle of PTX modules
      // alone never needed): the host prologue's tables, as before.
      hostFoldsHostWeights_ = true;
    }
  }
  return !hostFoldsHostWeights_;
}

void CudaRunner::stageHostWeights(
    const TensorMap &host, std::map<std::string, DeviceTensor> &weights) {
  // Every tensor at a 256-byte boundary; at least one block, so that no
  // address is null.
  constexpr size_t kAlign = 64; // floats
  std::vector<size_t> at;
  size_t words = 0;
  for (const auto &[name, t] : host) {
    at.push_back(words);
    words += (t.data.size() + kAlign - 1) / kAlign * kAlign;
  }
  words = std::max(words, kAlign);
  if (words > dev_.hostWeightWords) {
    if (dev_.pinnedWeights)
      PROOFC_CU(dev_.drv, cuMemFreeHost, dev_.pinnedWeights);
    dev_.pinnedWeights = nullptr;
    if (dev_.hostWeights)
      PROOFC_CU(dev_.drv, cuMemFree, dev_.hostWeights);
    dev_.hostWeights = 0;
    dev_.hostWeightWords = 0;
    PROOFC_CU(dev_.drv, cuMemHostAlloc,
              reinterpret_cast<void **>(&dev_.pinnedWeights), words * 4, 0);
    PROOFC_CU(dev_.drv, cuMemAlloc, &dev_.hostWeights, words * 4);
    dev_.hostWeightWords = words;
  }
  // The stream was synchronized after the last call's copy (execute):
  // the staging is free.
  size_t i = 0;
  for (const auto &[name, t] : host) {
    if (!t.data.empty())
      std::memcpy(dev_.pinnedWeights + at[i], t.data.data(), t.data.size() * 4);
    weights[name] = {dev_.hostWeights + at[i] * 4, t.shape};
    ++i;
  }
  PROOFC_CU(dev_.drv, cuMemcpyHtoDAsync, dev_.hostWeights, dev_.pinnedWeights,
            words * 4, dev_.stream);
}

void CudaRunner::openDevice() {
  CudaDriver &drv = dev_.drv;
  int count = 0;
  PROOFC_CU(drv, cuDeviceGetCount, &count);
  if (options_.device < 0 || options_.device >= count)
    fail("CUDA: device {} does not exist ({} device{} visible)",
         options_.device, count, count == 1 ? "" : "s");
  target_ = CompileTarget::ofOrdinal(options_.device);
  dev_.device = target_.device;
  PROOFC_CU(drv, cuDevicePrimaryCtxRetain, &dev_.ctx, dev_.device);
  PROOFC_CU(drv, cuCtxSetCurrent, dev_.ctx);
  // A blocking stream: it orders after the null-stream uploads and memsets.
  PROOFC_CU(drv, cuStreamCreate, &dev_.stream, CU_STREAM_DEFAULT);
  char name[256] = {};
  PROOFC_CU(drv, cuDeviceGetName, name, sizeof name - 1, dev_.device);
  arch_ = Nvrtc::arch(target_.major, target_.minor);
  info_.device = std::string(name) + " (" + arch_ + ")";
}

void CudaRunner::allocate(PlanBinding &binding) {
  CudaDriver &drv = dev_.drv;
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
    dev_.buffers.push_back(ptr);
    if (b.data.empty())
      PROOFC_CU(drv, cuMemsetD8, ptr, 0, b.bytes);
    else
      PROOFC_CU(drv, cuMemcpyHtoD, ptr, b.data.data(), b.data.size() * 4);
  }
  binding.releaseHostData();
  PROOFC_CU(drv, cuCtxSynchronize); // memsets may still run asynchronously
}

void CudaRunner::startPrologueCompile(bool quick) {
  const Clock::time_point start = Clock::now();
  prologueCubin_ = std::async(std::launch::async, [this, quick, start] {
    PrologueCubin cubin = builds_.prologue(target_, quick);
    prologueSeconds_ = secondsSince(start);
    return cubin;
  });
}

DevicePrologue &CudaRunner::devicePrologue() {
  if (!devicePrologue_) {
    PrologueCubin cubin = prologueCubin_.valid()
                              ? prologueCubin_.get() // rethrows its error
                              : builds_.prologue(target_, /*quick=*/false);
    devicePrologue_ =
        std::make_unique<DevicePrologue>(dev_.drv, cubin.cubin, path_);
    quickPrologue_ = cubin.quick;
  }
  return *devicePrologue_;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
