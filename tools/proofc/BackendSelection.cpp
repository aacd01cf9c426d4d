//===- BackendSelection.cpp - --device to a runtime backend ---------------===//
//
// Only the host backend is built into this driver so far; the CUDA backend
// plugs in here (and `auto` prefers it once it exists).
//
//===----------------------------------------------------------------------===//
#include "BackendSelection.h"

#include "proofc/runtime/Error.h"
#include "proofc/runtime/HostBackend.h"

#include <algorithm>
#include <thread>

using namespace proofc;

driver::SelectedBackend driver::selectBackend(const std::string &device,
                                              int threads, int slots) {
  if (device == "cuda")
    fail("--device cuda: the CUDA backend is not built into this proofc; use "
         "--device cpu");
  if (device != "cpu" && device != "auto")
    fail("--device {}: expected cpu, cuda or auto", device);

  HostBackendOptions options;
  options.threads = threads;
  // The host backend gives each thread at least one slot.
  int used = threads > 0
                 ? threads
                 : static_cast<int>(std::thread::hardware_concurrency());
  used = std::max(1, std::min(used, slots));
  return {std::make_unique<HostBackend>(options),
          fmt::format("cpu ({} thread{})", used, used == 1 ? "" : "s")};
}
