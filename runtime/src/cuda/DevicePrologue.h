//===- DevicePrologue.h - The weight prologue on the device -----*- C++ -*-===//
// Placeholder interface until the device prologue lands (h/devfold).
#ifndef PROOFC_RUNTIME_CUDA_DEVICEPROLOGUE_H
#define PROOFC_RUNTIME_CUDA_DEVICEPROLOGUE_H
#include "Fail.h"
#include "cuda/CudaDriver.h"
#include "cuda/KernelCache.h"
#include "proofc/runtime/Bundle.h"
#include <map>
#include <string>
#include <vector>
namespace proofc {
struct DeviceTensor { CUdeviceptr ptr = 0; std::vector<int64_t> shape; };
class DevicePrologue {
public:
  DevicePrologue(CudaDriver &, KernelCache &, int, int, std::string path) {
    fail("{}: weights on the device are not supported yet", path);
  }
  void run(const GpuPlan &, const std::map<std::string, DeviceTensor> &,
           const std::map<std::string, CUdeviceptr> &, CUstream) {}
};
} // namespace proofc
#endif
