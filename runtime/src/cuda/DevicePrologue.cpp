//===- DevicePrologue.cpp - The plan's weight prologue on the GPU ---------===//
//
// schedulePrologue decides everything (checks, placement, launch sizes);
// this file only turns its steps into launches and device-to-device copies
// on the caller's stream, and owns the module, the scratch and the event
// that orders one run's scratch use after the previous run's.
//
//===----------------------------------------------------------------------===//
#if PROOFC_HAVE_CUDA

#include "DevicePrologue.h"

#include "cuda/KernelCache.h"
#include "support/Fail.h"
#include "support/MessageText.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace proofc {
namespace {

const char kPrologueSource[] =
#include "PrologueKernel.inc"
    ;

/// The first line of a JIT log (the driver's messages end with a newline).
std::string firstLine(const char *log) {
  std::string s(log);
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string prologueName(const std::string &bundlePath) {
  return bundlePath + ": the device prologue (prologue.cu)";
}

} // namespace

const std::string &DevicePrologue::source() {
  static const std::string text(kPrologueSource);
  return text;
}

std::string
DevicePrologue::compileCubin(KernelCache &cache, int driverVersion, int ccMajor,
                             int ccMinor, const std::string &bundlePath,
                             const std::vector<std::string> &options) {
  return cachedNvrtcCubin(cache, driverVersion, source(),
                          prologueName(bundlePath), ccMajor, ccMinor, options);
}

DevicePrologue::DevicePrologue(CudaDriver &drv, KernelCache &cache, int ccMajor,
                               int ccMinor, std::string bundlePath)
    : DevicePrologue(
          drv, compileCubin(cache, drv.version(), ccMajor, ccMinor, bundlePath),
          bundlePath) {}

DevicePrologue::DevicePrologue(CudaDriver &drv, const std::string &cubin,
                               std::string bundlePath)
    : drv_(drv), path_(std::move(bundlePath)) {
  const std::string name = prologueName(path_);
  try {
    std::vector<char> log(8192, '\0');
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(
                                      static_cast<uintptr_t>(log.size()))};
    const CUresult r =
        drv_.cuModuleLoadDataEx(&module_, cubin.data(), 2, opts, values);
    if (r != CUDA_SUCCESS) {
      module_ = nullptr;
      fail("{}: cuModuleLoadDataEx failed: {}: {}", name, drv_.errorName(r),
           firstLine(log.data()));
    }
    PROOFC_CU(drv_, cuModuleGetFunction, &foldColumns_, module_,
              kFoldColumnsEntry);
    PROOFC_CU(drv_, cuModuleGetFunction, &transpose_, module_, kTransposeEntry);
    PROOFC_CU(drv_, cuModuleGetFunction, &tf32_, module_, kTf32FragmentsEntry);
    PROOFC_CU(drv_, cuModuleGetFunction, &f16_, module_, kF16FragmentsEntry);
    PROOFC_CU(drv_, cuModuleGetFunction, &atomLayer_, module_,
              kFoldAtomLayerEntry);
    PROOFC_CU(drv_, cuEventCreate, &done_, CU_EVENT_DISABLE_TIMING);
  } catch (...) {
    release();
    throw;
  }
}

DevicePrologue::~DevicePrologue() { release(); }

void DevicePrologue::release() noexcept {
  // Errors are not reported here: the context may already be unusable.
  if (done_ && ran_)
    drv_.cuEventSynchronize(done_);
  if (scratch_)
    drv_.cuMemFree(scratch_);
  if (done_)
    drv_.cuEventDestroy(done_);
  if (module_)
    drv_.cuModuleUnload(module_);
  scratch_ = 0;
  scratchBytes_ = 0;
  done_ = nullptr;
  module_ = nullptr;
  ran_ = false;
}

void DevicePrologue::checkFits(CUdeviceptr address,
                               const std::vector<int64_t> &shape,
                               const std::string &tensor) const {
  // Memory of another GPU is refused by name: the pointer's own device,
  // whatever the caller said (__cuda_array_interface__ names none; issue
  // 28). Peer access is never assumed.
  int ordinal = -1;
  CUdevice current = 0;
  if (drv_.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 address) == CUDA_SUCCESS &&
      drv_.cuCtxGetDevice(&current) == CUDA_SUCCESS && ordinal != current)
    fail("{}: {} is on cuda:{}, the session runs on cuda:{}; move it there "
         "(e.g. tensor.to('cuda:{}')) or open the session on cuda:{}",
         path_, tensor, ordinal, current, current, ordinal);
  const uint64_t bytes = static_cast<uint64_t>(elementCount(shape)) * 4;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (bytes == 0 ||
      drv_.cuMemGetAddressRange(&base, &size, address) != CUDA_SUCCESS)
    return; // not memory the driver can size (e.g. mapped): unchecked
  const uint64_t room = base + size - address;
  if (bytes > room)
    fail("{}: {} needs {} bytes, its device allocation has {} from its "
         "address",
         path_, tensor, bytes, room);
}

