//===- BackendSelection.cpp - --device to a runtime backend ---------------===//
//
// The host backend, or the CUDA backend with the program's bundle compiled
// in memory (as `proofc compile` would write it); `auto` prefers CUDA when a
// device is usable.
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"
#include "BundleCompiler.h"

#include "Fail.h"
#include "HostBackend.h"
#include "cuda/CudaBackend.h"

#include <algorithm>
#include <thread>

using namespace proofc;

driver::SelectedBackend driver::selectBackend(const std::string &device,
                                              int threads, int slots,
                                              const std::string &program) {
  if (device != "cpu" && device != "cuda" && device != "auto")
    fail("--device {}: expected cpu, cuda or auto", device);
  std::string whyNot;
  if (device == "cuda" && !cudaDeviceAvailable(&whyNot))
    fail("--device cuda: no usable CUDA device: {}", whyNot);
  if (device == "cuda" || (device == "auto" && cudaDeviceAvailable())) {
    std::optional<CompiledProgram> compiled =
        compileProgramToBundle(program, BundleCompilerOptions{});
    if (!compiled)
      fail("{}: cannot compile for the CUDA backend (errors above)", program);
    return {std::make_unique<CudaBackend>(std::move(compiled->bundle),
                                          program + " (compiled bundle)"),
            "cuda"};
  }

  HostBackendOptions options;
  options.threads = threads;
  return {std::make_unique<HostBackend>(options),
          hostDeviceName(threads, slots)};
}
