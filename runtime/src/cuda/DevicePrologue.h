//===- DevicePrologue.h - The plan's weight prologue on the GPU -*- C++ -*-===//
//
// Internal to the CUDA backend. Weights that are already on the device (a
// torch CUDA tensor's memory) never travel through the host: GpuPlan's
// prologue ops run as kernels (kernels/prologue.cu) over them and the plan's
// "weights:<name>" buffers are filled device to device. The tables are bit
// for bit runPlanPrologue's (both call kernels/prologue_ops.h), and the
// checks and messages are the same (PrologueSchedule.h).
//
// The kernels' source is embedded in the runtime and compiled once per
// device architecture through the disk KernelCache (NVRTC), like the
// bundle's CUDA C++ modules. Only built with the CUDA headers.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_CUDA_DEVICEPROLOGUE_H
#define PROOFC_RUNTIME_CUDA_DEVICEPROLOGUE_H

#include "bundle/Bundle.h"
#include "cuda/CudaDriver.h"
#include "cuda/KernelCache.h"
#include "cuda/PrologueSchedule.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace proofc {

/// A float32 row-major tensor in device memory of the current context.
struct DeviceTensor {
  CUdeviceptr ptr = 0;
  std::vector<int64_t> shape;
};

class DevicePrologue {
public:
  /// In the current context: gets the prologue module's cubin for
  /// sm_<ccMajor><ccMinor> (KernelCache + NVRTC) and loads it. `cache` is
  /// used only here; `bundlePath` names errors.
  DevicePrologue(CudaDriver &drv, KernelCache &cache, int ccMajor, int ccMinor,
                 std::string bundlePath);
  /// In the current context: loads `cubin` (compileCubin's, got in
  /// another thread while the setup did other work).
  DevicePrologue(CudaDriver &drv, const std::string &cubin,
                 std::string bundlePath);
  /// The prologue module's cubin for sm_<ccMajor><ccMinor> through
  /// `cache` (NVRTC on a miss), with `options` (a compile tier's): needs
  /// no context. Throws proofc::Error naming `bundlePath` and prologue.cu.
  static std::string compileCubin(KernelCache &cache, int driverVersion,
                                  int ccMajor, int ccMinor,
                                  const std::string &bundlePath,
                                  const std::vector<std::string> &options = {});
  /// Waits for the last run's work, frees the scratch, unloads the module.
  ~DevicePrologue();
  DevicePrologue(const DevicePrologue &) = delete;
  DevicePrologue &operator=(const DevicePrologue &) = delete;

  /// Runs plan.prologue on the device over `weights` (every weight by name,
  /// float32 row-major, shapes given), then fills every destination in
  /// `outputs` (tensor name -> device address of a plan buffer whose init is
  /// "weights:<name>", with room for the tensor: prologueShapes() of
  /// PrologueSchedule.h gives its shape; the name is a weight, copied device to
  /// device, or a prologue op's dst, written in place). Intermediate tensors
  /// live in scratch owned by this object, reused by the next run (which waits
  /// for this one's work on its own stream). Asynchronous on `stream`: the
  /// weights must stay valid until the stream reaches the end of the work.
  /// Errors (proofc::Error, before anything is enqueued): those of
  /// runPlanPrologue (missing tensor, wrong shape, ...), naming the bundle
  /// path, the op index and the tensor; a null address; an output that names no
  /// tensor; a tensor larger than the rest of its driver allocation (an output
  /// buffer too small for it is never overrun).
  void run(const GpuPlan &plan,
           const std::map<std::string, DeviceTensor> &weights,
           const std::map<std::string, CUdeviceptr> &outputs, CUstream stream);

  /// The kernels' NVRTC source, as embedded (prologue.cu + prologue_ops.h).
  static const std::string &source();
  /// The kernels' entry points (extern "C" names in source()).
  static constexpr const char *kFoldColumnsEntry =
      "proofc_prologue_fold_columns";
  static constexpr const char *kTransposeEntry = "proofc_prologue_transpose";
  static constexpr const char *kTf32FragmentsEntry =
      "proofc_prologue_tf32_fragments";
  static constexpr const char *kF16FragmentsEntry =
      "proofc_prologue_f16_fragments";
  static constexpr const char *kFoldAtomLayerEntry =
      "proofc_prologue_fold_atom_layer";

private:
  /// Fails unless `shape`'s floats fit in the driver allocation holding
  /// `address` (unchecked where the driver cannot say).
  void checkFits(CUdeviceptr address, const std::vector<int64_t> &shape,
                 const std::string &tensor) const;
  /// One step's launch or copy on `stream`.
  void enqueue(const PrologueStep &step, CUstream stream);
  void release() noexcept;

  CudaDriver &drv_;
  std::string path_;
  CUmodule module_ = nullptr;
  CUfunction foldColumns_ = nullptr, transpose_ = nullptr, tf32_ = nullptr,
             f16_ = nullptr, atomLayer_ = nullptr;
  CUdeviceptr scratch_ = 0;
  uint64_t scratchBytes_ = 0;
  CUevent done_ = nullptr; ///< recorded at the end of each run
  bool ran_ = false;       ///< done_ has been recorded
};

} // namespace proofc

#endif // PROOFC_RUNTIME_CUDA_DEVICEPROLOGUE_H
