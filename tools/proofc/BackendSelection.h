//===- BackendSelection.h - --device to a runtime backend -------*- C++ -*-===//
#ifndef PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H
#define PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H

#include "proofc/runtime/Evaluation.h"
#include "proofc/runtime/Session.h"
#include "session/Devices.h"

#include <memory>
#include <string>
#include <vector>

namespace proofc::driver {

/// The backends (openBackends, session/Devices.h) for --device and --devices:
/// backend.device is cpu, cuda, cuda:N (an MPI rank's own GPU, RankHost.h) or
/// auto (auto: cuda when a device is usable, else cpu); backend.devices
/// (--devices: all or CUDA ordinals, excluding `device`) asks for CUDA
/// backends on several GPUs, backend.workersPerDevice for how many on each
/// (--workers-per-device; more than one only on CUDA); backend.threads (0: all)
/// is for the host backend, which uses at most `slots` of them, cond and
/// unroll for the CUDA backend, memoEntries for both. The CUDA backends get the
/// bundle of `program`, compiled in memory once. Throws proofc::Error when the
/// requested backend is not available or the program does not compile.
OpenedBackends selectBackends(const BackendOptions &backend, int slots,
                              const std::string &program);

} // namespace proofc::driver

#endif // PROOFC_TOOLS_PROOFC_BACKENDSELECTION_H
