//===- DeviceTrajectories.h - A rollout's trajectories on the GPU -*- C++
//-*-===//
//
// Internal to the CUDA backend: the device memory a rollouts call records
// its steps into (lib/Targets/CUDA/Kernels/trajectory.cu: the state table
// and the dense step rows) and the finishing pass that turns them into
// docs/rollouts.md's tensors without leaving the device
// (kernels/trajectory.cu; docs/rollouts-cuda.md explains both). The output
// tensors are device memory owned by this object until its next prepare().
// Every buffer is kept from call to call and only grows (cuMemAlloc and
// cuMemFree, ~25 of each a call, were most of a small call's time outside
// its run: cuMemFree waits for the whole device).
//
// The kernels' source is embedded in the runtime and compiled once per
// device architecture through the disk KernelCache (NVRTC), as the device
// prologue's. Only built with the CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_DEVICETRAJECTORIES_H
#define PROOFC_RUNTIME_CUDA_DEVICETRAJECTORIES_H

#include "cuda/CudaDriver.h"
#include "cuda/KernelCache.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace proofc {

class DeviceTrajectories {
public:
  /// Where a call's steps are recorded (trajectory.cu's Recorder fields).
  struct Recording {
    CUdeviceptr table = 0, overflow = 0;
    int32_t entries = 0, D = 0;
    CUdeviceptr stepState = 0, stepDerived = 0, stepCount = 0, stepAction = 0,
                stepLogp = 0;
  };
  /// docs/rollouts.md's tensors (device addresses) and sizes.
  struct Output {
    CUdeviceptr states = 0; ///< int32 [U][A][3]
    CUdeviceptr stepEpisode = 0, stepState = 0, stepDerived = 0, stepCount = 0,
                stepAction = 0, stepLogp = 0;       ///< [T] ([T][S] derived)
    CUdeviceptr triple = 0, positive = 0, logp = 0; ///< [E]
    int64_t numStates = 0, steps = 0;
    /// The first step whose log-probability is not finite, or -1.
    int64_t firstNonFinite = -1;
  };

  /// In the current context: the finishing module for sm_<major><minor>
  /// (KernelCache + NVRTC), loaded. `what` names errors.
  DeviceTrajectories(CudaDriver &drv, KernelCache &cache, int ccMajor,
                     int ccMinor, std::string what);
  /// Frees every buffer and unloads the module (after the stream's work).
  ~DeviceTrajectories();
  DeviceTrajectories(const DeviceTrajectories &) = delete;
  DeviceTrajectories &operator=(const DeviceTrajectories &) = delete;

  /// Buffers for E episodes of at most D steps of S-state lists of A-atom
  /// states and a state table of `entries` (a power of two) entries,
  /// zero-filled on `stream`. Waits for the readers of the previous
  /// call's outputs (any stream), whose buffers it reuses.
  const Recording &prepare(int64_t episodes, int32_t D, int32_t S, int32_t A,
                           int32_t entries, CUstream stream);
  /// The pool position -> episode map of the call (RolloutParams::
  /// episodeOf), uploaded; valid until the next call's upload.
  CUdeviceptr episodeMap(const std::vector<int32_t> &episodeOf);
  /// Whether a state found no entry (the call must run again with a larger
  /// table). Waits for `stream`.
  bool overflowed(CUstream stream);
  /// The finishing pass over the recorded steps: `depth` the episodes'
  /// depths on the device ([E], the proof loop's out_depth), K episodes per
  /// triple, positive[n] per triple. Reads back U, T and the non-finite
  /// check (three 4-byte copies); everything else stays on the device.
  Output finish(CUdeviceptr depth, int32_t K,
                const std::vector<uint8_t> &positive, CUstream stream);

  /// The kernels' NVRTC source, as embedded (kernels/trajectory.cu).
  static const std::string &source();

private:
  /// Every device buffer of a call, by purpose: prepare()'s recording,
  /// the scans' scratch (one scan at a time), finish()'s scratch and
  /// outputs.
  enum Slot : int {
    kTable,
    kOverflow,
    kRecState,
    kRecDerived,
    kRecCount,
    kRecAction,
    kRecLogp,
    kEpisodeOf,
    kScanSums,
    kScanTotal,
    kMark,
    kEntryId,
    kStates,
    kFirst,
    kStepEpisode,
    kStepState,
    kStepDerived,
    kStepCount,
    kStepAction,
    kStepLogp,
    kBad,
    kPositiveIn,
    kTriple,
    kPositive,
    kLogp,
    kSlots
  };
  struct Buffer {
    CUdeviceptr ptr = 0;
    uint64_t capacity = 0;
  };
  /// The slot's buffer, of at least `bytes` (reallocated only to grow;
  /// its contents are not kept then).
  CUdeviceptr buffer(Slot slot, uint64_t bytes);
  /// Exclusive scan of n int32 at `data` in place; returns the sum (waits).
  int64_t scan(CUdeviceptr data, int64_t n, CUstream stream);
  void launch(CUfunction f, unsigned grid, unsigned block,
              std::vector<void *> args, CUstream stream);
  void freeAll() noexcept;

  CudaDriver &drv_;
  std::string what_;
  CUmodule module_ = nullptr;
  CUfunction mark_ = nullptr, scanBlocks_ = nullptr, scanSums_ = nullptr,
             scanAdd_ = nullptr, states_ = nullptr, steps_ = nullptr,
             episodes_ = nullptr;
  std::array<Buffer, kSlots> buffers_{}; ///< kept between calls
  Recording rec_;
  int64_t E_ = 0;
  int32_t S_ = 0, A_ = 0;
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_DEVICETRAJECTORIES_H
