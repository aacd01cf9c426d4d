//===- DeviceTrajectories.cpp - A rollout's trajectories on the GPU -------===//
//
// The recording buffers and the finishing pass's launches
// (kernels/trajectory.cu, in its order: mark, scan, states, the depths'
// scan, steps, episodes). Sizes come back to the host only where the next
// allocation needs them (U, T) and for the non-finite check.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "DeviceTrajectories.h"

#include "cuda/KernelCache.h"
#include "proofc/contract/kernel_abi.h"
#include "support/Fail.h"

#include <algorithm>
#include <utility>

namespace proofc {
namespace {

const char kTrajectorySource[] =
#include "TrajectoryKernel.inc"
    ;

constexpr unsigned kBlock = 256;
/// kernels/trajectory.cu's kScanPerThread.
constexpr int kScanPerThread = 4;
/// The non-finite check's "none" (cuMemsetD8 of 0x7F: 0x7F7F7F7F).
constexpr int32_t kNone = 0x7F7F7F7F;

unsigned gridFor(int64_t n) {
  return static_cast<unsigned>(
      std::clamp<int64_t>((n + kBlock - 1) / kBlock, 1, 4096));
}

} // namespace

const std::string &DeviceTrajectories::source() {
  static const std::string text(kTrajectorySource);
  return text;
}

DeviceTrajectories::DeviceTrajectories(CudaDriver &drv, KernelCache &cache,
                                       int ccMajor, int ccMinor,
                                       std::string what)
    : drv_(drv), what_(std::move(what)) {
  const std::string cubin =
      cachedNvrtcCubin(cache, drv_.version(), source(),
                       what_ + ": the trajectories' kernels", ccMajor, ccMinor);
  try {
    PROOFC_CU(drv_, cuModuleLoadDataEx, &module_, cubin.data(), 0, nullptr,
              nullptr);
    const std::pair<CUfunction *, const char *> entries[] = {
        {&mark_, "proofc_traj_mark"},
        {&scanBlocks_, "proofc_traj_scan_blocks"},
        {&scanSums_, "proofc_traj_scan_sums"},
        {&scanAdd_, "proofc_traj_scan_add"},
        {&states_, "proofc_traj_states"},
        {&steps_, "proofc_traj_steps"},
        {&episodes_, "proofc_traj_episodes"}};
    for (const auto &[fn, entry] : entries)
      PROOFC_CU(drv_, cuModuleGetFunction, fn, module_, entry);
  } catch (...) {
    if (module_)
      drv_.cuModuleUnload(module_);
    module_ = nullptr;
    throw;
  }
}

DeviceTrajectories::~DeviceTrajectories() {
  // Errors are not reported here: the context may already be unusable.
  drv_.cuCtxSynchronize();
  freeAll();
  if (module_)
    drv_.cuModuleUnload(module_);
}

void DeviceTrajectories::freeAll() noexcept {
  for (Buffer &b : buffers_) {
    if (b.ptr)
      drv_.cuMemFree(b.ptr);
    b = Buffer{};
  }
}

CUdeviceptr DeviceTrajectories::buffer(Slot slot, uint64_t bytes) {
  Buffer &b = buffers_[slot];
  bytes = std::max<uint64_t>(bytes, 4);
  if (bytes > b.capacity) {
    if (b.ptr)
      drv_.cuMemFree(b.ptr);
    b = Buffer{};
    // A quarter more than asked: a batch a little larger than the last
    // does not allocate again.
    const uint64_t capacity = bytes + bytes / 4;
    PROOFC_CU(drv_, cuMemAlloc, &b.ptr, capacity);
    b.capacity = capacity;
  }
  return b.ptr;
}

void DeviceTrajectories::launch(CUfunction f, unsigned grid, unsigned block,
                                std::vector<void *> args, CUstream stream) {
  PROOFC_CU(drv_, cuLaunchKernel, f, grid, 1, 1, block, 1, 1, 0, stream,
            args.data(), nullptr);
}

const DeviceTrajectories::Recording &
DeviceTrajectories::prepare(int64_t episodes, int32_t D, int32_t S, int32_t A,
                            int32_t entries, CUstream stream) {
  if (entries < 1 || (entries & (entries - 1)) != 0)
    fail("{}: the state table's {} entries are not a power of two", what_,
         entries);
  // Every use (q * D + t) * (S + 1) + p must fit the table's 32-bit word.
  const int64_t uses = episodes * D * (S + 1);
  if (uses >= (int64_t{1} << 31))
    fail("{}: {} episodes of {} steps of {} states are too many for one "
         "call's trajectories (at most 2^31 states in all); split the batch",
         what_, episodes, D, S);
  // The last call's outputs are overwritten below: wait for their readers,
  // on any stream of the context (the caller's copies, e.g. torch's clone
  // on its own stream).
  PROOFC_CU(drv_, cuCtxSynchronize);
  E_ = episodes;
  S_ = S;
  A_ = A;
  const uint64_t rows = static_cast<uint64_t>(episodes) * D;
  const uint64_t tableBytes =
      static_cast<uint64_t>(entries) * proofc_abi::trajectoryEntryWords(A) * 4;
  rec_ = Recording{};
  rec_.entries = entries;
  rec_.D = D;
  rec_.table = buffer(kTable, tableBytes);
  rec_.overflow = buffer(kOverflow, 4);
  rec_.stepState = buffer(kRecState, rows * 4);
  rec_.stepDerived = buffer(kRecDerived, rows * S * 4);
  rec_.stepCount = buffer(kRecCount, rows * 4);
  rec_.stepAction = buffer(kRecAction, rows * 4);
  rec_.stepLogp = buffer(kRecLogp, rows * 4);
  PROOFC_CU(drv_, cuMemsetD8Async, rec_.table, 0, tableBytes, stream);
  PROOFC_CU(drv_, cuMemsetD8Async, rec_.overflow, 0, 4, stream);
  return rec_;
}

CUdeviceptr
DeviceTrajectories::episodeMap(const std::vector<int32_t> &episodeOf) {
  const CUdeviceptr p = buffer(kEpisodeOf, episodeOf.size() * 4);
  if (!episodeOf.empty())
    PROOFC_CU(drv_, cuMemcpyHtoD, p, episodeOf.data(), episodeOf.size() * 4);
  return p;
}

bool DeviceTrajectories::overflowed(CUstream stream) {
  int32_t flag = 0;
  PROOFC_CU(drv_, cuMemcpyDtoHAsync, &flag, rec_.overflow, 4, stream);
  PROOFC_CU(drv_, cuStreamSynchronize, stream);
  return flag != 0;
}

int64_t DeviceTrajectories::scan(CUdeviceptr data, int64_t n, CUstream stream) {
  long long count = n;
  int chunk = static_cast<int>(kBlock) * kScanPerThread;
  int blocks = static_cast<int>(std::max<int64_t>((n + chunk - 1) / chunk, 1));
  CUdeviceptr sums = buffer(kScanSums, static_cast<uint64_t>(blocks) * 4),
              total = buffer(kScanTotal, 4);
  launch(scanBlocks_, static_cast<unsigned>(blocks), kBlock,
         {&data, &count, &sums}, stream);
  launch(scanSums_, 1, 32, {&sums, &blocks, &total}, stream);
  launch(scanAdd_, gridFor(n), kBlock, {&data, &count, &sums, &chunk}, stream);
  int32_t sum = 0;
  PROOFC_CU(drv_, cuMemcpyDtoHAsync, &sum, total, 4, stream);
  PROOFC_CU(drv_, cuStreamSynchronize, stream);
  return sum;
}

DeviceTrajectories::Output
DeviceTrajectories::finish(CUdeviceptr depth, int32_t K,
                           const std::vector<uint8_t> &positive,
                           CUstream stream) {
  Output out;
  int N = static_cast<int>(E_), D = rec_.D, S = S_, W = 3 * A_;
  int entries = rec_.entries;
  int entryWords = proofc_abi::trajectoryEntryWords(A_);
  // 1-3: number the states by first use, the state table.
  const int64_t uses = E_ * D * (S + 1);
  CUdeviceptr mark = buffer(kMark, static_cast<uint64_t>(uses) * 4);
  PROOFC_CU(drv_, cuMemsetD8Async, mark, 0, static_cast<size_t>(uses) * 4,
            stream);
  launch(mark_, gridFor(entries), kBlock,
         {&rec_.table, &entries, &entryWords, &mark}, stream);
  out.numStates = scan(mark, uses, stream);
  CUdeviceptr entryId = buffer(kEntryId, static_cast<uint64_t>(entries) * 4);
  out.states = buffer(kStates, static_cast<uint64_t>(out.numStates) * W * 4);
  launch(states_, gridFor(entries), kBlock,
         {&rec_.table, &entries, &entryWords, &W, &mark, &entryId, &out.states},
         stream);
  // 4: each episode's first step, the step arrays.
  CUdeviceptr first = buffer(kFirst, static_cast<uint64_t>(E_) * 4);
  PROOFC_CU(drv_, cuMemcpyDtoDAsync, first, depth, static_cast<size_t>(E_) * 4,
            stream);
  out.steps = scan(first, E_, stream);
  const uint64_t T = static_cast<uint64_t>(out.steps);
  out.stepEpisode = buffer(kStepEpisode, T * 4);
  out.stepState = buffer(kStepState, T * 4);
  out.stepDerived = buffer(kStepDerived, T * S * 4);
  out.stepCount = buffer(kStepCount, T * 4);
  out.stepAction = buffer(kStepAction, T * 4);
  out.stepLogp = buffer(kStepLogp, T * 4);
  CUdeviceptr bad = buffer(kBad, 4);
  PROOFC_CU(drv_, cuMemsetD8Async, bad, 0x7F, 4, stream);
  launch(steps_, gridFor(E_ * D), kBlock,
         {&N, &D, &S, &depth, &first, &entryId, &rec_.stepState,
          &rec_.stepDerived, &rec_.stepCount, &rec_.stepAction, &rec_.stepLogp,
          &out.stepEpisode, &out.stepState, &out.stepDerived, &out.stepCount,
          &out.stepAction, &out.stepLogp, &bad},
         stream);
  // 5: per episode.
  CUdeviceptr positiveIn = buffer(kPositiveIn, positive.size());
  if (!positive.empty())
    PROOFC_CU(drv_, cuMemcpyHtoDAsync, positiveIn, positive.data(),
              positive.size(), stream);
  out.triple = buffer(kTriple, static_cast<uint64_t>(E_) * 4);
  out.positive = buffer(kPositive, static_cast<uint64_t>(E_));
  out.logp = buffer(kLogp, static_cast<uint64_t>(E_) * 4);
  launch(episodes_, gridFor(E_), kBlock,
         {&N, &K, &depth, &first, &out.stepLogp, &positiveIn, &out.triple,
          &out.positive, &out.logp},
         stream);
  int32_t firstBad = kNone;
  PROOFC_CU(drv_, cuMemcpyDtoHAsync, &firstBad, bad, 4, stream);
  PROOFC_CU(drv_, cuStreamSynchronize, stream);
  out.firstNonFinite = firstBad == kNone ? -1 : firstBad;
  return out;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
