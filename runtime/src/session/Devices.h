//===- Devices.h - The backends SessionOptions asks for ---------*- C++ -*-===//
//
// Internal to the runtime and its tools (not the embedder's API): opening
// the host backend or one CUDA backend per GPU of SessionOptions::device and
// ::devices, for a bundle. A Session(bundlePath, options) opens its own;
// the tools open them first (`proofc run` compiles its program in memory)
// and make the session on them (SessionAccess.h). Errors start with the
// option's name as the caller spells it: "device"/"devices" for an
// embedder, "--device"/"--devices" for the command line.
//
//===----------------------------------------------------------------------===//
#ifndef PROOFC_RUNTIME_SESSION_DEVICES_H
#define PROOFC_RUNTIME_SESSION_DEVICES_H

#include "bundle/Bundle.h"
#include "proofc/runtime/Session.h"

#include <memory>
#include <string>
#include <vector>

namespace proofc {

/// The backend SessionOptions::device (and threads, cond, unroll,
/// memoEntries) asks for, for `bundle` read from `bundlePath`; "auto" takes
/// CUDA device 0 when there is one. Throws proofc::Error naming the device
/// when it is unavailable, its message starting with `flag` and the value.
struct SelectedDevice {
  std::unique_ptr<Backend> backend;
  std::string name; ///< "cpu (N threads)" or "cuda:N"
};
SelectedDevice openDevice(const Bundle &bundle, const std::string &bundlePath,
                          const SessionOptions &options,
                          const std::string &flag = "device");

/// parseDeviceList (Session.h) with its errors starting with `flag`.
std::vector<int> parseDeviceList(const std::string &text, int count,
                                 const std::string &flag);

/// The device workers BackendOptions::workersPerDevice asks for on a CUDA
/// device (`cuda`) or the host backend: auto (0) is 2 on CUDA, 1 on the
/// host. Throws when more than one is asked of the host backend, the
/// message starting with `workersFlag` and the value.
int resolveWorkersPerDevice(const BackendOptions &options, bool cuda,
                            const std::string &workersFlag);

/// Every backend SessionOptions asks for: openDevice()'s one, or one CUDA
/// backend per ordinal of SessionOptions::devices (`devicesFlag` names
/// that option in errors), each CUDA device's opened
/// resolveWorkersPerDevice times (device by device: cuda:0, cuda:1, cuda:0,
/// cuda:1 for two workers on two devices). Each CUDA device's kernels
/// start compiling as it opens (CudaBackend::prefetchModules), while the
/// caller loads its dataset, once for all of the device's workers.
std::vector<SelectedDevice>
openDevices(const Bundle &bundle, const std::string &bundlePath,
            const SessionOptions &options, const std::string &flag = "device",
            const std::string &devicesFlag = "devices",
            const std::string &workersFlag = "workers_per_device");

/// openDevices()'s backends as a session runs on them: owned, listed, and
/// their devices' names joined by "," (the device a report names when the
/// backends have no details of their own, e.g. "cpu (4 threads)",
/// "cuda:0,cuda:1"; a device with several workers named once).
struct OpenedBackends {
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend *> backends; ///< owned's, in order
  std::string device;
};
OpenedBackends
openBackends(const Bundle &bundle, const std::string &bundlePath,
             const SessionOptions &options, const std::string &flag = "device",
             const std::string &devicesFlag = "devices",
             const std::string &workersFlag = "workers_per_device");

} // namespace proofc

#endif // PROOFC_RUNTIME_SESSION_DEVICES_H
