//===- BackendSelection.cpp - --device to a runtime backend ---------------===//
//
// The host backend, or the CUDA backend with the program's bundle compiled
// in memory (as `proofc compile` would write it); `auto` prefers CUDA when a
// device is usable.
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"
#include "BundleCompiler.h"

#include "cuda/CudaBackend.h"
#include "host/HostBackend.h"
#include "proofc/runtime/Session.h"
#include "support/Fail.h"

#include <algorithm>
#include <thread>

using namespace proofc;

OpenedBackends driver::selectBackends(const BackendOptions &backend, int slots,
                                      const std::string &program) {
  const std::string &device = backend.device;
  const std::string &devices = backend.devices;
  const int threads = backend.threads;
  // "cuda:N": an MPI rank's own GPU under --device cuda (RankHost.h).
  const bool cuda = device == "cuda" || device.rfind("cuda:", 0) == 0;
  if (device != "cpu" && !cuda && device != "auto")
    fail("--device {}: expected cpu, cuda, cuda:N or auto", device);
  std::string whyNot;
  if (cuda && devices.empty() && !cudaDeviceAvailable(&whyNot))
    fail("--device {}: no usable CUDA device: {}", device, whyNot);
  if (!devices.empty() || cuda || (device == "auto" && cudaDeviceAvailable())) {
    std::optional<CompiledProgram> compiled =
        compileProgramToBundle(program, BundleCompilerOptions{});
    if (!compiled)
      fail("{}: cannot compile for the CUDA backend (errors above)", program);
    SessionOptions options;
    static_cast<BackendOptions &>(options) = backend;
    options.device = !devices.empty() ? "auto" : cuda ? device : "cuda";
    return openBackends(compiled->bundle, program + " (compiled bundle)",
                        options, "--device", "--devices",
                        "--workers-per-device");
  }
  // The host backend: its one check (more than one worker is refused).
  resolveWorkersPerDevice(backend, false, "--workers-per-device");

  OpenedBackends out;
  out.owned.push_back(
      std::make_unique<HostBackend>(hostBackendOptions(backend)));
  out.backends.push_back(out.owned.back().get());
  out.device = hostDeviceName(threads, slots);
  return out;
}