void DevicePrologue::enqueue(const PrologueStep &step, CUstream stream) {
  auto address = [&](const StepAddress &a) -> CUdeviceptr {
    return a.scratch ? scratch_ + a.value : a.value;
  };
  CUdeviceptr dst = address(step.dst), src = address(step.src);
  if (step.kind == PrologueStep::Kind::Copy) {
    PROOFC_CU(drv_, cuMemcpyDtoDAsync, dst, src,
              static_cast<size_t>(step.elements) * 4, stream);
    return;
  }
  CUdeviceptr weight = 0, bias = 0, args4[4] = {0, 0, 0, 0};
  long long rows = step.rows, cols = step.cols, out = step.out, in = step.in,
            colBegin = step.colBegin, consts = step.consts, vars = step.vars,
            argRows = step.argRows;
  long long dstRows = step.out > 0 ? step.elements / step.out : 0;
  int relu = step.relu ? 1 : 0;
  CUfunction fn = nullptr;
  std::vector<void *> args;
  switch (step.kind) {
  case PrologueStep::Kind::FoldColumns:
    fn = foldColumns_;
    weight = address(step.weight);
    bias = step.hasBias ? address(step.bias) : 0;
    args = {&dst, &src, &weight, &bias, &rows, &out, &in, &colBegin, &cols};
    break;
  case PrologueStep::Kind::Transpose:
    fn = transpose_;
    args = {&dst, &src, &rows, &cols};
    break;
  case PrologueStep::Kind::Tf32Fragments:
  case PrologueStep::Kind::F16Fragments:
    fn = step.kind == PrologueStep::Kind::Tf32Fragments ? tf32_ : f16_;
    args = {&dst, &src, &rows, &cols};
    break;
  case PrologueStep::Kind::FoldAtomLayer:
    fn = atomLayer_;
    weight = address(step.weight);
    for (int a = 0; a < 4; ++a)
      args4[a] = address(step.args[a]);
    // src = pred_proj; rows = its rows, cols = the width.
    args = {&dst,      &src,     &args4[0], &args4[1], &args4[2],
            &args4[3], &weight,  &dstRows,  &rows,     &consts,
            &vars,     &argRows, &cols,     &out,      &relu};
    break;
  case PrologueStep::Kind::Copy:
    break;
  }
  PROOFC_CU(drv_, cuLaunchKernel, fn, step.grid, 1, 1, step.block, 1, 1, 0,
            stream, args.data(), nullptr);
}

void DevicePrologue::run(const GpuPlan &plan,
                         const std::map<std::string, DeviceTensor> &weights,
                         const std::map<std::string, CUdeviceptr> &outputs,
                         CUstream stream) {
  std::map<std::string, AddressedTensor> addressed;
  for (const auto &[name, tensor] : weights)
    addressed.emplace(name, AddressedTensor{tensor.ptr, tensor.shape});
  std::map<std::string, uint64_t> outputAddresses(outputs.begin(),
                                                  outputs.end());
  const PrologueSchedule schedule =
      schedulePrologue(plan, addressed, outputAddresses, path_);

  // Nothing is written or read past a driver allocation: an output buffer
  // sized for other weights (another dataset's tables) is an error, not an
  // overrun.
  for (const auto &[name, address] : outputs)
    checkFits(address, schedule.shapes.at(name),
              "output '" + escapeForMessage(name) + "'");
  for (const auto &[name, tensor] : weights)
    checkFits(tensor.ptr, tensor.shape,
              "weight '" + escapeForMessage(name) + "'");

  if (schedule.scratchBytes > scratchBytes_) {
    // The previous run's kernels may still read the old scratch.
    if (ran_)
      PROOFC_CU(drv_, cuEventSynchronize, done_);
    if (scratch_)
      PROOFC_CU(drv_, cuMemFree, scratch_);
    scratch_ = 0;
    scratchBytes_ = 0;
    PROOFC_CU(drv_, cuMemAlloc, &scratch_, schedule.scratchBytes);
    scratchBytes_ = schedule.scratchBytes;
  } else if (ran_) {
    // The same scratch, perhaps from another stream: after the last run.
    PROOFC_CU(drv_, cuStreamWaitEvent, stream, done_, 0);
  }

  for (const PrologueStep &step : schedule.steps) {
    try {
      enqueue(step, stream);
    } catch (const Error &e) {
      fail("{}: on the device: {}", step.what, e.what());
    }
  }
  PROOFC_CU(drv_, cuEventRecord, done_, stream);
  ran_ = true;
}

} // namespace proofc

#endif // PROOFC_HAVE_CUDA
